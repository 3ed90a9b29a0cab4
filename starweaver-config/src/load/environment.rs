//! `environment:` and `shell:` to the providers attached to the session.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use starweaver_core::environment::{
    DynEnvironment, DynProcessShell, LocalEnvironmentProvider, SandboxMode, SandboxPolicy,
    SandboxReads, ShellPolicy, VirtualEnvironmentProvider,
};

use super::LoadError;
use crate::manifest::{
    EnvironmentKind, EnvironmentSpec, SandboxModeSpec, SandboxReadSpec, SandboxSpec, ShellSpec,
};
use crate::paths::environment_root;

/// The environment as both a file provider and a process shell (one provider serves both).
#[derive(Clone)]
pub(super) struct Attached {
    /// Files, search and foreground commands.
    pub files: DynEnvironment,
    /// Background processes.
    pub processes: DynProcessShell,
    /// A local environment's folder as opened (absolute, canonical).
    pub root: Option<PathBuf>,
}

/// The shell policy `shell:` declares; no section means no execution, `allow_execute` with no
/// list means any program.
pub fn shell_policy(shell: Option<&ShellSpec>) -> ShellPolicy {
    match shell {
        Some(spec) if spec.allow_execute && spec.allowed_programs.is_empty() => {
            ShellPolicy::unrestricted()
        }
        Some(spec) if spec.allow_execute => {
            ShellPolicy::allow_programs(spec.allowed_programs.clone())
        }
        _ => ShellPolicy::disabled(),
    }
}

/// The kernel sandbox `shell.sandbox` declares for a local environment's commands; no `shell`
/// section or no `sandbox` in it means the core default (writes only inside the root, no
/// network, refused where the kernel cannot enforce it).
pub fn sandbox_policy(shell: Option<&ShellSpec>) -> SandboxPolicy {
    sandbox_policy_of(shell.and_then(|shell| shell.sandbox.as_ref()))
}

/// The kernel sandbox one `sandbox:` section declares (`shell.sandbox`, or an `mcp` toolset's);
/// `None` is the core default, the same as an empty section.
#[must_use]
pub fn sandbox_policy_of(spec: Option<&SandboxSpec>) -> SandboxPolicy {
    let Some(spec) = spec else {
        return SandboxPolicy::default();
    };
    let mode = match spec.mode {
        SandboxModeSpec::ReadOnly => SandboxMode::ReadOnly,
        SandboxModeSpec::WorkspaceWrite => SandboxMode::WorkspaceWrite,
        SandboxModeSpec::Off => SandboxMode::Off,
    };
    let reads = match spec.read {
        SandboxReadSpec::All => SandboxReads::All,
        SandboxReadSpec::Workspace => SandboxReads::Workspace,
    };
    SandboxPolicy::default()
        .with_mode(mode)
        .with_writable(spec.writable.iter().cloned())
        .with_network(spec.network)
        .with_reads(reads)
        .with_required(spec.required)
}

/// Opens the environment with the shell's policy, limits and (for a local one) sandbox. The
/// checker has judged every setting (a virtual environment's `root`, the sandbox's `writable`
/// folders); only opening the folder can fail here.
pub(super) fn attach(
    spec: &EnvironmentSpec,
    shell: Option<&ShellSpec>,
    base_dir: &Path,
    name: &str,
) -> Result<Attached, LoadError> {
    let policy = shell_policy(shell);
    let limits = shell.cloned().unwrap_or_default();
    match spec.kind {
        EnvironmentKind::Local => {
            let root = environment_root(base_dir, spec.root.as_deref());
            let mut provider = LocalEnvironmentProvider::new(&root)
                .map_err(|error| LoadError::Environment {
                    root: root.display().to_string(),
                    message: error.to_string(),
                })?
                .with_shell_policy(policy)
                .with_sandbox(sandbox_policy(shell));
            if let Some(ms) = limits.timeout_ms {
                provider = provider.with_default_timeout_ms(ms);
            }
            if let Some(bytes) = limits.max_output_bytes {
                provider = provider.with_max_output_bytes(bytes);
            }
            if let Some(count) = limits.max_concurrent_processes {
                provider = provider.with_max_concurrent_processes(count);
            }
            let opened = provider.root().to_path_buf();
            let provider = Arc::new(provider);
            Ok(Attached {
                files: provider.clone(),
                processes: provider,
                root: Some(opened),
            })
        }
        // The checker refuses a `root` or a `sandbox` on a virtual environment.
        EnvironmentKind::Virtual => {
            let mut provider = VirtualEnvironmentProvider::new(name).with_shell_policy(policy);
            if let Some(ms) = limits.timeout_ms {
                let mut process_limits = provider.process_limits().clone();
                process_limits.default_timeout_ms = ms;
                provider = provider.with_process_limits(process_limits);
            }
            if let Some(bytes) = limits.max_output_bytes {
                provider = provider.with_max_output_bytes(bytes);
            }
            if let Some(count) = limits.max_concurrent_processes {
                provider = provider.with_max_concurrent_processes(count);
            }
            let provider = Arc::new(provider);
            Ok(Attached {
                files: provider.clone(),
                processes: provider,
                root: None,
            })
        }
    }
}

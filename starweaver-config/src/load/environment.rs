//! `environment:` and `shell:` to the providers attached to the session.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use starweaver_core::environment::{
    DynEnvironment, DynProcessShell, LocalEnvironmentProvider, ShellPolicy,
    VirtualEnvironmentProvider,
};

use super::LoadError;
use crate::manifest::{EnvironmentKind, EnvironmentSpec, ShellSpec};
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
pub fn policy(shell: Option<&ShellSpec>) -> ShellPolicy {
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

/// Opens the environment with the shell's policy and limits.
pub(super) fn attach(
    spec: &EnvironmentSpec,
    shell: Option<&ShellSpec>,
    base_dir: &Path,
    name: &str,
) -> Result<Attached, LoadError> {
    let policy = policy(shell);
    let limits = shell.cloned().unwrap_or_default();
    match spec.kind {
        EnvironmentKind::Local => {
            let root = environment_root(base_dir, spec.root.as_deref());
            let mut provider = LocalEnvironmentProvider::new(&root)
                .map_err(|error| LoadError::Environment {
                    root: root.display().to_string(),
                    message: error.to_string(),
                })?
                .with_shell_policy(policy);
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
        EnvironmentKind::Virtual => {
            if spec.root.is_some() {
                return Err(LoadError::Unsupported {
                    field: "environment.root".to_string(),
                    reason: "a virtual environment starts empty and has no folder".to_string(),
                });
            }
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

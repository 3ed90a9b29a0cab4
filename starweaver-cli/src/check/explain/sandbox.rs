//! A kernel sandbox policy as the explanation shows it: the shell's, under its environment
//! root, and an MCP server's, under the folder it runs in.

use std::path::Path;

use starweaver_config::paths::writable_folder;
use starweaver_core::environment::{SandboxKernel, SandboxMode as PolicyMode, SandboxPolicy};

use super::facts::{SandboxFacts, SandboxMode};

/// The policy's mode as the explanation names it.
pub(super) fn mode(policy: &SandboxPolicy) -> SandboxMode {
    match policy.mode() {
        PolicyMode::ReadOnly => SandboxMode::ReadOnly,
        PolicyMode::WorkspaceWrite => SandboxMode::WorkspaceWrite,
        // Off, or a mode this explanation does not know: nothing it can vouch for.
        _ => SandboxMode::Off,
    }
}

/// The policy's extra writable folders, as absolute paths under `root`.
pub(super) fn writable(policy: &SandboxPolicy, root: &Path) -> Vec<String> {
    policy
        .writable()
        .iter()
        // The checker refused any folder that leaves the root.
        .map(|folder| writable_folder(root, folder).unwrap_or_else(|_| root.join(folder)))
        .map(|path| path.display().to_string())
        .collect()
}

/// `policy` applied under the folder `root`, and what `kernel` enforces of it.
pub(super) fn sandbox_facts(
    policy: &SandboxPolicy,
    root: &Path,
    kernel: &SandboxKernel,
) -> SandboxFacts {
    SandboxFacts {
        mode: mode(policy),
        writable: writable(policy, root),
        network: policy.network(),
        read: policy.reads().as_str(),
        required: policy.required(),
        enforced: kernel.enforces(policy),
        not_enforced: kernel.missing(policy),
    }
}

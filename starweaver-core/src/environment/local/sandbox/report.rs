//! What a command actually ran under, as its return reports it.

use serde::{Deserialize, Serialize};

use super::{SandboxKernel, SandboxMode, SandboxPolicy, SandboxReads};

/// The sandbox a command ran under: the policy's choices and what the
/// kernel enforced of them. A command's result carries it (the
/// `sandbox` key of `shell_exec`'s metadata), so a reader can tell a
/// confined command from one that ran with what the kernel could do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SandboxReport {
    /// The mode.
    pub mode: SandboxMode,
    /// Where commands may read.
    pub read: SandboxReads,
    /// Whether the network is open to commands.
    pub network: bool,
    /// The Landlock ABI the rules were built for (absent with the sandbox
    /// off or without Landlock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub landlock_abi: Option<u8>,
    /// Whether signals and abstract unix sockets are scoped to the
    /// sandbox (Landlock ABI 6).
    pub scoped: bool,
    /// What the policy asks for that the kernel did not enforce (empty
    /// when everything is enforced or the sandbox is off).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_enforced: Vec<String>,
}

impl SandboxReport {
    /// The report for commands under `policy` on `kernel`.
    #[must_use]
    pub fn new(policy: &SandboxPolicy, kernel: &SandboxKernel) -> Self {
        let enabled = policy.is_enabled();
        let abi = kernel.landlock_abi();
        let mut not_enforced = kernel.missing(policy);
        let scoped = enabled && !kernel.unscoped(policy);
        if enabled && abi > 0 && !scoped {
            not_enforced.push(format!(
                "signal and abstract unix socket scoping (Landlock ABI {}; this kernel has ABI \
                 {abi})",
                super::kernel::LANDLOCK_ABI_FOR_SCOPES
            ));
        }
        Self {
            mode: policy.mode(),
            read: policy.reads(),
            network: !enabled || policy.network(),
            landlock_abi: (enabled && abi > 0).then_some(abi),
            scoped,
            not_enforced,
        }
    }

    /// Whether everything the policy asks for is enforced.
    #[must_use]
    pub fn fully_enforced(&self) -> bool {
        self.not_enforced.is_empty()
    }
}

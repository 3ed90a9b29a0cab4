//! The sandbox policy a host or a manifest picks for the commands of a
//! local environment: what they may write, read and connect to, and
//! whether a kernel that cannot enforce it refuses commands.

use serde::{Deserialize, Serialize};

/// How much of the file system commands may change.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum SandboxMode {
    /// Writes only in the private temporary folder, the
    /// [`SandboxPolicy::writable`] folders and devices such as `/dev/null`.
    ReadOnly,
    /// Writes inside the environment root too (the default).
    #[default]
    WorkspaceWrite,
    /// No kernel sandbox: commands write anywhere the host user can and
    /// reach the network. Processes that left the command's group are
    /// still ended with it.
    Off,
}

impl SandboxMode {
    /// The name manifests use (`read-only`, `workspace-write`, `off`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReadOnly => "read-only",
            Self::WorkspaceWrite => "workspace-write",
            Self::Off => "off",
        }
    }
}

/// Where commands may read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum SandboxReads {
    /// Everywhere the host user can (the default: programs need their
    /// libraries, configuration and caches).
    #[default]
    All,
    /// Only the root, the private temporary folder and the system folders
    /// programs need: `/usr`, `/bin`, `/sbin`, `/lib*`, `/etc`,
    /// `/dev/null`, `/dev/zero`, `/dev/urandom` and `/proc` (for
    /// `/proc/self`: a rule cannot grant a process its own entry alone, so
    /// other processes' entries stay readable as the host's user allows).
    /// Never `/tmp` outside the private folder, `/home` or `/root`.
    Workspace,
}

impl SandboxReads {
    /// The name manifests use (`all`, `workspace`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::All => "all",
            Self::Workspace => "workspace",
        }
    }
}

/// The kernel sandbox every command of a
/// [`crate::environment::LocalEnvironmentProvider`] runs under, set with
/// [`crate::environment::LocalEnvironmentProvider::with_sandbox`].
///
/// On Linux it is enforced with Landlock (file system rules, TCP connect
/// and bind, and from Landlock ABI 6 signals and abstract unix sockets)
/// and seccomp (the socket families Landlock does not cover: UDP, raw and
/// packet sockets, and `io_uring`). The restriction is applied to a fresh
/// thread that starts the command, so the host process and its other
/// threads keep every right they had.
///
/// The default is [`SandboxMode::WorkspaceWrite`], reads everywhere,
/// network off, required: a kernel that cannot enforce it refuses every
/// command.
///
/// ```
/// use starweaver_core::environment::{SandboxMode, SandboxPolicy};
/// let policy = SandboxPolicy::read_only().with_writable(["target"]).with_network(false);
/// assert_eq!(policy.mode(), SandboxMode::ReadOnly);
/// assert_eq!(policy.writable(), ["target"]);
/// assert!(policy.required());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SandboxPolicy {
    mode: SandboxMode,
    writable: Vec<String>,
    network: bool,
    reads: SandboxReads,
    required: bool,
}

impl Default for SandboxPolicy {
    fn default() -> Self {
        Self::workspace_write()
    }
}

impl SandboxPolicy {
    /// Writes inside the root, network off, reads everywhere, required.
    #[must_use]
    pub fn workspace_write() -> Self {
        Self {
            mode: SandboxMode::WorkspaceWrite,
            writable: Vec::new(),
            network: false,
            reads: SandboxReads::All,
            required: true,
        }
    }

    /// No writes but the private temporary folder, network off, reads
    /// everywhere, required.
    #[must_use]
    pub fn read_only() -> Self {
        Self::workspace_write().with_mode(SandboxMode::ReadOnly)
    }

    /// No sandbox (see [`SandboxMode::Off`]).
    #[must_use]
    pub fn off() -> Self {
        Self::workspace_write().with_mode(SandboxMode::Off)
    }

    /// Sets the mode.
    #[must_use]
    pub fn with_mode(mut self, mode: SandboxMode) -> Self {
        self.mode = mode;
        self
    }

    /// Sets more folders commands may write, relative to the root and
    /// inside it (opened through the root's confined handle: a folder
    /// that leads out of the root refuses every command). A folder that
    /// does not exist yet is created when the first command starts.
    #[must_use]
    pub fn with_writable(mut self, folders: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.writable = folders.into_iter().map(Into::into).collect();
        self
    }

    /// Sets whether commands may use the network (default false).
    #[must_use]
    pub fn with_network(mut self, allowed: bool) -> Self {
        self.network = allowed;
        self
    }

    /// Sets where commands may read (default [`SandboxReads::All`]).
    #[must_use]
    pub fn with_reads(mut self, reads: SandboxReads) -> Self {
        self.reads = reads;
        self
    }

    /// Sets whether a kernel that cannot enforce the policy refuses
    /// commands (true, the default) or runs them with what it can
    /// enforce, saying in each return what was not.
    #[must_use]
    pub fn with_required(mut self, required: bool) -> Self {
        self.required = required;
        self
    }

    /// The mode.
    #[must_use]
    pub fn mode(&self) -> SandboxMode {
        self.mode
    }

    /// The extra writable folders, as given.
    #[must_use]
    pub fn writable(&self) -> &[String] {
        &self.writable
    }

    /// Whether commands may use the network.
    #[must_use]
    pub fn network(&self) -> bool {
        self.network
    }

    /// Where commands may read.
    #[must_use]
    pub fn reads(&self) -> SandboxReads {
        self.reads
    }

    /// Whether a kernel that cannot enforce it refuses commands.
    #[must_use]
    pub fn required(&self) -> bool {
        self.required
    }

    /// Whether the kernel sandbox applies at all (any mode but off).
    #[must_use]
    pub fn is_enabled(&self) -> bool {
        self.mode != SandboxMode::Off
    }
}

//! Starting a local program that is not a shell command (a protocol
//! server the host talks to over its pipes) under the same kernel sandbox
//! shell commands get.

use std::path::Path;
use std::sync::Arc;

use cap_std::fs::Dir;
use tokio::process::{Child, Command};

use super::confine::Prepared;
use super::{SandboxKernel, SandboxPolicy, SandboxReport};
use crate::environment::EnvironmentError;

/// The stack of the short-lived thread that starts a program.
const SPAWN_STACK: usize = 256 * 1024;

/// A sandbox policy prepared once on this kernel, which starts programs
/// confined by it: Landlock rules with `root` as the folder writes are
/// confined to (with the policy's writable folders, relative to it, and a
/// private temporary folder), and the seccomp filter.
///
/// The start happens on a fresh thread that takes the restrictions first;
/// the program and everything it starts inherit them, and the host's
/// other threads keep every right. Keep the launcher while the program
/// runs: dropping it removes the private temporary folder. Unlike the
/// local environment's commands, the program is not tagged for escapee
/// tracking: its caller owns its process group.
#[derive(Debug, Clone)]
pub struct SandboxLauncher {
    prepared: Arc<Prepared>,
}

impl SandboxLauncher {
    /// Prepares `policy` on the running kernel for programs working in
    /// `root`.
    ///
    /// # Errors
    /// [`EnvironmentError::SandboxUnavailable`] when the policy is
    /// required and the kernel cannot enforce it;
    /// [`EnvironmentError::Io`] when `root`, the private temporary
    /// folder or the rules cannot be opened or made;
    /// [`EnvironmentError::AccessDenied`] for a writable folder that leads
    /// out of `root`.
    pub fn new(policy: &SandboxPolicy, root: &Path) -> Result<Self, EnvironmentError> {
        let handle =
            Dir::open_ambient_dir(root, cap_std::ambient_authority()).map_err(|source| {
                EnvironmentError::Io {
                    path: root.display().to_string(),
                    source,
                }
            })?;
        let prepared = Prepared::new(policy, &SandboxKernel::detect(), &handle)?;
        Ok(Self {
            prepared: Arc::new(prepared),
        })
    }

    /// What programs run under.
    #[must_use]
    pub fn report(&self) -> &SandboxReport {
        self.prepared.report()
    }

    /// The private temporary folder (set it as the program's `TMPDIR`);
    /// none with the sandbox off.
    #[must_use]
    pub fn temporary_dir(&self) -> Option<&Path> {
        self.prepared.temporary()
    }

    /// Starts `command` from a fresh thread restricted by the sandbox,
    /// without holding up the runtime's worker.
    ///
    /// # Errors
    /// When the kernel refuses the restrictions or the program cannot
    /// start.
    pub async fn spawn(&self, command: Command) -> std::io::Result<Child> {
        let runtime = tokio::runtime::Handle::try_current().map_err(std::io::Error::other)?;
        let prepared = Arc::clone(&self.prepared);
        let (answer, answered) = tokio::sync::oneshot::channel();
        std::thread::Builder::new()
            .name("starweaver-spawn".into())
            .stack_size(SPAWN_STACK)
            .spawn(move || {
                let mut command = command;
                let started = {
                    let _entered = runtime.enter();
                    prepared
                        .restrict_current_thread()
                        .and_then(|()| command.spawn())
                };
                // An unclaimed child is killed when dropped here
                // (`kill_on_drop` is the caller's to set).
                let _ = answer.send(started);
            })?;
        answered
            .await
            .unwrap_or_else(|_| Err(std::io::Error::other("the thread starting it ended early")))
    }
}

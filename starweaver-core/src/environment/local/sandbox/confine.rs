//! The sandbox of one provider: its policy, the kernel it runs on, and
//! what the first command prepares once for all the others (the private
//! temporary folder, the Landlock ruleset, the seccomp filter).

use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};

use cap_std::fs::Dir;

use super::{SandboxKernel, SandboxPolicy, SandboxReport};
use crate::environment::{normalize_path, EnvironmentError};

/// A provider's sandbox.
#[derive(Debug)]
pub(crate) struct Sandbox {
    policy: SandboxPolicy,
    kernel: SandboxKernel,
    prepared: Mutex<Option<Arc<Prepared>>>,
}

impl Default for Sandbox {
    fn default() -> Self {
        Self::new(SandboxPolicy::default(), SandboxKernel::detect())
    }
}

impl Sandbox {
    /// `policy` on `kernel`, prepared when the first command starts.
    pub(crate) fn new(policy: SandboxPolicy, kernel: SandboxKernel) -> Self {
        Self {
            policy,
            kernel,
            prepared: Mutex::new(None),
        }
    }

    /// The policy.
    pub(crate) fn policy(&self) -> &SandboxPolicy {
        &self.policy
    }

    /// The kernel it is enforced on.
    pub(crate) fn kernel(&self) -> &SandboxKernel {
        &self.kernel
    }

    /// What every command of the provider runs under, prepared on first
    /// use (and again after a failed preparation).
    ///
    /// # Errors
    /// [`EnvironmentError::SandboxUnavailable`] when the policy is
    /// required and the kernel cannot enforce it;
    /// [`EnvironmentError::AccessDenied`] for a writable folder that
    /// leads out of the root; [`EnvironmentError::Io`] when the temporary
    /// folder or the rules cannot be made.
    pub(crate) fn prepare(&self, root: &Dir) -> Result<Arc<Prepared>, EnvironmentError> {
        let mut slot = self
            .prepared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(prepared) = slot.as_ref() {
            return Ok(Arc::clone(prepared));
        }
        let prepared = Arc::new(Prepared::new(&self.policy, &self.kernel, root)?);
        *slot = Some(Arc::clone(&prepared));
        Ok(prepared)
    }
}

/// What the commands of one provider run under.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// The private temporary folder (none with the sandbox off); removed
    /// when the provider and its last command are gone.
    temporary: Option<tempfile::TempDir>,
    #[cfg(target_os = "linux")]
    ruleset: Option<landlock::RulesetCreated>,
    #[cfg(target_os = "linux")]
    filter: Option<seccompiler::BpfProgram>,
    report: SandboxReport,
}

impl Prepared {
    /// What `policy` on `kernel` needs, prepared once, with `root` as the
    /// folder writes are confined to.
    pub(super) fn new(
        policy: &SandboxPolicy,
        kernel: &SandboxKernel,
        root: &Dir,
    ) -> Result<Self, EnvironmentError> {
        let report = SandboxReport::new(policy, kernel);
        if !policy.is_enabled() {
            return Ok(Self::unconfined(report));
        }
        if policy.required() && !kernel.enforces(policy) {
            return Err(EnvironmentError::SandboxUnavailable {
                missing: kernel.missing(policy),
            });
        }
        let temporary = tempfile::Builder::new()
            .prefix("starweaver-")
            .tempdir()
            .map_err(|source| EnvironmentError::Io {
                path: "the sandbox's private temporary folder".to_string(),
                source,
            })?;
        let writable = writable_folders(policy, root)?;
        Self::confined(policy, kernel, root, temporary, &writable, report)
    }

    /// Commands without a sandbox (tests of the process layer).
    #[cfg(test)]
    pub(crate) fn unsandboxed() -> Self {
        Self::unconfined(SandboxReport::new(
            &SandboxPolicy::off(),
            &SandboxKernel::none(),
        ))
    }

    fn unconfined(report: SandboxReport) -> Self {
        Self {
            temporary: None,
            #[cfg(target_os = "linux")]
            ruleset: None,
            #[cfg(target_os = "linux")]
            filter: None,
            report,
        }
    }

    #[cfg(target_os = "linux")]
    fn confined(
        policy: &SandboxPolicy,
        kernel: &SandboxKernel,
        root: &Dir,
        temporary: tempfile::TempDir,
        writable: &[Dir],
        report: SandboxReport,
    ) -> Result<Self, EnvironmentError> {
        let failed = |source: io::Error| EnvironmentError::Io {
            path: "the shell sandbox's rules".to_string(),
            source,
        };
        let ruleset = if kernel.landlock_abi() > 0 {
            let temporary_dir =
                Dir::open_ambient_dir(temporary.path(), cap_std::ambient_authority())
                    .map_err(failed)?;
            let folders = super::linux::Folders {
                root,
                temporary: &temporary_dir,
                writable,
            };
            Some(super::linux::ruleset(policy, kernel, &folders).map_err(failed)?)
        } else {
            None
        };
        let filter = if kernel.seccomp() {
            Some(super::linux::filter(policy, kernel).map_err(failed)?)
        } else {
            None
        };
        Ok(Self {
            temporary: Some(temporary),
            ruleset,
            filter,
            report,
        })
    }

    #[cfg(not(target_os = "linux"))]
    fn confined(
        _policy: &SandboxPolicy,
        _kernel: &SandboxKernel,
        _root: &Dir,
        temporary: tempfile::TempDir,
        _writable: &[Dir],
        report: SandboxReport,
    ) -> Result<Self, EnvironmentError> {
        Ok(Self {
            temporary: Some(temporary),
            report,
        })
    }

    /// The private temporary folder, when the sandbox is on.
    pub(crate) fn temporary(&self) -> Option<&Path> {
        self.temporary.as_ref().map(tempfile::TempDir::path)
    }

    /// What commands run under.
    pub(crate) fn report(&self) -> &SandboxReport {
        &self.report
    }

    /// Adds `count` empty seccomp filters to the calling thread (already
    /// restricted), which mark the command it starts; false when this
    /// sandbox has no seccomp filter to mark with.
    ///
    /// # Errors
    /// When the kernel refuses a filter.
    pub(crate) fn add_marks(&self, count: u32) -> io::Result<bool> {
        #[cfg(target_os = "linux")]
        if self.filter.is_some() {
            let mark = super::linux::mark()?;
            for _ in 0..count {
                super::linux::apply(mark)?;
            }
            return Ok(true);
        }
        let _ = count;
        Ok(false)
    }

    /// Restricts the calling thread, which then starts the command: the
    /// command and everything it starts inherit the restrictions.
    ///
    /// # Errors
    /// When the kernel refuses the rules or the filter.
    pub(crate) fn restrict_current_thread(&self) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            if let Some(ruleset) = &self.ruleset {
                super::linux::restrict(ruleset)?;
            }
            if let Some(filter) = &self.filter {
                super::linux::apply(filter)?;
            }
        }
        Ok(())
    }
}

/// The policy's extra writable folders, created when missing and opened
/// through the root's confined handle.
fn writable_folders(policy: &SandboxPolicy, root: &Dir) -> Result<Vec<Dir>, EnvironmentError> {
    let mut folders = Vec::new();
    for given in policy.writable() {
        let escape = |reason: String| EnvironmentError::AccessDenied {
            path: given.clone(),
            reason,
        };
        if Path::new(given).is_absolute() {
            return Err(escape(
                "a writable folder of the sandbox must be relative to the environment root"
                    .to_string(),
            ));
        }
        let relative = normalize_path(given)?;
        let opened = if relative.is_empty() {
            root.try_clone()
        } else {
            root.create_dir_all(&relative)
                .and_then(|()| root.open_dir(&relative))
        };
        let folder = opened.map_err(|source| {
            escape(format!(
                "it cannot be a writable folder of the sandbox: it leads out of the environment \
                 root or cannot be made inside it ({source})"
            ))
        })?;
        folders.push(folder);
    }
    Ok(folders)
}

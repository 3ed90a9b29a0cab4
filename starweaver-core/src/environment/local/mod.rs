//! A real directory as an environment: files through a confined handle
//! on the root, ignore rules from the tree, native ripgrep-style search,
//! and commands in their own process groups.

mod atomic;
mod errors;
mod files;
mod hooks;
mod ignore_rules;
mod open;
mod process;
mod provider;
mod sandbox;
mod search;
mod shell;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cap_std::ambient_authority;
use cap_std::fs::Dir;

use super::{EnvironmentError, PathLimits, ShellPolicy};
use hooks::Hooks;
use ignore_rules::IgnoreRules;
use process::Processes;
use sandbox::Sandbox;
pub use sandbox::{
    SandboxKernel, SandboxLauncher, SandboxMode, SandboxPolicy, SandboxReads, SandboxReport,
    LANDLOCK_ABI_FOR_NETWORK, LANDLOCK_ABI_FOR_SCOPES, LANDLOCK_ABI_FOR_WRITES,
};

/// An environment over a folder on the local disk. Paths are
/// root-relative as for every provider; nothing outside the root is read,
/// written, listed or run in.
///
/// Every file operation resolves its path through a handle on the root
/// that refuses to leave it: `..` is resolved before the disk is touched,
/// and a symbolic link whose target lies outside the root (absolute, or
/// climbing above it) is [`EnvironmentError::AccessDenied`]. Links that
/// stay inside are followed by reads; `stat` and `list_dir` report links
/// as links; writes never go through a link. Writes are atomic (a
/// temporary file in the same folder, synced, then renamed over the
/// target), and `.gitignore`, `.ignore`, `.git/info/exclude` and git's
/// global excludes decide what walks and searches skip.
///
/// ```no_run
/// use starweaver_core::environment::LocalEnvironmentProvider;
/// let provider = LocalEnvironmentProvider::new(".")?;
/// # Ok::<(), starweaver_core::environment::EnvironmentError>(())
/// ```
#[derive(Debug)]
pub struct LocalEnvironmentProvider {
    name: String,
    /// The root as the operating system names it (canonical, fixed at
    /// construction): the working directory of commands is below it.
    root: PathBuf,
    /// The confined handle every file operation goes through.
    dir: Arc<Dir>,
    path_limits: PathLimits,
    /// The tree's ignore rules, loaded per directory on first use.
    /// Shared with the native search's walker threads.
    ignores: Arc<IgnoreRules>,
    /// Test-only interruptions of file operations (empty otherwise).
    hooks: Hooks,
    policy: ShellPolicy,
    /// The kernel sandbox of every command.
    sandbox: Sandbox,
    processes: Processes,
}

impl LocalEnvironmentProvider {
    /// An environment rooted at the existing folder `root`.
    ///
    /// # Errors
    /// [`EnvironmentError::NotFound`] when the folder does not exist,
    /// [`EnvironmentError::NotADirectory`] when it is a file,
    /// [`EnvironmentError::Io`] when it cannot be opened.
    pub fn new(root: impl AsRef<Path>) -> Result<Self, EnvironmentError> {
        let given = root.as_ref();
        let shown = given.display().to_string();
        let io = |source: std::io::Error| match source.kind() {
            std::io::ErrorKind::NotFound => EnvironmentError::NotFound {
                path: shown.clone(),
            },
            _ => EnvironmentError::Io {
                path: shown.clone(),
                source,
            },
        };
        let root = std::fs::canonicalize(given).map_err(io)?;
        if !root.is_dir() {
            return Err(EnvironmentError::NotADirectory { path: shown });
        }
        let dir = Dir::open_ambient_dir(&root, ambient_authority()).map_err(io)?;
        let name = root.file_name().map_or_else(
            || "local".to_string(),
            |name| name.to_string_lossy().into_owned(),
        );
        Ok(Self {
            name,
            root,
            dir: Arc::new(dir),
            path_limits: PathLimits::default(),
            ignores: Arc::new(IgnoreRules::default()),
            hooks: Hooks::default(),
            policy: ShellPolicy::unrestricted(),
            sandbox: Sandbox::default(),
            processes: Processes::default(),
        })
    }

    /// Sets the name shown in messages and events (default: the folder's
    /// name).
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Sets the path limits (see [`PathLimits`]).
    #[must_use]
    pub fn with_path_limits(mut self, limits: PathLimits) -> Self {
        self.path_limits = limits;
        self
    }

    /// The ignore rules as the native search's threads call them.
    /// Rules cached before the search are dropped first: the walk does
    /// not list directories through the provider, which is where changed
    /// ignore files are noticed.
    fn ignore_check(&self) -> search::IgnoreCheck {
        self.ignores.clear();
        let ignores = self.ignores.clone();
        let dir = self.dir.clone();
        Arc::new(move |path: &str, is_dir: bool| ignores.is_ignored(&dir, path, is_dir))
    }

    /// Whether git's global excludes file (`core.excludesFile`, or
    /// `$XDG_CONFIG_HOME/git/ignore`) applies on top of the tree's own
    /// ignore files (default true, as for git and ripgrep). Turn it off
    /// for results that do not depend on the host user's configuration.
    #[must_use]
    pub fn with_global_git_excludes(mut self, enabled: bool) -> Self {
        self.ignores = Arc::new(IgnoreRules::new(enabled));
        self
    }

    /// Sets the hooks that interrupt file operations in tests.
    #[cfg(test)]
    fn with_hooks(mut self, hooks: Hooks) -> Self {
        self.hooks = hooks;
        self
    }

    /// Normalizes a path under this provider's limits.
    fn normalize(&self, path: &str) -> Result<String, EnvironmentError> {
        super::normalize_path_with(path, &self.path_limits)
    }

    /// The root folder, canonical.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }
}

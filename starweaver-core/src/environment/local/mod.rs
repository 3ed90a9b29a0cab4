//! A real directory as an environment: files through a confined handle
//! on the root, ignore rules from the tree, native ripgrep-style search,
//! and commands in their own process groups.

mod process;
mod provider;
mod search;
mod shell;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cap_std::ambient_authority;
use cap_std::fs::Dir;

use super::{EnvironmentError, PathLimits, ShellPolicy};
use process::Processes;

/// An environment over a folder on the local disk. Paths are
/// root-relative as for every provider; nothing outside the root is read,
/// written, listed or run in.
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
    policy: ShellPolicy,
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
            policy: ShellPolicy::unrestricted(),
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
    fn ignore_check(&self) -> search::IgnoreCheck {
        std::sync::Arc::new(|_: &str, _: bool| false)
    }

    /// The root folder, canonical.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }
}

//! Where a command runs: a directory inside the root, checked through the
//! confined root handle (which refuses `..` and symbolic links leading
//! out), then named by its host path for the process.

use std::io::ErrorKind;
use std::path::PathBuf;

use crate::environment::local::LocalEnvironmentProvider;
use crate::environment::{normalize_path_with, CommandOptions, EnvironmentError};

impl LocalEnvironmentProvider {
    /// The host directory `options.working_directory` names (the root by
    /// default).
    ///
    /// The check and the start are two steps: a directory replaced by a
    /// symbolic link in between is followed by the process. Code that can
    /// rewrite the tree while commands start needs an external sandbox
    /// anyway (it can run commands).
    ///
    /// # Errors
    /// The path errors of [`normalize_path_with`];
    /// [`EnvironmentError::NotFound`], [`EnvironmentError::NotADirectory`],
    /// [`EnvironmentError::AccessDenied`] when it leads out of the root or
    /// the host refuses it.
    pub(in crate::environment::local) fn command_directory(
        &self,
        options: &CommandOptions,
    ) -> Result<PathBuf, EnvironmentError> {
        let given = options.working_directory.as_deref().unwrap_or("");
        let relative = normalize_path_with(given, &self.path_limits)?;
        let opened = if relative.is_empty() {
            "."
        } else {
            relative.as_str()
        };
        match self.dir.open_dir(opened) {
            Ok(_) if relative.is_empty() => Ok(self.root.clone()),
            Ok(_) => Ok(self.root.join(&relative)),
            Err(source) => Err(match source.kind() {
                ErrorKind::NotFound => EnvironmentError::NotFound { path: relative },
                ErrorKind::NotADirectory => EnvironmentError::NotADirectory { path: relative },
                ErrorKind::PermissionDenied => EnvironmentError::AccessDenied {
                    path: relative,
                    reason: format!(
                        "it cannot be a working directory: it resolves outside the environment \
                         root through a symbolic link, or the host's permissions refuse it \
                         ({source})"
                    ),
                },
                _ => EnvironmentError::Io {
                    path: relative,
                    source,
                },
            }),
        }
    }
}

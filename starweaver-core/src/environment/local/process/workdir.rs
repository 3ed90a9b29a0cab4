//! Where a command runs: a directory inside the root, opened through the
//! confined root handle (which refuses `..` and symbolic links leading
//! out); the process enters that open handle, not the path.

use std::io::ErrorKind;

use super::spawn::CommandDirectory;
use crate::environment::local::LocalEnvironmentProvider;
use crate::environment::{normalize_path_with, CommandOptions, EnvironmentError};

impl LocalEnvironmentProvider {
    /// The directory `options.working_directory` names (the root by
    /// default), opened: a directory replaced by a symbolic link after
    /// this is not followed, because the process enters the handle.
    ///
    /// # Errors
    /// The path errors of [`normalize_path_with`];
    /// [`EnvironmentError::NotFound`], [`EnvironmentError::NotADirectory`],
    /// [`EnvironmentError::AccessDenied`] when it leads out of the root or
    /// the host refuses it.
    pub(in crate::environment::local) fn command_directory(
        &self,
        options: &CommandOptions,
    ) -> Result<CommandDirectory, EnvironmentError> {
        let given = options.working_directory.as_deref().unwrap_or("");
        let relative = normalize_path_with(given, &self.path_limits)?;
        let opened = if relative.is_empty() {
            "."
        } else {
            relative.as_str()
        };
        match self.dir.open_dir(opened) {
            Ok(handle) => Ok(CommandDirectory {
                handle,
                path: if relative.is_empty() {
                    self.root.clone()
                } else {
                    self.root.join(&relative)
                },
            }),
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

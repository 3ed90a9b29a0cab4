//! The provider trait: one path space, many backends.

use std::fmt;
use std::sync::Arc;

use super::{
    normalize_path_with, EnvironmentEntry, EnvironmentError, GlobOptions, GlobReport, GrepOptions,
    GrepReport, PathLimits, ProcessOutput, ProgramCommand, SearchError, ShellCommand,
};
use crate::bounds::echo;
use crate::BoxFuture;

/// A shared, type-erased environment provider.
pub type DynEnvironment = Arc<dyn EnvironmentProvider>;

/// Where tools read, write and search files: an in-memory tree
/// ([`super::VirtualEnvironmentProvider`]), a local directory, or a
/// sandbox. Paths are root-relative and `/`-separated (see
/// [`super::normalize_path`]); a provider never lets a path leave its
/// root.
///
/// The trait is dyn-compatible: async methods return boxed futures, so
/// tools hold a [`DynEnvironment`] and work against any backend.
pub trait EnvironmentProvider: Send + Sync + fmt::Debug {
    /// A short name for messages and events (`"docs"`, `"workspace"`).
    fn name(&self) -> &str;

    /// The backend kind (`"virtual"`, `"local"`, ...).
    fn kind(&self) -> &'static str;

    /// How long and deep a path this provider accepts; paths over them
    /// are [`EnvironmentError::InvalidPath`]. Walks and searches
    /// normalize their roots with these, so a provider with raised
    /// limits can be searched at its full depth.
    fn path_limits(&self) -> PathLimits {
        PathLimits::default()
    }

    /// Reads a file's bytes.
    fn read_bytes<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<Vec<u8>, EnvironmentError>>;

    /// Reads a file's bytes, but never more than `max_bytes + 1` of them:
    /// a caller with a size limit learns that a file exceeds it without
    /// loading a file of any size (a link's `stat` says nothing of its
    /// target's size). The default reads the whole file, for providers
    /// whose files are already in memory.
    fn read_bytes_up_to<'a>(
        &'a self,
        path: &'a str,
        max_bytes: u64,
    ) -> BoxFuture<'a, Result<Vec<u8>, EnvironmentError>> {
        let _ = max_bytes;
        self.read_bytes(path)
    }

    /// Reads a text file: valid UTF-8 with no NUL byte (anything else is
    /// [`EnvironmentError::NotText`], the rule every text reader shares).
    fn read_text<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<String, EnvironmentError>> {
        Box::pin(async move {
            let bytes = self.read_bytes(path).await?;
            super::into_text(bytes).ok_or_else(|| EnvironmentError::NotText {
                path: normalize_path_with(path, &self.path_limits())
                    .unwrap_or_else(|_| echo(path).into_owned()),
            })
        })
    }

    /// Writes a file, creating missing parent directories and replacing
    /// any previous content.
    fn write_bytes<'a>(
        &'a self,
        path: &'a str,
        content: &'a [u8],
    ) -> BoxFuture<'a, Result<(), EnvironmentError>>;

    /// Writes a UTF-8 text file (see [`Self::write_bytes`]).
    fn write_text<'a>(
        &'a self,
        path: &'a str,
        content: &'a str,
    ) -> BoxFuture<'a, Result<(), EnvironmentError>> {
        self.write_bytes(path, content.as_bytes())
    }

    /// The entry at a path.
    fn stat<'a>(
        &'a self,
        path: &'a str,
    ) -> BoxFuture<'a, Result<EnvironmentEntry, EnvironmentError>>;

    /// The direct children of a directory, sorted by name.
    fn list_dir<'a>(
        &'a self,
        path: &'a str,
    ) -> BoxFuture<'a, Result<Vec<EnvironmentEntry>, EnvironmentError>>;

    /// Creates a directory and its missing parents.
    fn create_dir_all<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<(), EnvironmentError>>;

    /// Removes a file, or an empty directory.
    fn remove<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<(), EnvironmentError>>;

    /// True when the provider's own ignore rules (for a local tree,
    /// `.gitignore` and friends) exclude this root-relative path from
    /// walks and searches. Direct reads are not affected.
    fn is_ignored(&self, _path: &str, _is_dir: bool) -> bool {
        false
    }

    /// True when something exists at the path.
    fn exists<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<bool, EnvironmentError>> {
        Box::pin(async move {
            match self.stat(path).await {
                Ok(_) => Ok(true),
                Err(EnvironmentError::NotFound { .. }) => Ok(false),
                Err(error) => Err(error),
            }
        })
    }

    /// Runs a shell script in the foreground and returns its bounded
    /// output. Providers that cannot run commands return
    /// [`EnvironmentError::Unsupported`] (the default); those that can
    /// apply their [`super::ShellPolicy`] first.
    fn run_shell<'a>(
        &'a self,
        command: &'a ShellCommand,
    ) -> BoxFuture<'a, Result<ProcessOutput, EnvironmentError>> {
        let _ = command;
        Box::pin(async move { Err(self.unsupported("running shell commands")) })
    }

    /// Runs a program directly, without a shell, every argument literal.
    /// A provider that cannot must return
    /// [`EnvironmentError::Unsupported`] (the default), never run the
    /// program through a shell instead.
    fn run_program<'a>(
        &'a self,
        command: &'a ProgramCommand,
    ) -> BoxFuture<'a, Result<ProcessOutput, EnvironmentError>> {
        let _ = command;
        Box::pin(async move { Err(self.unsupported("running programs")) })
    }

    /// A provider's own [`super::glob`], for backends that search faster
    /// than `list_dir` walks (the local provider uses ripgrep's walker).
    /// It must keep the generic search's semantics. `None` (the default)
    /// uses the generic search.
    fn native_glob<'a>(
        &'a self,
        pattern: &'a str,
        options: &'a GlobOptions,
    ) -> Option<BoxFuture<'a, Result<GlobReport, SearchError>>> {
        let _ = (pattern, options);
        None
    }

    /// A provider's own [`super::grep`], as [`Self::native_glob`].
    fn native_grep<'a>(
        &'a self,
        pattern: &'a str,
        options: &'a GrepOptions,
    ) -> Option<BoxFuture<'a, Result<GrepReport, SearchError>>> {
        let _ = (pattern, options);
        None
    }

    /// [`EnvironmentError::Unsupported`] for `operation` on this
    /// provider.
    fn unsupported(&self, operation: &str) -> EnvironmentError {
        EnvironmentError::Unsupported {
            environment: self.name().to_string(),
            operation: operation.to_string(),
        }
    }
}

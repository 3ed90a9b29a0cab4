//! [`super::LocalEnvironmentProvider`] as an `EnvironmentProvider`: file
//! operations over the confined root handle (`files.rs`, `atomic.rs`),
//! ignore rules (`ignore_rules.rs`), commands and native search.

use super::LocalEnvironmentProvider;
use crate::environment::{
    EnvironmentEntry, EnvironmentError, EnvironmentProvider, GlobOptions, GlobReport, GrepOptions,
    GrepReport, PathLimits, ProcessOutput, ProgramCommand, SearchError, ShellCommand,
};
use crate::BoxFuture;

impl EnvironmentProvider for LocalEnvironmentProvider {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> &'static str {
        "local"
    }

    fn path_limits(&self) -> PathLimits {
        self.path_limits
    }

    fn read_bytes<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<Vec<u8>, EnvironmentError>> {
        Box::pin(self.read_file(path, None))
    }

    fn read_bytes_up_to<'a>(
        &'a self,
        path: &'a str,
        max_bytes: u64,
    ) -> BoxFuture<'a, Result<Vec<u8>, EnvironmentError>> {
        Box::pin(self.read_file(path, Some(max_bytes.saturating_add(1))))
    }

    fn write_bytes<'a>(
        &'a self,
        path: &'a str,
        content: &'a [u8],
    ) -> BoxFuture<'a, Result<(), EnvironmentError>> {
        Box::pin(self.write_file(path, content))
    }

    fn stat<'a>(
        &'a self,
        path: &'a str,
    ) -> BoxFuture<'a, Result<EnvironmentEntry, EnvironmentError>> {
        Box::pin(self.stat_entry(path))
    }

    fn list_dir<'a>(
        &'a self,
        path: &'a str,
    ) -> BoxFuture<'a, Result<Vec<EnvironmentEntry>, EnvironmentError>> {
        Box::pin(self.list_entries(path))
    }

    fn create_dir_all<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<(), EnvironmentError>> {
        Box::pin(self.create_dirs(path))
    }

    fn remove<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<(), EnvironmentError>> {
        Box::pin(self.remove_entry(path))
    }

    /// `.gitignore`, `.ignore`, the root's `.git/info/exclude` and git's
    /// global excludes, read through the confined root and cached per
    /// directory. The ignore files are read here, on the caller's thread
    /// (each at most 1 MiB, once per directory).
    fn is_ignored(&self, path: &str, is_dir: bool) -> bool {
        match self.normalize(path) {
            Ok(path) => self.ignores.is_ignored(&self.dir, &path, is_dir),
            Err(_) => false,
        }
    }

    fn run_shell<'a>(
        &'a self,
        command: &'a ShellCommand,
    ) -> BoxFuture<'a, Result<ProcessOutput, EnvironmentError>> {
        Box::pin(self.run_command(command.clone().into()))
    }

    fn run_program<'a>(
        &'a self,
        command: &'a ProgramCommand,
    ) -> BoxFuture<'a, Result<ProcessOutput, EnvironmentError>> {
        Box::pin(self.run_command(command.clone().into()))
    }

    fn native_glob<'a>(
        &'a self,
        pattern: &'a str,
        options: &'a GlobOptions,
    ) -> Option<BoxFuture<'a, Result<GlobReport, SearchError>>> {
        Some(Box::pin(self.search_glob(pattern, options)))
    }

    fn native_grep<'a>(
        &'a self,
        pattern: &'a str,
        options: &'a GrepOptions,
    ) -> Option<BoxFuture<'a, Result<GrepReport, SearchError>>> {
        Some(Box::pin(self.search_grep(pattern, options)))
    }
}

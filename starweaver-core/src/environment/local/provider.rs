//! The filesystem half of [`super::LocalEnvironmentProvider`]: the
//! `EnvironmentProvider` operations over the confined root handle.

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
        Box::pin(async move { Err(self.unsupported(&format!("reading {path}"))) })
    }

    fn write_bytes<'a>(
        &'a self,
        path: &'a str,
        content: &'a [u8],
    ) -> BoxFuture<'a, Result<(), EnvironmentError>> {
        let _ = content;
        Box::pin(async move { Err(self.unsupported(&format!("writing {path}"))) })
    }

    fn stat<'a>(
        &'a self,
        path: &'a str,
    ) -> BoxFuture<'a, Result<EnvironmentEntry, EnvironmentError>> {
        Box::pin(async move { Err(self.unsupported(&format!("stat {path}"))) })
    }

    fn list_dir<'a>(
        &'a self,
        path: &'a str,
    ) -> BoxFuture<'a, Result<Vec<EnvironmentEntry>, EnvironmentError>> {
        Box::pin(async move { Err(self.unsupported(&format!("listing {path}"))) })
    }

    fn create_dir_all<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<(), EnvironmentError>> {
        Box::pin(async move { Err(self.unsupported(&format!("creating {path}"))) })
    }

    fn remove<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<(), EnvironmentError>> {
        Box::pin(async move { Err(self.unsupported(&format!("removing {path}"))) })
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

//! Background processes through [`ProcessShellProvider`]: the policy and
//! the working directory are checked as for foreground commands, then
//! the process runs under a handle.

use std::time::Duration;

use super::signal::host_signal;
use crate::environment::local::LocalEnvironmentProvider;
use crate::environment::{
    CommandRequest, EnvironmentError, ProcessShellProvider, ProcessSignal, ProcessSnapshot,
    ProgramCommand, ShellCommand,
};
use crate::BoxFuture;

/// Slack a kill allows beyond grace and drain before it answers with the
/// state so far.
const KILL_SLACK: Duration = Duration::from_secs(5);

impl LocalEnvironmentProvider {
    async fn start_background(
        &self,
        request: &CommandRequest,
    ) -> Result<ProcessSnapshot, EnvironmentError> {
        self.policy.check(request)?;
        let sandbox = self.sandbox.prepare(&self.dir)?;
        let directory = self.command_directory(request.options())?;
        self.processes.start(request, &directory, &sandbox).await
    }
}

impl ProcessShellProvider for LocalEnvironmentProvider {
    fn start_shell<'a>(
        &'a self,
        command: &'a ShellCommand,
    ) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>> {
        Box::pin(async move { self.start_background(&command.clone().into()).await })
    }

    fn start_program<'a>(
        &'a self,
        command: &'a ProgramCommand,
    ) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>> {
        Box::pin(async move { self.start_background(&command.clone().into()).await })
    }

    fn wait<'a>(
        &'a self,
        id: &'a str,
        timeout_ms: u64,
    ) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>> {
        Box::pin(async move {
            let entry = self.processes.registry.get(id)?;
            Ok(entry.wait(Duration::from_millis(timeout_ms)).await)
        })
    }

    fn status<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>> {
        Box::pin(async move { Ok(self.processes.registry.get(id)?.snapshot()) })
    }

    fn write_stdin<'a>(
        &'a self,
        id: &'a str,
        input: &'a [u8],
        close: bool,
    ) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>> {
        Box::pin(async move {
            let entry = self.processes.registry.get(id)?;
            entry.write_stdin(input, close).await?;
            Ok(entry.snapshot())
        })
    }

    fn signal<'a>(
        &'a self,
        id: &'a str,
        signal: ProcessSignal,
    ) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>> {
        Box::pin(async move {
            let entry = self.processes.registry.get(id)?;
            entry.signal(host_signal(signal))?;
            Ok(entry.snapshot())
        })
    }

    fn kill<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>> {
        Box::pin(async move {
            let entry = self.processes.registry.get(id)?;
            if entry.is_running() {
                entry.kill.notify_one();
            }
            let limits = &self.processes.limits;
            let patience = Duration::from_millis(limits.kill_grace_ms)
                .saturating_add(Duration::from_millis(limits.drain_timeout_ms))
                .saturating_add(KILL_SLACK);
            Ok(entry.wait(patience).await)
        })
    }

    fn list(&self) -> BoxFuture<'_, Result<Vec<ProcessSnapshot>, EnvironmentError>> {
        Box::pin(async move {
            Ok(self
                .processes
                .registry
                .list()
                .iter()
                .map(|entry| entry.snapshot())
                .collect())
        })
    }
}

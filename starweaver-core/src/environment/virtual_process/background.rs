//! Background processes on the in-memory provider: the
//! [`ProcessShellProvider`] side of the simulation.

use super::builtin::invocation;
use super::table::Table;
use crate::environment::{
    CommandRequest, EnvironmentError, EnvironmentProvider, ProcessShellProvider, ProcessSignal,
    ProcessSnapshot, ProgramCommand, ShellCommand, VirtualEnvironmentProvider,
};
use crate::BoxFuture;

impl VirtualEnvironmentProvider {
    /// Starts one command in the background under the provider's policy
    /// and process limit.
    async fn start_background(
        &self,
        request: CommandRequest,
    ) -> Result<ProcessSnapshot, EnvironmentError> {
        let processes = &self.processes;
        processes.policy.check(&request)?;
        let invocation = invocation(self.name(), &request)?;
        let options = request.options();
        let cwd = self.working_directory(options).await?;
        let start = self.start(invocation.as_ref(), &cwd, options).await;
        let limits = &processes.limits;
        processes.with_table(|table| {
            if table.running() >= limits.max_concurrent_processes {
                return Err(EnvironmentError::ProcessLimit {
                    limit: limits.max_concurrent_processes,
                });
            }
            let snapshot = table.insert(
                request.display(),
                start,
                options.timeout_ms,
                limits.max_output_bytes,
            );
            table.prune(limits.completed_process_retention);
            Ok(snapshot)
        })
    }

    /// Runs `operation` on the table, then drops completed processes
    /// past the retention bound.
    fn on_table<T>(&self, operation: impl FnOnce(&mut Table) -> T) -> T {
        let retention = self.processes.limits.completed_process_retention;
        self.processes.with_table(|table| {
            let result = operation(table);
            table.prune(retention);
            result
        })
    }
}

/// Simulated processes: handles are `proc-1`, `proc-2`, ... in start
/// order; time passes only in `wait` (and foreground sleeps), so a
/// background `sleep 1` runs until a wait of at least its remaining
/// second; `status` and `list` never move the clock.
impl ProcessShellProvider for VirtualEnvironmentProvider {
    fn start_shell<'a>(
        &'a self,
        command: &'a ShellCommand,
    ) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>> {
        Box::pin(self.start_background(command.clone().into()))
    }

    fn start_program<'a>(
        &'a self,
        command: &'a ProgramCommand,
    ) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>> {
        Box::pin(self.start_background(command.clone().into()))
    }

    fn wait<'a>(
        &'a self,
        id: &'a str,
        timeout_ms: u64,
    ) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>> {
        Box::pin(async move { self.on_table(|table| table.wait(id, timeout_ms)) })
    }

    fn status<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>> {
        Box::pin(async move { self.on_table(|table| table.status(id)) })
    }

    fn write_stdin<'a>(
        &'a self,
        id: &'a str,
        input: &'a [u8],
        close: bool,
    ) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>> {
        Box::pin(
            async move { self.on_table(|table| table.write_stdin(self.name(), id, input, close)) },
        )
    }

    fn signal<'a>(
        &'a self,
        id: &'a str,
        signal: ProcessSignal,
    ) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>> {
        Box::pin(async move { self.on_table(|table| table.signal(id, signal)) })
    }

    fn kill<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>> {
        Box::pin(async move { self.on_table(|table| table.kill(id)) })
    }

    fn list(&self) -> BoxFuture<'_, Result<Vec<ProcessSnapshot>, EnvironmentError>> {
        Box::pin(async move { Ok(self.on_table(|table| table.list())) })
    }
}

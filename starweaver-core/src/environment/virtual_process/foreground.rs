//! Foreground commands on the in-memory provider: run to their end at
//! once, on the virtual clock.

use super::builtin::invocation;
use super::plan::{Next, Start};
use super::signal::TERM;
use crate::environment::{
    CommandRequest, EnvironmentError, EnvironmentProvider, ProcessOutput, ProcessStatus,
    VirtualEnvironmentProvider,
};

impl VirtualEnvironmentProvider {
    /// Runs one command to its end, or to its time limit, under the
    /// provider's policy. A `sleep` moves the virtual clock (background
    /// processes see the time pass) instead of sleeping.
    pub(crate) async fn run_virtual(
        &self,
        request: CommandRequest,
    ) -> Result<ProcessOutput, EnvironmentError> {
        let processes = &self.processes;
        processes.policy.check(&request)?;
        let invocation = invocation(self.name(), &request)?;
        let options = request.options();
        let cwd = self.working_directory(options).await?;
        let start = self.start(invocation.as_ref(), &cwd, options).await;
        let timeout_ms = options
            .timeout_ms
            .unwrap_or(processes.limits.default_timeout_ms);
        let limits = &processes.limits;
        processes.with_table(|table| {
            if table.running() >= limits.max_concurrent_processes {
                return Err(EnvironmentError::ProcessLimit {
                    limit: limits.max_concurrent_processes,
                });
            }
            let output = finish(start, timeout_ms);
            table.advance(output.duration_ms);
            table.prune(limits.completed_process_retention);
            Ok(output)
        })
    }
}

/// The result of a started command run in the foreground: a reader
/// reads its given input and ends; a sleep past the time limit is
/// stopped at the limit.
fn finish(start: Start, timeout_ms: u64) -> ProcessOutput {
    let (status, exit_code, signal, duration_ms) = match start.next {
        Next::Exit(code) => (ProcessStatus::Exited, Some(code), None, 0),
        Next::ReadInput => (ProcessStatus::Exited, Some(0), None, 0),
        Next::Sleep(ms) if ms <= timeout_ms => (ProcessStatus::Exited, Some(0), None, ms),
        Next::Sleep(_) => (ProcessStatus::TimedOut, None, Some(TERM), timeout_ms),
    };
    ProcessOutput {
        sandbox: None,
        status,
        exit_code,
        signal,
        stdout: start.stdout.capture(),
        stderr: start.stderr.capture(),
        duration_ms,
    }
}

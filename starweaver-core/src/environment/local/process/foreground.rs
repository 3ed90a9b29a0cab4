//! Foreground commands: run to their end, their time limit, or the
//! cancellation of the call, holding one permit of the shared allowance
//! throughout.

use std::sync::Arc;
use std::time::Duration;

use super::lifecycle::{drain_streams, output, run_to_end, Stops};
use super::spawn::{spawn, CommandDirectory, Launch, Spawned};
use super::stdin::feed;
use super::task::TaskGuard;
use super::Processes;
use crate::environment::local::sandbox::Prepared;
use crate::environment::{CommandRequest, EnvironmentError, ProcessOutput};

impl Processes {
    /// Runs `request` in `directory` (opened inside the root) under
    /// `sandbox` and returns how it ended. The call queues for a permit for
    /// up to the command's time limit; the process then gets its full
    /// time limit. Dropping the future kills the process group.
    pub(in crate::environment::local) async fn run(
        &self,
        request: &CommandRequest,
        directory: &CommandDirectory,
        sandbox: &Arc<Prepared>,
    ) -> Result<ProcessOutput, EnvironmentError> {
        let limits = &self.limits;
        let options = request.options();
        let timeout =
            Duration::from_millis(options.timeout_ms.unwrap_or(limits.default_timeout_ms));
        let permit = self.permits.queue(timeout).await?;
        let launch = Launch {
            directory,
            sandbox,
            limits,
            fixed_env: &self.fixed_env,
            piped_stdin: options.stdin.is_some(),
        };
        let Spawned {
            mut child,
            mut group,
            stdin,
            stdout,
            stderr,
            started,
        } = spawn(request, &launch).await?;
        let writer = stdin
            .zip(options.stdin.clone())
            .map(|(pipe, input)| TaskGuard::spawn(feed(pipe, input)));
        let stops = Stops {
            timeout: Some(timeout),
            kill: None,
            grace: Duration::from_millis(limits.kill_grace_ms),
        };
        let ending = run_to_end(&mut child, &mut group, stops).await;
        drop(writer);
        let drain = Duration::from_millis(limits.drain_timeout_ms);
        let (stdout, stderr) = drain_streams(stdout, stderr, drain).await;
        drop(permit);
        let mut output = output(&ending, started, stdout, stderr);
        output.sandbox = Some(sandbox.report().clone());
        Ok(output)
    }
}

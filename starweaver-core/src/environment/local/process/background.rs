//! Background processes: started with a free permit or refused at once,
//! then supervised by a task of their own until they end, time out (only
//! when the command names a time limit) or are killed.

use std::sync::{Arc, Weak};
use std::time::Duration;

use super::entry::{Entry, EntryStart};
use super::lifecycle::{drain_streams, output, run_to_end, Stops};
use super::permits::Permit;
use super::registry::Registry;
use super::spawn::{spawn, CommandDirectory, Launch, Spawned};
use super::task::TaskGuard;
use super::Processes;
use crate::environment::local::sandbox::Prepared;
use crate::environment::{CommandRequest, EnvironmentError, ProcessSnapshot};

/// How a supervisor stops and drains its process.
#[derive(Clone, Copy, Debug)]
struct Timing {
    timeout: Option<Duration>,
    grace: Duration,
    drain: Duration,
}

impl Processes {
    /// Starts `request` in `directory` (already checked to be inside the
    /// root) and returns its first snapshot.
    ///
    /// # Errors
    /// [`EnvironmentError::ProcessLimit`] when no permit is free,
    /// [`EnvironmentError::Spawn`] when it cannot start.
    pub(super) async fn start(
        &self,
        request: &CommandRequest,
        directory: &CommandDirectory,
        sandbox: &Arc<Prepared>,
    ) -> Result<ProcessSnapshot, EnvironmentError> {
        let limits = &self.limits;
        let options = request.options();
        let permit = self.permits.take_now()?;
        let launch = Launch {
            directory,
            sandbox,
            limits,
            fixed_env: &self.fixed_env,
            piped_stdin: true,
        };
        let Spawned {
            child,
            group,
            stdin,
            stdout,
            stderr,
            started,
        } = spawn(request, &launch).await?;
        let (seq, id) = self.registry.issue();
        let entry = Arc::new(Entry::new(EntryStart {
            seq,
            id,
            command: request.display(),
            started,
            pgid: group.id(),
            tag: group.tag(),
            streams: (stdout.view(), stderr.view()),
            stdin,
            sandbox: sandbox.report().clone(),
        }));
        // Taken before the entry is shared, so every later write comes
        // after this input.
        let writer = options
            .stdin
            .clone()
            .filter(|input| !input.is_empty())
            .and_then(|input| entry.feed_initial(input));
        self.registry.insert(Arc::clone(&entry));
        let timing = Timing {
            timeout: options.timeout_ms.map(Duration::from_millis),
            grace: Duration::from_millis(limits.kill_grace_ms),
            drain: Duration::from_millis(limits.drain_timeout_ms),
        };
        let snapshot = entry.snapshot();
        let running = Running {
            child,
            group,
            stdout,
            stderr,
            started,
            writer,
            permit,
        };
        tokio::spawn(supervise(
            entry,
            running,
            timing,
            Arc::downgrade(&self.registry),
        ));
        Ok(snapshot)
    }
}

/// What the supervisor owns: dropping it (the runtime shutting down)
/// kills the group.
#[derive(Debug)]
struct Running {
    child: tokio::process::Child,
    group: super::group::ProcessGroup,
    stdout: super::capture::Capture,
    stderr: super::capture::Capture,
    started: tokio::time::Instant,
    writer: Option<TaskGuard<()>>,
    permit: Permit,
}

async fn supervise(entry: Arc<Entry>, running: Running, timing: Timing, registry: Weak<Registry>) {
    let Running {
        mut child,
        mut group,
        stdout,
        stderr,
        started,
        writer,
        permit,
    } = running;
    let stops = Stops {
        timeout: timing.timeout,
        kill: Some(&entry.kill),
        grace: timing.grace,
    };
    let ending = run_to_end(&mut child, &mut group, stops).await;
    entry.group_cleared();
    drop(writer);
    entry.try_close_stdin();
    let (stdout, stderr) = drain_streams(stdout, stderr, timing.drain).await;
    drop(permit);
    if let Some(registry) = registry.upgrade() {
        registry.completed(entry.seq);
    }
    entry.finish(output(&ending, started, stdout, stderr));
    entry.close_stdin().await;
}

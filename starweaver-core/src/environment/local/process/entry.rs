//! One background process as the registry holds it: output so far, the
//! open input pipe, the kill request, and the final result once it ended.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use nix::sys::signal::Signal;
use tokio::io::AsyncWriteExt;
use tokio::process::ChildStdin;
use tokio::sync::{watch, Mutex, Notify};
use tokio::time::Instant;

use super::capture::CaptureView;
use super::escapees::Tag;
use super::group;
use super::lifecycle::millis;
use super::stdin;
use super::task::TaskGuard;
use crate::environment::{
    EnvironmentError, ProcessOutput, ProcessSnapshot, ProcessStatus, SandboxReport,
};

/// A background process.
#[derive(Debug)]
pub(super) struct Entry {
    /// Position in start order.
    pub(super) seq: u64,
    /// The handle given out.
    pub(super) id: String,
    command: String,
    started: Instant,
    pgid: i32,
    /// The tag of its processes, for a sweep when the provider goes away.
    tag: Option<Arc<Tag>>,
    /// True until the leader ended and its group was cleared: only then
    /// may the group id be signalled.
    group_live: AtomicBool,
    stdout: CaptureView,
    stderr: CaptureView,
    sandbox: SandboxReport,
    /// The open input pipe; a write holds the lock while it writes.
    stdin: Arc<Mutex<Option<ChildStdin>>>,
    /// Wakes the supervisor to stop the group.
    pub(super) kill: Notify,
    ended: watch::Sender<Option<ProcessOutput>>,
}

/// What a new entry starts from.
#[derive(Debug)]
pub(super) struct EntryStart {
    /// Position in start order.
    pub(super) seq: u64,
    /// The handle.
    pub(super) id: String,
    /// The command, shortened.
    pub(super) command: String,
    /// When it started.
    pub(super) started: Instant,
    /// Its process group.
    pub(super) pgid: i32,
    /// The tag of its processes.
    pub(super) tag: Option<Arc<Tag>>,
    /// Its output views.
    pub(super) streams: (CaptureView, CaptureView),
    /// Its input pipe, when kept open.
    pub(super) stdin: Option<ChildStdin>,
    /// The sandbox it runs under.
    pub(super) sandbox: SandboxReport,
}

impl Entry {
    /// A running process.
    pub(super) fn new(start: EntryStart) -> Self {
        Self {
            seq: start.seq,
            id: start.id,
            command: start.command,
            started: start.started,
            pgid: start.pgid,
            tag: start.tag,
            group_live: AtomicBool::new(true),
            stdout: start.streams.0,
            stderr: start.streams.1,
            sandbox: start.sandbox,
            stdin: Arc::new(Mutex::new(start.stdin)),
            kill: Notify::new(),
            ended: watch::Sender::new(None),
        }
    }

    /// True until the final result is in.
    pub(super) fn is_running(&self) -> bool {
        self.ended.borrow().is_none()
    }

    /// State and output so far.
    pub(super) fn snapshot(&self) -> ProcessSnapshot {
        let output = self
            .ended
            .borrow()
            .clone()
            .unwrap_or_else(|| ProcessOutput {
                status: ProcessStatus::Running,
                exit_code: None,
                signal: None,
                stdout: self.stdout.snapshot(),
                stderr: self.stderr.snapshot(),
                duration_ms: millis(self.started.elapsed()),
                sandbox: None,
            });
        let output = ProcessOutput {
            sandbox: Some(self.sandbox.clone()),
            ..output
        };
        ProcessSnapshot {
            id: self.id.clone(),
            command: self.command.clone(),
            output,
        }
    }

    /// The snapshot once the process ended, or after `timeout`, whichever
    /// comes first.
    pub(super) async fn wait(&self, timeout: Duration) -> ProcessSnapshot {
        let mut ended = self.ended.subscribe();
        let _ = tokio::time::timeout(timeout, async {
            let _ = ended.wait_for(Option::is_some).await;
        })
        .await;
        self.snapshot()
    }

    /// Ends everything it started now, blocking (bounded): the provider
    /// is going away, and its supervisor may never run again.
    pub(super) fn kill_now(&self) {
        if self.signal(Signal::SIGKILL).is_err() || !self.group_live.load(Ordering::SeqCst) {
            return;
        }
        if let Some(tag) = &self.tag {
            group::kill_escapees_now(tag, self.pgid);
        }
    }

    /// Records that the leader ended and its group was cleared.
    pub(super) fn group_cleared(&self) {
        self.group_live.store(false, Ordering::SeqCst);
    }

    /// Publishes the final result.
    pub(super) fn finish(&self, output: ProcessOutput) {
        self.ended.send_replace(Some(output));
    }

    /// Sends `signal` to the group while it is live (after, there is
    /// nothing to signal).
    pub(super) fn signal(&self, signal: Signal) -> Result<(), EnvironmentError> {
        if !self.group_live.load(Ordering::SeqCst) {
            return Ok(());
        }
        group::send(self.pgid, signal).map_err(|errno| EnvironmentError::Io {
            path: format!("process {}", self.id),
            source: io::Error::from(errno),
        })
    }

    /// Starts writing the command's own input, holding the pipe until
    /// it is written, so later writes come after it and the pipe stays
    /// open for them. The process may read it as slowly as it likes: the
    /// task ends with the process (its guard is dropped then).
    pub(super) fn feed_initial(&self, input: Vec<u8>) -> Option<TaskGuard<()>> {
        let mut pipe = Arc::clone(&self.stdin).try_lock_owned().ok()?;
        Some(TaskGuard::spawn(async move {
            if let Some(open) = pipe.as_mut() {
                let written = async {
                    open.write_all(&input).await?;
                    open.flush().await
                };
                if written.await.is_err() {
                    *pipe = None;
                }
            }
        }))
    }

    /// Writes to the open input pipe; `close` closes it after. Waits up
    /// to [`stdin::WRITE_TIMEOUT`] for an earlier write to finish.
    pub(super) async fn write_stdin(
        &self,
        input: &[u8],
        close: bool,
    ) -> Result<(), EnvironmentError> {
        let Ok(mut pipe) = tokio::time::timeout(stdin::WRITE_TIMEOUT, self.stdin.lock()).await
        else {
            return Err(self.input_error(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "an earlier write to it did not finish within {} s (the process is not \
                     reading its input); try again later, or stop it with shell_kill",
                    stdin::WRITE_TIMEOUT.as_secs()
                ),
            )));
        };
        let Some(open) = pipe.as_mut() else {
            return Err(self.input_error(io::Error::new(
                io::ErrorKind::BrokenPipe,
                self.closed_reason(),
            )));
        };
        let written = if input.is_empty() {
            Ok(())
        } else {
            stdin::write(open, input).await
        };
        let broken = matches!(&written, Err(error) if error.kind() == io::ErrorKind::BrokenPipe);
        if close || broken {
            *pipe = None;
        }
        written.map_err(|error| self.input_error(error))
    }

    /// Closes the input pipe, if still open (the process ended).
    pub(super) async fn close_stdin(&self) {
        self.stdin.lock().await.take();
    }

    /// Closes the input pipe now unless a write holds it.
    pub(super) fn try_close_stdin(&self) {
        if let Ok(mut pipe) = self.stdin.try_lock() {
            pipe.take();
        }
    }

    fn closed_reason(&self) -> String {
        if self.is_running() {
            "its standard input is closed (an earlier write closed it, or writing to it \
             failed); start it again to send more"
                .to_string()
        } else {
            "it has ended, so its standard input is closed".to_string()
        }
    }

    fn input_error(&self, source: io::Error) -> EnvironmentError {
        EnvironmentError::Io {
            path: format!("standard input of process {}", self.id),
            source,
        }
    }
}

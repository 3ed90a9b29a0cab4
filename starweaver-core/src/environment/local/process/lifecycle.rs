//! How a started command ends, for foreground and background alike: its
//! leader exits (then anything it left in its group is stopped), its time
//! limit passes, or a kill is asked for (both stop the group: TERM, grace,
//! KILL). Then both streams get the drain timeout to reach their end.

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::time::Duration;

use tokio::process::Child;
use tokio::sync::Notify;
use tokio::time::Instant;

use super::capture::Capture;
use super::group::ProcessGroup;
use super::task::deadline_after;
use crate::environment::{ProcessOutput, ProcessStatus, StreamCapture};

/// How a command ended.
#[derive(Debug)]
pub(super) struct Ending {
    /// Exited, timed out or killed.
    pub(super) status: ProcessStatus,
    /// The leader's exit status, when it could be collected.
    pub(super) exit: Option<ExitStatus>,
    /// When the leader ended and its group was cleared.
    pub(super) at: Instant,
}

/// What ends a command besides its own exit.
#[derive(Debug, Default)]
pub(super) struct Stops<'a> {
    /// Its time limit, if any.
    pub(super) timeout: Option<Duration>,
    /// A kill request, if it can get one.
    pub(super) kill: Option<&'a Notify>,
    /// TERM-to-KILL grace.
    pub(super) grace: Duration,
}

/// Runs the command to its end. The group is always left empty (or sent
/// `SIGKILL`) when this returns.
pub(super) async fn run_to_end(
    child: &mut Child,
    group: &mut ProcessGroup,
    stops: Stops<'_>,
) -> Ending {
    let timed_out = async {
        match stops.timeout {
            Some(limit) => tokio::time::sleep_until(deadline_after(limit)).await,
            None => std::future::pending().await,
        }
    };
    let killed = async {
        match stops.kill {
            Some(kill) => kill.notified().await,
            None => std::future::pending().await,
        }
    };
    let reason = tokio::select! {
        exit = child.wait() => Reason::Exited(exit.ok()),
        () = timed_out => Reason::TimedOut,
        () = killed => Reason::Killed,
    };
    let (status, exit) = match reason {
        Reason::Exited(exit) => {
            group.clear_leftovers(stops.grace).await;
            (ProcessStatus::Exited, exit)
        }
        Reason::TimedOut => (
            ProcessStatus::TimedOut,
            group.terminate(child, stops.grace).await,
        ),
        Reason::Killed => (
            ProcessStatus::Killed,
            group.terminate(child, stops.grace).await,
        ),
    };
    Ending {
        status,
        exit,
        at: Instant::now(),
    }
}

/// Why the wait for the end stopped.
enum Reason {
    Exited(Option<ExitStatus>),
    TimedOut,
    Killed,
}

/// Both streams, each given until `drain` after the end to reach EOF.
pub(super) async fn drain_streams(
    stdout: Capture,
    stderr: Capture,
    drain: Duration,
) -> (StreamCapture, StreamCapture) {
    let deadline = deadline_after(drain);
    tokio::join!(stdout.finish(deadline), stderr.finish(deadline))
}

/// The result of an ended command.
pub(super) fn output(
    ending: &Ending,
    started: Instant,
    stdout: StreamCapture,
    stderr: StreamCapture,
) -> ProcessOutput {
    ProcessOutput {
        status: ending.status,
        exit_code: ending.exit.and_then(|exit| exit.code()),
        signal: ending.exit.and_then(|exit| exit.signal()),
        stdout,
        stderr,
        duration_ms: millis(ending.at.saturating_duration_since(started)),
        sandbox: None,
    }
}

/// Whole milliseconds, saturating.
pub(super) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

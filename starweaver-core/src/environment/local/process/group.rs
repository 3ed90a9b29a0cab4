//! A command's process group: every invocation leads a group of its own,
//! so a timeout, a kill or a cancelled call reaches everything it started
//! that stayed in the group.

use std::process::ExitStatus;
use std::time::Duration;

use nix::errno::Errno;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::process::Child;
use tokio::time::Instant;

use super::task::deadline_after;

/// How often a stopping group is checked for members still alive.
const POLL: Duration = Duration::from_millis(10);

/// The group a spawned command leads. Until the group is known to be
/// gone (or has been sent `SIGKILL`), dropping this sends `SIGKILL` to
/// it: a call cancelled midway leaves nothing behind.
#[derive(Debug)]
pub(super) struct ProcessGroup {
    pgid: Pid,
    armed: bool,
}

impl ProcessGroup {
    /// The group led by the process `pid` (spawned with
    /// `process_group(0)`, so its group id is its pid).
    pub(super) fn led_by(pid: u32) -> Option<Self> {
        let pgid = i32::try_from(pid).ok().filter(|pid| *pid > 1)?;
        Some(Self {
            pgid: Pid::from_raw(pgid),
            armed: true,
        })
    }

    /// The group id (the leader's pid).
    pub(super) fn id(&self) -> i32 {
        self.pgid.as_raw()
    }

    /// Whether any process is still in the group (a member that is a
    /// zombie not yet reaped counts).
    pub(super) fn is_alive(&self) -> bool {
        is_alive(self.pgid.as_raw())
    }

    /// Stops a group whose leader has not been reaped: `SIGTERM` (and
    /// `SIGCONT`, so stopped members see it) to the group, up to `grace`
    /// for the leader and the rest to go, then `SIGKILL` to the group.
    /// Returns the leader's exit status.
    pub(super) async fn terminate(
        &mut self,
        child: &mut Child,
        grace: Duration,
    ) -> Option<ExitStatus> {
        let deadline = deadline_after(grace);
        self.ask_to_stop();
        let status = tokio::time::timeout_at(deadline, child.wait())
            .await
            .ok()
            .and_then(Result::ok);
        self.await_or_kill(deadline).await;
        match status {
            Some(status) => Some(status),
            None => child.wait().await.ok(),
        }
    }

    /// Stops what the leader left in its group after it ended: nothing
    /// when the group is already empty, else `SIGTERM`, up to `grace`,
    /// `SIGKILL`.
    pub(super) async fn clear_leftovers(&mut self, grace: Duration) {
        if !self.is_alive() {
            self.armed = false;
            return;
        }
        let deadline = deadline_after(grace);
        self.ask_to_stop();
        self.await_or_kill(deadline).await;
    }

    fn ask_to_stop(&self) {
        let _ = killpg(self.pgid, Signal::SIGTERM);
        let _ = killpg(self.pgid, Signal::SIGCONT);
    }

    async fn await_or_kill(&mut self, deadline: Instant) {
        while self.is_alive() && Instant::now() < deadline {
            tokio::time::sleep(POLL.min(deadline.saturating_duration_since(Instant::now()))).await;
        }
        if self.is_alive() {
            let _ = killpg(self.pgid, Signal::SIGKILL);
        }
        self.armed = false;
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        if self.armed {
            let _ = killpg(self.pgid, Signal::SIGKILL);
        }
    }
}

/// Whether the group `pgid` has any process (signal 0 reaches it; a
/// group whose only members the host forbids signalling counts too).
pub(super) fn is_alive(pgid: i32) -> bool {
    !matches!(killpg(Pid::from_raw(pgid), None), Err(Errno::ESRCH))
}

/// Sends `signal` to the group `pgid`; a group already gone is not an
/// error.
pub(super) fn send(pgid: i32, signal: Signal) -> Result<(), Errno> {
    match killpg(Pid::from_raw(pgid), signal) {
        Err(Errno::ESRCH) => Ok(()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    fn spawn(script: &str) -> (Child, ProcessGroup) {
        let child = tokio::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(script)
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let group = ProcessGroup::led_by(child.id().unwrap()).unwrap();
        (child, group)
    }

    async fn gone(pgid: i32) -> bool {
        for _ in 0..1_000 {
            if !is_alive(pgid) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    }

    #[tokio::test]
    async fn terminate_reaches_every_member() {
        let (mut child, mut group) = spawn("sleep 300 & sleep 300 & wait");
        let pgid = group.id();
        let status = group.terminate(&mut child, Duration::from_secs(5)).await;
        assert_eq!(status.unwrap().signal(), Some(Signal::SIGTERM as i32));
        assert!(gone(pgid).await);
    }

    #[tokio::test]
    async fn a_term_ignoring_group_is_killed_after_the_grace() {
        let (mut child, mut group) = spawn("trap '' TERM; sleep 300");
        let pgid = group.id();
        tokio::time::sleep(Duration::from_millis(100)).await;
        group
            .terminate(&mut child, Duration::from_millis(100))
            .await;
        assert!(gone(pgid).await);
    }

    #[tokio::test]
    async fn leftovers_are_cleared_and_a_dropped_group_is_killed() {
        let (mut child, mut group) = spawn("sleep 300 & exit 0");
        let pgid = group.id();
        assert!(child.wait().await.unwrap().success());
        group.clear_leftovers(Duration::from_secs(5)).await;
        assert!(gone(pgid).await);

        let (mut child, group) = spawn("sleep 300");
        let pgid = group.id();
        drop(group);
        assert_eq!(
            child.wait().await.unwrap().signal(),
            Some(Signal::SIGKILL as i32)
        );
        assert!(gone(pgid).await);
    }
}

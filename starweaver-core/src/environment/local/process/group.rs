//! Everything a command started: the process group it leads, and the
//! processes that left the group ([`super::escapees`]), so a timeout, a
//! kill, a cancelled call or the command's own end reaches all of them.

use std::process::ExitStatus;
use std::sync::Arc;
use std::time::Duration;

use nix::errno::Errno;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::process::Child;
use tokio::time::Instant;

use super::escapees::{has_ended, signal_each, Sweep, Tag};
use super::task::deadline_after;

/// How often a stopping group is checked for members still alive.
const POLL: Duration = Duration::from_millis(10);
/// How long processes sent `SIGKILL` are waited for (they cannot refuse
/// it; this bounds a fork bomb racing the kills).
const KILL_WAIT: Duration = Duration::from_secs(5);

/// The group a spawned command leads. Until the group is known to be
/// gone (or has been sent `SIGKILL`), dropping this sends `SIGKILL` to
/// it: a call cancelled midway leaves nothing behind.
#[derive(Debug)]
pub(super) struct ProcessGroup {
    pgid: Pid,
    armed: bool,
    /// The tag its processes carry, also those that left the group.
    tag: Option<Arc<Tag>>,
    /// Escapees already sent `SIGTERM`.
    asked: Vec<Pid>,
}

impl ProcessGroup {
    /// The group led by the process `pid` (spawned with
    /// `process_group(0)`, so its group id is its pid), started from a
    /// thread marked with `tag`.
    pub(super) fn led_by(pid: u32, tag: Tag) -> Option<Self> {
        let pgid = i32::try_from(pid).ok().filter(|pid| *pid > 1)?;
        Some(Self {
            pgid: Pid::from_raw(pgid),
            armed: true,
            tag: Some(Arc::new(tag)),
            asked: Vec::new(),
        })
    }

    /// The tag, shared with whoever must sweep it when this group's own
    /// supervisor cannot (a provider going away with the process).
    pub(super) fn tag(&self) -> Option<Arc<Tag>> {
        self.tag.clone()
    }

    /// The group id (the leader's pid).
    pub(super) fn id(&self) -> i32 {
        self.pgid.as_raw()
    }

    /// The escapees found now (see [`Tag::sweep`]).
    fn sweep(&self) -> Sweep {
        self.tag
            .as_ref()
            .map(|tag| tag.sweep(self.pgid.as_raw()))
            .unwrap_or_default()
    }

    /// Whether any process is still in the group (a member that is a
    /// zombie not yet reaped counts), or left it and still runs.
    pub(super) fn is_alive(&self) -> bool {
        is_alive(self.pgid.as_raw()) || !self.sweep().is_empty()
    }

    /// Stops a group whose leader has not been reaped: `SIGTERM` (and
    /// `SIGCONT`, so stopped members see it) to the group and the
    /// processes that left it, up to `grace` for the leader and the rest
    /// to go, then `SIGKILL` to whatever is left. Returns the leader's
    /// exit status.
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
        let status = match status {
            Some(status) => Some(status),
            None => child.wait().await.ok(),
        };
        self.settle().await;
        status
    }

    /// Stops what the leader left after it ended, in its group or out of
    /// it: nothing when nothing is left, else `SIGTERM`, up to `grace`,
    /// `SIGKILL`.
    pub(super) async fn clear_leftovers(&mut self, grace: Duration) {
        if !self.is_alive() {
            self.armed = false;
            return;
        }
        let deadline = deadline_after(grace);
        self.ask_to_stop();
        self.await_or_kill(deadline).await;
        self.settle().await;
    }

    fn ask_to_stop(&mut self) {
        let _ = killpg(self.pgid, Signal::SIGTERM);
        let _ = killpg(self.pgid, Signal::SIGCONT);
        self.ask_escapees();
    }

    /// `SIGTERM` (and `SIGCONT`) to escapees not asked yet: a process
    /// orphaned while the group stops is asked once too.
    fn ask_escapees(&mut self) {
        let new: Vec<Pid> = self
            .sweep()
            .live
            .into_iter()
            .filter(|pid| !self.asked.contains(pid))
            .collect();
        signal_each(&new, Signal::SIGTERM);
        signal_each(&new, Signal::SIGCONT);
        self.asked.extend(new);
    }

    async fn await_or_kill(&mut self, deadline: Instant) {
        while self.is_alive() && Instant::now() < deadline {
            self.ask_escapees();
            tokio::time::sleep(POLL.min(deadline.saturating_duration_since(Instant::now()))).await;
        }
        let _ = killpg(self.pgid, Signal::SIGKILL);
        self.armed = false;
    }

    /// Once the leader has been reaped (so everything it left has been
    /// handed to the host): `SIGKILL` to the escapees until none is left.
    async fn settle(&mut self) {
        let deadline = deadline_after(KILL_WAIT);
        loop {
            let found = self.sweep();
            if found.is_empty() || Instant::now() >= deadline {
                break;
            }
            signal_each(&found.live, Signal::SIGKILL);
            tokio::time::sleep(POLL / 2).await;
        }
    }
}

impl Drop for ProcessGroup {
    /// A call dropped midway: `SIGKILL` to the group now, then to its
    /// escapees from a short-lived thread that waits for the leader to
    /// end and reaps them (the tag stays taken until they are gone).
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let _ = killpg(self.pgid, Signal::SIGKILL);
        let Some(tag) = self.tag.take() else {
            return;
        };
        let leader = self.pgid.as_raw();
        let finish = move || kill_escapees_now(&tag, leader);
        // Without a thread the group was still sent SIGKILL; escapees are
        // then left to the next command's sweep of this tag (none) or to
        // the host's end.
        let _ = std::thread::Builder::new()
            .name("starweaver-reaper".into())
            .spawn(finish);
    }
}

/// Ends the escapees of `tag` from a thread that may block: waits (a
/// bounded time) for the `leader`, already sent `SIGKILL`, to end, so
/// everything it left has been handed to the host, then sends `SIGKILL`
/// to them until none is left. One pass always runs.
pub(super) fn kill_escapees_now(tag: &Tag, leader: i32) {
    let deadline = std::time::Instant::now() + KILL_WAIT;
    while !has_ended(&leader.to_string()) && std::time::Instant::now() < deadline {
        std::thread::sleep(POLL / 10);
    }
    loop {
        let found = tag.sweep(leader);
        signal_each(&found.live, Signal::SIGKILL);
        if found.is_empty() || std::time::Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(POLL / 10);
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
        let group = ProcessGroup::led_by(child.id().unwrap(), Tag::untracked()).unwrap();
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

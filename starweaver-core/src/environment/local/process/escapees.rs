//! Processes that left their command's group: `setsid`, double forks,
//! daemons. The host is a child subreaper, so when such a process's
//! parent dies it becomes a child of the host rather than of `init`.
//! Every command is started from a thread whose timer slack is a tag of
//! its own, which every process it starts inherits across `fork`, `exec`,
//! `setsid` and `env -i` (and which the sandbox's seccomp filter keeps a
//! command from changing). Ending a command's escapees is then: find the
//! host's children carrying its tag (`/proc`), signal them, and reap each
//! by its pid with `waitid` (never a wait for any child, which would take
//! exit statuses that other code of the host waits for).

use std::collections::BTreeSet;
use std::sync::{Mutex, OnceLock};

use nix::errno::Errno;
use nix::sys::signal::{kill, Signal};
use nix::sys::wait::{waitid, Id, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;

/// The first tag. Timer slacks are nanoseconds; the default is 50 000,
/// so tags stay within 65 µs of it and change no timer noticeably.
const FIRST_TAG: u64 = 50_001;
/// How many tags exist; more live commands than this share none (a
/// command past it runs untagged: its escapees are not followed).
const TAGS: u64 = 15_000;

/// The tags of live commands.
fn live() -> &'static Mutex<BTreeSet<u64>> {
    static LIVE: OnceLock<Mutex<BTreeSet<u64>>> = OnceLock::new();
    LIVE.get_or_init(|| Mutex::new(BTreeSet::new()))
}

/// Makes the host a child subreaper, once per process. Without it
/// (another kernel), orphans go to `init` and only the group is
/// followed.
pub(super) fn become_subreaper() -> bool {
    static SUBREAPER: OnceLock<bool> = OnceLock::new();
    *SUBREAPER.get_or_init(|| {
        #[cfg(target_os = "linux")]
        {
            nix::sys::prctl::set_child_subreaper(true).is_ok()
        }
        #[cfg(not(target_os = "linux"))]
        {
            false
        }
    })
}

/// One command's tag, released when dropped.
#[derive(Debug)]
pub(super) struct Tag {
    value: Option<u64>,
}

impl Tag {
    /// A tag no live command holds.
    pub(super) fn allocate() -> Self {
        static NEXT: Mutex<u64> = Mutex::new(0);
        let mut live = live()
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut next = NEXT
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for _ in 0..TAGS {
            let value = FIRST_TAG + *next % TAGS;
            *next = next.wrapping_add(1);
            if live.insert(value) {
                return Self { value: Some(value) };
            }
        }
        Self { value: None }
    }

    /// A tag that marks nothing (tests of the group alone).
    #[cfg(test)]
    pub(super) fn untracked() -> Self {
        Self { value: None }
    }

    /// Marks the calling thread, which starts the command next.
    pub(super) fn mark_current_thread(&self) -> std::io::Result<()> {
        #[cfg(target_os = "linux")]
        if let Some(value) = self.value {
            nix::sys::prctl::set_timerslack(value).map_err(std::io::Error::from)?;
        }
        Ok(())
    }

    /// The host's children carrying this tag, but `leader` (which its own
    /// waiter reaps). Zombies among them are reaped here.
    pub(super) fn sweep(&self, leader: i32) -> Sweep {
        let mut found = Sweep::default();
        let Some(value) = self.value else {
            return found;
        };
        for pid in host_children() {
            if pid == leader || tag_of(pid) != Some(value) {
                continue;
            }
            let pid = Pid::from_raw(pid);
            if reap(pid) {
                found.reaped += 1;
            } else {
                found.live.push(pid);
            }
        }
        found
    }
}

/// What one look for escapees found.
#[derive(Debug, Default)]
pub(super) struct Sweep {
    /// Those still running, children of the host.
    pub(super) live: Vec<Pid>,
    /// Those that had ended and were reaped just now: their own children
    /// may have been handed to the host after the list was read, so a
    /// look that reaped any is not the last.
    pub(super) reaped: usize,
}

impl Sweep {
    /// Nothing was left.
    pub(super) fn is_empty(&self) -> bool {
        self.live.is_empty() && self.reaped == 0
    }
}

/// Sends `signal` to each of `pids` (children of the host: their pids
/// cannot be reused before they are reaped).
pub(super) fn signal_each(pids: &[Pid], signal: Signal) {
    for pid in pids {
        let _ = kill(*pid, signal);
    }
}

impl Drop for Tag {
    fn drop(&mut self) {
        if let Some(value) = self.value {
            live()
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .remove(&value);
        }
    }
}

/// Reaps `pid` if it has ended; true when it is gone.
fn reap(pid: Pid) -> bool {
    match waitid(Id::Pid(pid), WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG) {
        Ok(WaitStatus::StillAlive) => false,
        Ok(_) | Err(Errno::ECHILD) => true,
        Err(_) => false,
    }
}

/// The pids of the host's children: `/proc/self/task/*/children`, or a
/// scan of every process's parent where the kernel lacks those files.
fn host_children() -> Vec<i32> {
    let mut children = Vec::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return children;
    };
    for task in tasks.flatten() {
        match std::fs::read_to_string(task.path().join("children")) {
            Ok(list) => children.extend(
                list.split_whitespace()
                    .filter_map(|pid| pid.parse::<i32>().ok()),
            ),
            Err(_) => return children_by_scan(),
        }
    }
    children
}

fn children_by_scan() -> Vec<i32> {
    let host = std::process::id().to_string();
    let Ok(processes) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    processes
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                // `pid (comm) state ppid ...`: the name may hold spaces and
                // parentheses, so fields are counted after the last `)`.
                stat.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                    .is_some_and(|ppid| ppid == host)
            })
        })
        .collect()
}

fn tag_of(pid: i32) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/{pid}/timerslack_ns"))
        .ok()?
        .trim()
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_tags_are_never_shared() {
        let first = Tag::allocate();
        let second = Tag::allocate();
        assert!(first.value.is_some() && second.value.is_some());
        assert_ne!(first.value, second.value);
        let value = first.value;
        drop(first);
        assert!(!live()
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains(&value.unwrap_or(0)));
    }
}

//! Processes that left their command's group: `setsid`, double forks,
//! daemons. The host is a child subreaper, so when such a process's
//! parent dies it becomes a child of the host rather than of `init`.
//!
//! Every command is started from a thread marked with a tag of its own,
//! which every process it starts inherits across `fork`, `exec`, `setsid`
//! and `env -i`:
//! - under the sandbox, a number of seccomp filters no other live command
//!   has (filters are inherited and can never be removed, and the count is
//!   in `/proc/PID/status`, which the host reads without privileges);
//!   the filters are empty, so the kernel's filter cache makes them free;
//! - always, a timer slack of its own (`/proc/PID/timerslack_ns`), which
//!   the host can read only with `CAP_SYS_NICE`: with the sandbox off, it
//!   is the only tag, followed where the host may read it.
//!
//! Ending a command's escapees is then: find the host's children carrying
//! its tag, signal them, and reap each by its pid with `waitid` (never a
//! wait for any child, which would take exit statuses that other code of
//! the host waits for).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};

use nix::errno::Errno;
use nix::sys::signal::{kill, Signal};
use nix::sys::wait::{waitid, Id, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;

use crate::environment::local::sandbox::Prepared;

/// Timer slacks are nanoseconds; the default is 50 000, so a tag's slack
/// (this plus its slot) stays within a microsecond or two of it and
/// changes no timer noticeably.
const SLACK_BASE: u64 = 50_000;
/// How many commands can be tagged at once: a slot costs its command as
/// many (empty) seccomp filters, and the kernel bounds their sum. A
/// command past it runs untagged: what leaves its group is not followed.
const SLOTS: u32 = 1_000;

/// The slots of live commands.
fn live() -> &'static Mutex<BTreeSet<u32>> {
    static LIVE: OnceLock<Mutex<BTreeSet<u32>>> = OnceLock::new();
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
    /// The smallest slot no live command held (1 and up); none past
    /// [`SLOTS`].
    slot: Option<u32>,
    /// The seccomp filters its processes carry, counted on the thread
    /// that started it (0: not marked with filters).
    filters: AtomicU32,
}

impl Tag {
    /// A tag no live command holds.
    pub(super) fn allocate() -> Self {
        let mut live = live()
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // A slot whose slack the host itself runs with (a host started by
        // another one) would tag the host's own children too.
        let host = host_slack();
        let slot = (1..=SLOTS)
            .find(|slot| !live.contains(slot) && Some(SLACK_BASE + u64::from(*slot)) != host);
        if let Some(slot) = slot {
            live.insert(slot);
        }
        Self {
            slot,
            filters: AtomicU32::new(0),
        }
    }

    /// A tag that marks nothing (tests of the group alone).
    #[cfg(test)]
    pub(super) fn untracked() -> Self {
        Self {
            slot: None,
            filters: AtomicU32::new(0),
        }
    }

    /// Marks and restricts the calling thread, which starts the command
    /// next: the timer slack, then the sandbox, then (under a seccomp
    /// sandbox) the slot's count of empty filters, recorded as the count
    /// the command's processes will show.
    pub(super) fn mark_current_thread(&self, sandbox: &Prepared) -> std::io::Result<()> {
        #[cfg(target_os = "linux")]
        if let Some(slot) = self.slot {
            nix::sys::prctl::set_timerslack(SLACK_BASE + u64::from(slot))
                .map_err(std::io::Error::from)?;
        }
        sandbox.restrict_current_thread()?;
        if let Some(slot) = self.slot {
            if sandbox.add_marks(slot)? {
                let own = status_of("thread-self")
                    .map(|status| status.filters)
                    .ok_or_else(|| {
                        std::io::Error::other("the thread's seccomp filters cannot be counted")
                    })?;
                self.filters.store(own, Ordering::SeqCst);
            }
        }
        Ok(())
    }

    /// Whether the host's child `pid` carries this tag.
    fn marks(&self, pid: i32) -> bool {
        let Some(slot) = self.slot else {
            return false;
        };
        let filters = self.filters.load(Ordering::SeqCst);
        if filters > 0 {
            status_of(&pid.to_string())
                .is_some_and(|status| status.no_new_privs && status.filters == filters)
        } else {
            slack_of(&pid.to_string()) == Some(SLACK_BASE + u64::from(slot))
        }
    }

    /// The host's children carrying this tag, but `leader` (which its own
    /// waiter reaps). Zombies among them are reaped here.
    pub(super) fn sweep(&self, leader: i32) -> Sweep {
        let mut found = Sweep::default();
        if self.slot.is_none() {
            return found;
        }
        for pid in host_children() {
            if pid == leader || !self.marks(pid) {
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
        if let Some(slot) = self.slot {
            live()
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .remove(&slot);
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

/// The pids of the host's children that escapees can be among. The
/// kernel hands an orphan to the first live thread of its subreaper, the
/// main thread while it runs, so its `children` list is the one to read;
/// where the main thread has ended, or the kernel lacks those files,
/// every thread's list, or a scan of every process's parent.
fn host_children() -> Vec<i32> {
    let main = std::process::id();
    if let Ok(list) = std::fs::read_to_string(format!("/proc/self/task/{main}/children")) {
        let pids = parse_pids(&list);
        // An empty list is the answer unless the main thread has ended.
        if !pids.is_empty() || !has_ended(&format!("self/task/{main}")) {
            return pids;
        }
    }
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    let mut children = Vec::new();
    let mut listed = false;
    for task in tasks.flatten() {
        // A thread that ended since the folder was read has no list.
        if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
            children.extend(parse_pids(&list));
            listed = true;
        }
    }
    if listed {
        children
    } else {
        children_by_scan()
    }
}

/// The fields of `/proc/<name>/stat` after the command's name (`state`,
/// `ppid`, ...): the name may hold spaces and parentheses, so fields are
/// counted after the last `)`. `name` is a pid or `self/task/<tid>`.
fn stat_fields(name: &str) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{name}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    Some(rest.split_whitespace().map(str::to_string).collect())
}

/// Whether the process or thread `/proc/<name>` has ended: a zombie, or
/// gone.
pub(super) fn has_ended(name: &str) -> bool {
    stat_fields(name)
        .and_then(|fields| fields.into_iter().next())
        .is_none_or(|state| state == "Z" || state == "X")
}

fn parse_pids(list: &str) -> Vec<i32> {
    list.split_whitespace()
        .filter_map(|pid| pid.parse::<i32>().ok())
        .collect()
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
            stat_fields(&pid.to_string())
                .is_some_and(|fields| fields.get(1).is_some_and(|ppid| *ppid == host))
        })
        .collect()
}

/// What `/proc/PID/status` says of a process's seccomp filters.
struct Status {
    filters: u32,
    no_new_privs: bool,
}

/// The status of `/proc/<name>` (`thread-self` or a pid).
fn status_of(name: &str) -> Option<Status> {
    let text = std::fs::read_to_string(format!("/proc/{name}/status")).ok()?;
    let field = |key: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(key))
            .map(str::trim)
    };
    Some(Status {
        filters: field("Seccomp_filters:")?.parse().ok()?,
        no_new_privs: field("NoNewPrivs:") == Some("1"),
    })
}

/// The host's own timer slack, read once (a process may read its own).
fn host_slack() -> Option<u64> {
    static HOST: OnceLock<Option<u64>> = OnceLock::new();
    *HOST.get_or_init(|| slack_of("self"))
}

/// The timer slack of `/proc/<name>` (a pid, or `self`), where the host
/// may read it.
fn slack_of(name: &str) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/{name}/timerslack_ns"))
        .ok()?
        .trim()
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_slots_are_never_shared() {
        let first = Tag::allocate();
        let second = Tag::allocate();
        assert!(first.slot.is_some() && second.slot.is_some());
        assert_ne!(first.slot, second.slot);
        drop(first);
        let again = Tag::allocate();
        assert!(again.slot.is_some());
        assert_ne!(again.slot, second.slot);
    }

    #[test]
    fn this_threads_filters_are_counted() {
        let status = status_of("thread-self");
        assert!(status.is_some_and(|status| status.filters < 1_000));
    }
}

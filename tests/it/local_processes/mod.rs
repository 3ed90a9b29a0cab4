//! The local provider's processes: the policy enforced at the provider
//! (allowlist bypasses), the scrubbed environment, bounded capture (1 GiB
//! of output measured in a process of its own), process groups on
//! timeout, kill, cancellation and normal exit, the shared concurrency
//! allowance, and background handles (input, signals, retention).
//!
//! Processes are observed through `/proc`: a group is gone when no
//! process that is not a zombie has its group id.

mod background;
mod capture;
mod concurrency;
mod groups;
mod policy;
mod scrubbed_env;
mod working_directory;

use std::path::Path;
use std::time::Duration;

use starweaver::environment::LocalEnvironmentProvider;
use tempfile::TempDir;

/// A provider over a fresh temporary folder (kept alive by the guard).
pub fn provider() -> (TempDir, LocalEnvironmentProvider) {
    let dir = tempfile::tempdir().unwrap();
    let provider = LocalEnvironmentProvider::new(dir.path()).unwrap();
    (dir, provider)
}

/// Processes (not zombies) whose process group is `pgid`.
pub fn group_members(pgid: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            // `pid (comm) state ppid pgrp ...`; comm may hold spaces.
            let Some(after) = stat.rsplit_once(')').map(|(_, rest)| rest) else {
                return false;
            };
            let fields: Vec<&str> = after.split_whitespace().collect();
            fields.first() != Some(&"Z") && fields.get(2) == Some(&pgid.to_string().as_str())
        })
        .collect()
}

/// Waits (up to a generous 20 s) for group `pgid` to have no live
/// member; true when it has none.
pub async fn group_gone(pgid: i32) -> bool {
    for _ in 0..2_000 {
        if group_members(pgid).is_empty() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

/// Waits (up to 20 s) until `file` holds a number (a script wrote `$$`
/// there) and returns it.
pub async fn pid_in(file: &Path) -> i32 {
    for _ in 0..2_000 {
        if let Ok(text) = std::fs::read_to_string(file) {
            if let Ok(pid) = text.trim().parse() {
                return pid;
            }
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{} never held a pid", file.display());
}

/// Waits (up to 20 s) until group `pgid` has at least `count` live
/// members.
pub async fn members_at_least(pgid: i32, count: usize) {
    for _ in 0..2_000 {
        if group_members(pgid).len() >= count {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("group {pgid} never had {count} members");
}

/// Runs the ignored test `name` of this binary in a process of its own
/// with `env` added, and returns its standard output. Fails unless that
/// one test ran and passed.
pub fn run_in_child(name: &str, env: &[(&str, &str)]) -> String {
    let exe = std::env::current_exe().unwrap();
    let output = std::process::Command::new(exe)
        .args([
            name,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "child test {name} failed:\n{stdout}\n{stderr}"
    );
    stdout
}

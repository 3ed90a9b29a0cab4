//! No process outlives its command: what left the command's group
//! (`setsid`, double forks, `env -i`) ends with it, and nothing else does.

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use starweaver::environment::SandboxPolicy;
use starweaver::model::ToolReturnKind;

use super::{pid_in, processes_with, running, stdout, Sandboxed};

/// Waits in a script until the file `name` holds a pid.
fn await_pid(name: &str) -> String {
    format!("while [ ! -s {name} ]; do sleep 0.01; done")
}

/// A script's start of a process that leaves its group (a session of its
/// own) and writes its pid to `escaped.pid`.
const ESCAPEE: &str = "setsid sh -c 'echo $$ > escaped.pid; exec sleep 300' &";

/// The pid in `path`, once a command has written it.
async fn written_pid(path: &Path) -> i32 {
    while std::fs::read_to_string(path).map_or(true, |text| text.trim().is_empty()) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    pid_in(path)
}

/// Starts a background process that starts an escapee, waits for it,
/// prints `started` and runs `then`; its id.
async fn background_with_escapee(shell: &Sandboxed, then: &str) -> String {
    let script = format!("{ESCAPEE} {}; echo started{then}", await_pid("escaped.pid"));
    let started = shell
        .exec(json!({"command": script, "background": true}))
        .await;
    assert_eq!(started.kind, ToolReturnKind::Success, "{}", started.content);
    started.content["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn setsid_and_double_forks_end_with_their_command() {
    for policy in [SandboxPolicy::default(), SandboxPolicy::off()] {
        if policy.is_enabled() && !super::enforced() {
            continue;
        }
        let shell = Sandboxed::new(policy);
        let script = format!(
            "setsid sh -c 'echo $$ > session.pid; exec sleep 300' & \
             (sh -c 'echo $$ > forked.pid; exec sleep 300' &) ; \
             env -i /bin/sh -c 'setsid sh -c \"echo \\$\\$ > bare.pid; exec sleep 300\" &'; \
             {}; {}; {}; echo started",
            await_pid("session.pid"),
            await_pid("forked.pid"),
            await_pid("bare.pid")
        );
        let part = shell.script(&script).await;
        assert_eq!(stdout(&part), "started\n", "{}", part.content);
        for name in ["session.pid", "forked.pid", "bare.pid"] {
            let pid = pid_in(&shell.inside(name));
            assert!(!running(pid), "{name}: {pid} outlived its command");
        }
    }
}

#[tokio::test]
async fn three_hundred_detached_sleeps_end_with_a_timed_out_command() {
    if !super::enforced() {
        return;
    }
    let shell = Sandboxed::with(|provider| provider.with_kill_grace_ms(200));
    let marker = "3017.25";
    let script =
        format!("for i in $(seq 300); do setsid sleep {marker} & done; echo started; sleep 300");
    let part = shell
        .exec(json!({"command": script, "timeout_ms": 8000}))
        .await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{}", part.content);
    assert_eq!(part.content["status"], "timed_out", "{}", part.content);
    assert_eq!(stdout(&part), "started\n", "{}", part.content);
    let left = processes_with(&format!("sleep\0{marker}"));
    assert!(
        left.is_empty(),
        "{} detached sleeps outlived the call",
        left.len()
    );
}

#[tokio::test]
async fn a_background_process_takes_its_escapees_with_it() {
    if !super::enforced() {
        return;
    }
    let shell = Sandboxed::default_policy();
    let id = background_with_escapee(&shell, "; sleep 300").await;
    let escaped = written_pid(&shell.inside("escaped.pid")).await;
    // Another command ending leaves the running one's processes alone,
    // and so does the host's own child.
    let mut host_child = std::process::Command::new("sleep")
        .arg("300")
        .spawn()
        .unwrap();
    let other = shell.script("echo other").await;
    assert_eq!(stdout(&other), "other\n");
    assert!(
        running(escaped),
        "another command's end took this one's escapee"
    );
    let killed = shell.exec_tool("shell_kill", json!({"id": id})).await;
    assert_eq!(killed.kind, ToolReturnKind::Success, "{}", killed.content);
    assert!(
        !running(escaped),
        "the background process's escapee outlived it"
    );
    assert!(
        running(host_child.id() as i32),
        "the host's own child was ended"
    );
    host_child.kill().unwrap();
    host_child.wait().unwrap();
}

/// Waits (a generous 20 s, for a loaded machine) until `pid` is gone.
async fn gone(pid: i32) -> bool {
    for _ in 0..2_000 {
        if !running(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

#[tokio::test]
async fn a_background_process_that_ends_on_its_own_takes_its_escapees_with_it() {
    if !super::enforced() {
        return;
    }
    let shell = Sandboxed::default_policy();
    let id = background_with_escapee(&shell, "").await;
    let waited = shell
        .exec_tool("shell_wait", json!({"id": id, "timeout_ms": 20_000}))
        .await;
    assert_eq!(waited.content["status"], "exited", "{}", waited.content);
    assert_eq!(waited.content["stdout"], "started\n");
    let escaped = pid_in(&shell.inside("escaped.pid"));
    assert!(
        !running(escaped),
        "the escapee outlived its background process"
    );
}

#[tokio::test]
async fn a_cancelled_call_takes_its_escapees_with_it() {
    if !super::enforced() {
        return;
    }
    let shell = Sandboxed::default_policy();
    let script = format!("{ESCAPEE} sleep 300");
    let path = shell.inside("escaped.pid");
    // The call is dropped (cancelled) as soon as its escapee is running.
    let escaped = tokio::select! {
        part = shell.exec(json!({"command": script})) => panic!("the call ended: {}", part.content),
        pid = written_pid(&path) => pid,
    };
    assert!(
        gone(escaped).await,
        "the escapee outlived the cancelled call"
    );
}

#[tokio::test]
async fn dropping_the_provider_takes_background_escapees_with_it() {
    if !super::enforced() {
        return;
    }
    let shell = Sandboxed::default_policy();
    background_with_escapee(&shell, "; sleep 300").await;
    let escaped = written_pid(&shell.inside("escaped.pid")).await;
    drop(shell);
    assert!(gone(escaped).await, "the escapee outlived its provider");
}

//! Background processes through the handle tools: start, wait, status,
//! input, signals and kill, unknown ids and a missing process shell.

use serde_json::{json, Value};
use starweaver::model::ToolReturnKind;

use super::{message, workspace, Shell};

/// Starts `arguments` in the background; its id.
async fn start(shell: &Shell, mut arguments: Value) -> String {
    arguments["background"] = json!(true);
    let part = shell.ok("shell_exec", arguments).await;
    part.content["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_background_sleep_runs_until_a_long_enough_wait() {
    let shell = Shell::on(workspace());
    let started = shell
        .ok(
            "shell_exec",
            json!({"command": "sleep 1", "background": true}),
        )
        .await;
    assert_eq!(started.content["status"], "running");
    assert_eq!(started.content["command"], "sleep 1");
    let id = started.content["id"].as_str().unwrap();
    assert_eq!(started.metadata["process_id"], id);
    assert!(started.content["note"]
        .as_str()
        .unwrap()
        .contains("shell_wait"));
    // Status does not move time.
    for _ in 0..3 {
        let status = shell.ok("shell_status", json!({"id": id})).await;
        assert_eq!(status.content["status"], "running");
        assert_eq!(status.content["duration_ms"], 0);
    }
    let early = shell
        .ok("shell_wait", json!({"id": id, "timeout_ms": 600}))
        .await;
    assert_eq!(early.content["status"], "running");
    assert_eq!(early.content["duration_ms"], 600);
    assert!(early.content["note"]
        .as_str()
        .unwrap()
        .contains("still running after waiting 600 ms"));
    let done = shell
        .ok("shell_wait", json!({"id": id, "timeout_ms": 5_000}))
        .await;
    assert_eq!(done.content["status"], "exited");
    assert_eq!(done.content["exit_code"], 0);
    assert_eq!(done.content["duration_ms"], 1_000);
    assert!(done.content.get("note").is_none());
}

#[tokio::test]
async fn waits_are_bounded_by_default_and_at_most() {
    let shell = Shell::on(workspace());
    let id = start(&shell, json!({"command": "sleep 1h"})).await;
    let default = shell.ok("shell_wait", json!({"id": id})).await;
    assert_eq!(default.content["duration_ms"], 30_000);
    let capped = shell
        .ok("shell_wait", json!({"id": id, "timeout_ms": u64::MAX}))
        .await;
    assert_eq!(capped.content["status"], "running");
    assert_eq!(capped.content["duration_ms"], 630_000);
    let note = capped.content["note"].as_str().unwrap();
    assert!(note.contains("at most 600000 ms"), "{note}");
}

#[tokio::test]
async fn input_reaches_a_background_reader_until_it_is_closed() {
    let shell = Shell::on(workspace());
    let id = start(&shell, json!({"command": "cat", "stdin": "hello\n"})).await;
    let first = shell
        .ok("shell_input", json!({"id": id, "input": "more\n"}))
        .await;
    assert_eq!(first.content["status"], "running");
    assert_eq!(first.content["stdout"], "hello\nmore\n");
    let closed = shell
        .ok(
            "shell_input",
            json!({"id": id, "input": "end\n", "close": true}),
        )
        .await;
    assert_eq!(closed.content["status"], "exited");
    assert_eq!(closed.content["exit_code"], 0);
    assert_eq!(closed.content["stdout"], "hello\nmore\nend\n");
    let late = shell
        .call("shell_input", json!({"id": id, "input": "x"}))
        .await;
    assert_eq!(late.kind, ToolReturnKind::Feedback);
    assert!(
        message(&late).contains("already ended"),
        "{}",
        message(&late)
    );
}

#[tokio::test]
async fn signals_end_pause_and_resume_processes() {
    let shell = Shell::on(workspace());
    for (signal, number) in [("TERM", 15), ("SIGINT", 2), ("kill", 9), ("HUP", 1)] {
        let id = start(&shell, json!({"program": "cat"})).await;
        let ended = shell
            .ok("shell_signal", json!({"id": id, "signal": signal}))
            .await;
        assert_eq!(ended.content["status"], "exited", "{signal}");
        assert_eq!(ended.content["exit_code"], Value::Null, "{signal}");
        assert_eq!(ended.content["signal"], number, "{signal}");
    }
    let id = start(&shell, json!({"command": "sleep 2"})).await;
    shell
        .ok("shell_signal", json!({"id": id, "signal": "STOP"}))
        .await;
    let paused = shell
        .ok("shell_wait", json!({"id": id, "timeout_ms": 10_000}))
        .await;
    assert_eq!(paused.content["status"], "running");
    shell
        .ok("shell_signal", json!({"id": id, "signal": "CONT"}))
        .await;
    let done = shell
        .ok("shell_wait", json!({"id": id, "timeout_ms": 10_000}))
        .await;
    assert_eq!(done.content["status"], "exited");
    assert_eq!(done.content["exit_code"], 0);

    let bad = shell
        .call("shell_signal", json!({"id": id, "signal": "SIGFOO"}))
        .await;
    assert_eq!(bad.kind, ToolReturnKind::ModelRetry);
    let text = message(&bad);
    assert!(
        text.contains("SIGFOO") && text.contains("INT, TERM, KILL, HUP"),
        "{text}"
    );
}

#[tokio::test]
async fn kill_stops_a_process_and_status_lists_them_all() {
    let shell = Shell::on(workspace());
    let sleeper = start(&shell, json!({"command": "sleep 100"})).await;
    let echo = start(&shell, json!({"program": "echo", "args": ["done"]})).await;
    let listed = shell.ok("shell_status", json!({})).await;
    assert_eq!(listed.content["count"], 2);
    let processes = listed.content["processes"].as_array().unwrap();
    assert_eq!(processes[0]["id"], sleeper.as_str());
    assert_eq!(processes[0]["status"], "running");
    assert_eq!(processes[1]["id"], echo.as_str());
    assert_eq!(processes[1]["status"], "exited");
    assert_eq!(processes[1]["stdout_bytes"], 5);
    assert!(processes[1].get("stdout").is_none());
    let killed = shell.ok("shell_kill", json!({"id": sleeper})).await;
    assert_eq!(killed.content["status"], "killed");
    assert_eq!(killed.content["signal"], 15);
    let again = shell.ok("shell_kill", json!({"id": sleeper})).await;
    assert_eq!(again.content, killed.content);
}

#[tokio::test]
async fn unknown_ids_are_feedback_pointing_at_the_listing() {
    let shell = Shell::on(workspace());
    for (tool, arguments) in [
        ("shell_wait", json!({"id": "proc-99"})),
        ("shell_status", json!({"id": "proc-99"})),
        ("shell_input", json!({"id": "proc-99", "input": "x"})),
        ("shell_signal", json!({"id": "proc-99", "signal": "TERM"})),
        ("shell_kill", json!({"id": "proc-99"})),
    ] {
        let part = shell.call(tool, arguments).await;
        assert_eq!(part.kind, ToolReturnKind::Feedback, "{tool}");
        assert_eq!(
            part.content["details"]["error"], "unknown_process",
            "{tool}"
        );
        let text = message(&part);
        assert!(
            text.contains("proc-99") && text.contains("shell_status"),
            "{text}"
        );
    }
}

#[tokio::test]
async fn the_process_limit_and_retention_hold_through_the_tools() {
    let shell = Shell::on(
        workspace()
            .with_max_concurrent_processes(1)
            .with_completed_process_retention(2),
    );
    let id = start(&shell, json!({"command": "sleep 10"})).await;
    let refused = shell
        .call(
            "shell_exec",
            json!({"command": "sleep 1", "background": true}),
        )
        .await;
    assert_eq!(refused.kind, ToolReturnKind::Feedback);
    assert_eq!(refused.content["details"]["error"], "process_limit");
    shell.ok("shell_kill", json!({"id": id})).await;
    for _ in 0..5 {
        start(&shell, json!({"command": "true"})).await;
    }
    let listed = shell.ok("shell_status", json!({})).await;
    assert_eq!(listed.content["count"], 2);
}

#[tokio::test]
async fn background_tools_without_a_process_shell_tell_the_host_what_to_attach() {
    let shell = Shell::without_process_shell(workspace());
    // The foreground needs only the environment.
    shell.ok("shell_exec", json!({"command": "echo hi"})).await;
    for (tool, arguments) in [
        (
            "shell_exec",
            json!({"command": "sleep 1", "background": true}),
        ),
        ("shell_wait", json!({"id": "proc-1"})),
        ("shell_status", json!({})),
        ("shell_input", json!({"id": "proc-1", "input": "x"})),
        ("shell_signal", json!({"id": "proc-1", "signal": "TERM"})),
        ("shell_kill", json!({"id": "proc-1"})),
    ] {
        let part = shell.call(tool, arguments).await;
        assert_eq!(part.kind, ToolReturnKind::UserError, "{tool}");
        assert!(
            message(&part).contains("attach_process_shell"),
            "{tool}: {}",
            message(&part)
        );
    }
}

// A background process past its own time limit was told to "run it with
// `background: true`", which it already was.
#[tokio::test]
async fn a_timed_out_background_process_gets_advice_that_fits_it() {
    let shell = Shell::on(workspace());
    let id = start(&shell, json!({"command": "sleep 5", "timeout_ms": 1_000})).await;
    let done = shell
        .ok("shell_wait", json!({"id": id, "timeout_ms": 10_000}))
        .await;
    assert_eq!(done.content["status"], "timed_out");
    let note = done.content["note"].as_str().unwrap();
    assert!(!note.contains("background: true"), "{note}");
    assert!(
        note.contains("time limit") && note.contains("timeout_ms"),
        "{note}"
    );
}

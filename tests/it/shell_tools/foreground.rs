//! Foreground commands: both forms, exit codes, input, working
//! directories, time limits, bounded output and argument errors.

use serde_json::json;
use starweaver::model::ToolReturnKind;

use super::{message, workspace, Shell};

#[tokio::test]
async fn a_command_runs_and_returns_its_output_and_stream_metadata() {
    let shell = Shell::on(workspace());
    let part = shell
        .ok("shell_exec", json!({"command": "echo hello world"}))
        .await;
    assert_eq!(part.content["status"], "exited");
    assert_eq!(part.content["exit_code"], 0);
    assert_eq!(part.content["signal"], serde_json::Value::Null);
    assert_eq!(part.content["stdout"], "hello world\n");
    assert_eq!(part.content["stderr"], "");
    assert_eq!(part.content["duration_ms"], 0);
    assert!(part.content.get("note").is_none(), "{}", part.content);
    assert_eq!(part.metadata["stdout_bytes"], 12);
    assert_eq!(part.metadata["stdout_captured_bytes"], 12);
    assert_eq!(part.metadata["stdout_truncated"], false);
    assert_eq!(part.metadata["stderr_drain_timed_out"], false);
    assert_eq!(part.metadata["stderr_capture_failed"], false);
}

#[tokio::test]
async fn a_non_zero_exit_is_a_normal_return() {
    let shell = Shell::on(workspace());
    for (command, code) in [("false", 1), ("exit 3", 3), ("exit 300", 44)] {
        let part = shell.ok("shell_exec", json!({"command": command})).await;
        assert_eq!(part.content["status"], "exited", "{command}");
        assert_eq!(part.content["exit_code"], code, "{command}");
    }
    let unknown = shell.ok("shell_exec", json!({"command": "make all"})).await;
    assert_eq!(unknown.content["exit_code"], 127);
    let stderr = unknown.content["stderr"].as_str().unwrap();
    assert!(stderr.contains("make: command not found"), "{stderr}");
    let missing = shell
        .ok("shell_exec", json!({"command": "cat gone.txt"}))
        .await;
    assert_eq!(missing.content["exit_code"], 1);
    assert!(missing.content["stderr"]
        .as_str()
        .unwrap()
        .contains("No such file"));
}

#[tokio::test]
async fn programs_get_their_arguments_literally_and_scripts_are_plain_words() {
    let shell = Shell::on(workspace());
    let program = shell
        .ok(
            "shell_exec",
            json!({"program": "echo", "args": ["a | b", "$(rm -rf /)", "*"]}),
        )
        .await;
    assert_eq!(program.content["stdout"], "a | b $(rm -rf /) *\n");
    // The simulation refuses shell syntax it would not reproduce.
    let piped = shell
        .call("shell_exec", json!({"command": "cat notes.txt | wc -l"}))
        .await;
    assert_eq!(piped.kind, ToolReturnKind::Feedback, "{}", piped.content);
    assert_eq!(piped.content["details"]["error"], "unsupported");
    let text = message(&piped);
    assert!(
        text.contains("`|`") && text.contains("single builtin commands"),
        "{text}"
    );
    assert!(
        text.contains("echo, true, false, exit, sleep, cat, pwd, env"),
        "{text}"
    );
}

#[tokio::test]
async fn input_working_directory_and_variables_reach_the_command() {
    let shell = Shell::on(workspace());
    let input = shell
        .ok("shell_exec", json!({"command": "cat", "stdin": "typed\n"}))
        .await;
    assert_eq!(input.content["stdout"], "typed\n");
    let nested = shell
        .ok("shell_exec", json!({"command": "cat lib.rs", "cwd": "src"}))
        .await;
    assert_eq!(nested.content["stdout"], "pub fn f() {}\n");
    let pwd = shell
        .ok("shell_exec", json!({"program": "pwd", "cwd": "/src/"}))
        .await;
    assert_eq!(pwd.content["stdout"], "/src\n");
    let env = shell
        .ok(
            "shell_exec",
            json!({"command": "env", "env": {"MODE": "test"}}),
        )
        .await;
    assert_eq!(env.content["stdout"], "MODE=test\n");
    for (cwd, error) in [
        ("nope", "not_found"),
        ("notes.txt", "not_a_directory"),
        ("..", "path_escape"),
    ] {
        let part = shell
            .call("shell_exec", json!({"command": "pwd", "cwd": cwd}))
            .await;
        assert_eq!(part.kind, ToolReturnKind::Feedback, "{cwd}");
        assert_eq!(part.content["details"]["error"], error, "{cwd}");
    }
}

#[tokio::test]
async fn a_command_past_its_time_limit_is_stopped_on_the_virtual_clock() {
    let shell = Shell::on(workspace());
    let done = shell.ok("shell_exec", json!({"command": "sleep 30"})).await;
    assert_eq!(done.content["status"], "exited");
    assert_eq!(done.content["duration_ms"], 30_000);
    let cut = shell
        .ok(
            "shell_exec",
            json!({"command": "sleep 5", "timeout_ms": 1000}),
        )
        .await;
    assert_eq!(cut.content["status"], "timed_out");
    assert_eq!(cut.content["exit_code"], serde_json::Value::Null);
    assert_eq!(cut.content["duration_ms"], 1_000);
    let note = cut.content["note"].as_str().unwrap();
    assert!(
        note.contains("time limit") && note.contains("timeout_ms"),
        "{note}"
    );
}

#[tokio::test]
async fn cut_output_says_so_plainly() {
    let provider = workspace()
        .with_file("big.log", "x".repeat(5_000))
        .with_max_output_bytes(100);
    let shell = Shell::on(provider);
    let part = shell
        .ok("shell_exec", json!({"command": "cat big.log"}))
        .await;
    assert_eq!(part.content["stdout"].as_str().unwrap().len(), 100);
    let note = part.content["note"].as_str().unwrap();
    assert!(
        note.contains("stdout was cut to 100 of 5000 bytes"),
        "{note}"
    );
    assert_eq!(part.metadata["stdout_bytes"], 5_000);
    assert_eq!(part.metadata["stdout_captured_bytes"], 100);
    assert_eq!(part.metadata["stdout_truncated"], true);
}

// Output within the provider's bound (1 MiB a stream) but past the
// registry's return bound came back as a cut JSON string: no object, no
// `stderr`, and the note's byte counts wrong about what the model saw.
#[tokio::test]
async fn output_past_the_return_bound_is_cut_per_stream_and_stays_an_object() {
    let provider = workspace().with_file("big.log", "\"x\n".repeat(200_000));
    let shell = Shell::on(provider);
    let part = shell
        .ok("shell_exec", json!({"command": "cat big.log"}))
        .await;
    assert!(part.content.is_object(), "the return became a cut string");
    assert!(
        part.metadata.get("shortened").is_none(),
        "the registry cut it"
    );
    let stdout = part.content["stdout"].as_str().unwrap();
    assert!(!stdout.is_empty());
    assert_eq!(part.content["stderr"], "");
    assert_eq!(part.metadata["stdout_bytes"], 600_000);
    assert_eq!(part.metadata["stdout_captured_bytes"], stdout.len());
    assert_eq!(part.metadata["stdout_truncated"], true);
    let note = part.content["note"].as_str().unwrap();
    assert!(
        note.contains(&format!(
            "stdout was cut to {} of 600000 bytes",
            stdout.len()
        )),
        "{note}"
    );
}

#[tokio::test]
async fn command_and_program_are_exactly_one() {
    let shell = Shell::on(workspace());
    for (arguments, expected) in [
        (json!({"command": "echo", "program": "echo"}), "not both"),
        (json!({}), "give `command`"),
        (json!({"args": ["x"]}), "give `command`"),
        (
            json!({"command": "echo", "args": ["x"]}),
            "`args` goes with `program`",
        ),
        (json!({"command": "   "}), "`command` is empty"),
        (json!({"program": ""}), "`program` is empty"),
        (
            json!({"command": "echo", "env": {"A=B": "1"}}),
            "not a valid variable",
        ),
        (json!({"command": "echo", "shell": true}), "shell"),
    ] {
        let part = shell.call("shell_exec", arguments.clone()).await;
        assert_eq!(part.kind, ToolReturnKind::InvalidArguments, "{arguments}");
        assert!(
            message(&part).contains(expected),
            "{arguments}: {}",
            message(&part)
        );
    }
}

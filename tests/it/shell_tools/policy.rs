//! The provider's shell policy and the host's shell settings: refusals
//! name the rule; the settings narrow the policy and fill defaults.

use std::sync::Arc;

use serde_json::json;
use starweaver::context::{ShellEnvironmentSnapshot, ToolRuntimeSnapshot};
use starweaver::environment::{
    ShellPolicy, ENVIRONMENT_CAPABILITY, RULE_ENV_UNDER_ALLOWLIST, RULE_EXECUTION_DISABLED,
    RULE_PROGRAM_NOT_ALLOWED, RULE_SHELL_UNDER_ALLOWLIST,
};
use starweaver::model::{ToolCallPart, ToolReturnKind};
use starweaver::{shell_tools, ToolContext, ToolRegistry};

use super::{message, permissive, workspace, Shell};

/// Asserts `part` is a policy refusal naming `rule`.
fn assert_refused(part: &starweaver::model::ToolReturnPart, rule: &str) {
    assert_eq!(part.kind, ToolReturnKind::Feedback, "{}", part.content);
    assert_eq!(part.content["details"]["error"], "policy_denied");
    assert_eq!(part.content["details"]["rule"], rule);
    assert!(message(part).contains(rule), "{}", message(part));
}

#[tokio::test]
async fn an_allowlist_refuses_scripts_paths_and_variables_naming_the_rule() {
    let shell = Shell::on(workspace().with_shell_policy(ShellPolicy::allow_programs(["echo"])));
    let allowed = shell
        .ok("shell_exec", json!({"program": "echo", "args": ["ok"]}))
        .await;
    assert_eq!(allowed.content["stdout"], "ok\n");
    let script = shell
        .call("shell_exec", json!({"command": "echo ok"}))
        .await;
    assert_refused(&script, RULE_SHELL_UNDER_ALLOWLIST);
    assert!(
        message(&script).contains("`program` and `args`"),
        "{}",
        message(&script)
    );
    let path = shell
        .call(
            "shell_exec",
            json!({"program": "/usr/bin/echo", "args": ["ok"]}),
        )
        .await;
    assert_refused(&path, RULE_PROGRAM_NOT_ALLOWED);
    assert!(message(&path).contains("`echo`"), "{}", message(&path));
    // Regression: the programs that may run were only in the message's prose, so a caller
    // (the embedded test model) had to parse the wording to offer one.
    assert_eq!(path.content["details"]["allowed"], json!(["echo"]));
    assert_eq!(script.content["details"]["allowed"], json!(["echo"]));
    let variables = shell
        .call(
            "shell_exec",
            json!({"program": "echo", "env": {"PATH": "/tmp/evil"}}),
        )
        .await;
    assert_refused(&variables, RULE_ENV_UNDER_ALLOWLIST);
    // The background path is refused the same way.
    let background = shell
        .call(
            "shell_exec",
            json!({"command": "sleep 1", "background": true}),
        )
        .await;
    assert_refused(&background, RULE_SHELL_UNDER_ALLOWLIST);
}

#[tokio::test]
async fn the_hosts_settings_narrow_the_providers_policy() {
    // The provider allows echo and cat; the host only echo.
    let provider = workspace().with_shell_policy(ShellPolicy::allow_programs(["echo", "cat"]));
    let shell = Shell::on(provider).with_settings(ShellEnvironmentSnapshot {
        allowed_programs: vec!["echo".into()],
        ..permissive()
    });
    shell
        .ok("shell_exec", json!({"program": "echo", "args": ["hi"]}))
        .await;
    let cat = shell
        .call(
            "shell_exec",
            json!({"program": "cat", "args": ["notes.txt"]}),
        )
        .await;
    assert_refused(&cat, RULE_PROGRAM_NOT_ALLOWED);
    // An unrestricted provider is narrowed just the same.
    let shell = Shell::on(workspace()).with_settings(ShellEnvironmentSnapshot {
        allowed_programs: vec!["echo".into()],
        ..permissive()
    });
    assert_refused(
        &shell
            .call("shell_exec", json!({"command": "echo hi"}))
            .await,
        RULE_SHELL_UNDER_ALLOWLIST,
    );
    assert_refused(
        &shell
            .call("shell_exec", json!({"program": "echo", "env": {"A": "1"}}))
            .await,
        RULE_ENV_UNDER_ALLOWLIST,
    );
}

#[tokio::test]
async fn switched_off_execution_refuses_commands_input_and_signals_but_not_kill() {
    let provider = workspace();
    let running = Shell::on(provider);
    let started = running
        .ok("shell_exec", json!({"command": "cat", "background": true}))
        .await;
    let id = started.content["id"].as_str().unwrap().to_string();
    let off = running.with_settings(ShellEnvironmentSnapshot::default());
    for arguments in [
        json!({"command": "echo hi"}),
        json!({"program": "echo"}),
        json!({"command": "sleep 1", "background": true}),
    ] {
        assert_refused(
            &off.call("shell_exec", arguments).await,
            RULE_EXECUTION_DISABLED,
        );
    }
    assert_refused(
        &off.call("shell_input", json!({"id": id, "input": "x"}))
            .await,
        RULE_EXECUTION_DISABLED,
    );
    assert_refused(
        &off.call("shell_signal", json!({"id": id, "signal": "CONT"}))
            .await,
        RULE_EXECUTION_DISABLED,
    );
    // Looking and stopping stay possible.
    off.ok("shell_status", json!({"id": id})).await;
    let killed = off.ok("shell_kill", json!({"id": id})).await;
    assert_eq!(killed.content["status"], "killed");
}

#[tokio::test]
async fn the_hosts_settings_fill_defaults_under_the_request() {
    let shell = Shell::on(workspace()).with_settings(ShellEnvironmentSnapshot {
        timeout_ms: Some(2_000),
        working_directory: Some("src".into()),
        env: [
            ("HOST".to_string(), "1".to_string()),
            ("MODE".to_string(), "host".to_string()),
        ]
        .into(),
        ..permissive()
    });
    let pwd = shell.ok("shell_exec", json!({"command": "pwd"})).await;
    assert_eq!(pwd.content["stdout"], "/src\n");
    let root = shell
        .ok("shell_exec", json!({"command": "pwd", "cwd": "/"}))
        .await;
    assert_eq!(root.content["stdout"], "/\n");
    let env = shell
        .ok(
            "shell_exec",
            json!({"command": "env", "env": {"MODE": "request"}}),
        )
        .await;
    assert_eq!(env.content["stdout"], "HOST=1\nMODE=request\n");
    let limited = shell.ok("shell_exec", json!({"command": "sleep 5"})).await;
    assert_eq!(limited.content["status"], "timed_out");
    assert_eq!(limited.content["duration_ms"], 2_000);
    let longer = shell
        .ok(
            "shell_exec",
            json!({"command": "sleep 5", "timeout_ms": 10_000}),
        )
        .await;
    assert_eq!(longer.content["status"], "exited");
    // The default limit is for foreground commands: a background sleep
    // outlives it.
    let started = shell
        .ok(
            "shell_exec",
            json!({"command": "sleep 5", "background": true}),
        )
        .await;
    let id = started.content["id"].as_str().unwrap();
    let waited = shell
        .ok("shell_wait", json!({"id": id, "timeout_ms": 10_000}))
        .await;
    assert_eq!(waited.content["status"], "exited");
    assert_eq!(waited.content["exit_code"], 0);
}

#[tokio::test]
async fn the_hosts_variables_are_not_a_request_override_under_its_allowlist() {
    let shell = Shell::on(workspace()).with_settings(ShellEnvironmentSnapshot {
        allowed_programs: vec!["env".into()],
        env: [("HOST".to_string(), "1".to_string())].into(),
        ..permissive()
    });
    let env = shell.ok("shell_exec", json!({"program": "env"})).await;
    assert_eq!(env.content["stdout"], "HOST=1\n");
}

// The host's own variables, refused by a provider allowlist, came back
// to the model as feedback telling it to leave out an `env` it never
// gave: it could not fix that, and the host was never told.
#[tokio::test]
async fn the_hosts_variables_refused_by_the_providers_allowlist_are_a_host_error() {
    let provider = workspace().with_shell_policy(ShellPolicy::allow_programs(["echo"]));
    let shell = Shell::on(provider).with_settings(ShellEnvironmentSnapshot {
        env: [("HOST".to_string(), "1".to_string())].into(),
        ..permissive()
    });
    let part = shell
        .call("shell_exec", json!({"program": "echo", "args": ["hi"]}))
        .await;
    assert_eq!(part.kind, ToolReturnKind::UserError, "{}", part.content);
    let text = message(&part);
    assert!(
        text.contains("`HOST`") && text.contains("with_env") && !text.contains("leave `env` out"),
        "{text}"
    );
    // A variable the model asked for is still its own to drop.
    let own = shell
        .call(
            "shell_exec",
            json!({"program": "echo", "env": {"MINE": "1"}}),
        )
        .await;
    assert_eq!(own.kind, ToolReturnKind::Feedback, "{}", own.content);
    assert!(
        message(&own).contains("leave `env` out"),
        "{}",
        message(&own)
    );
}

#[tokio::test]
async fn the_hosts_output_bound_narrows_what_the_model_sees() {
    let shell = Shell::on(workspace().with_file("big.log", "y".repeat(300))).with_settings(
        ShellEnvironmentSnapshot {
            max_output_bytes: Some(10),
            ..permissive()
        },
    );
    let part = shell
        .ok("shell_exec", json!({"command": "cat big.log"}))
        .await;
    assert_eq!(part.content["stdout"], "yyyyyyyyyy");
    let note = part.content["note"].as_str().unwrap();
    assert!(note.contains("stdout was cut to 10 of 300 bytes"), "{note}");
    assert_eq!(part.metadata["stdout_captured_bytes"], 10);
    assert_eq!(part.metadata["stdout_truncated"], true);
}

#[tokio::test]
async fn a_legacy_callers_runtime_snapshot_is_read_when_no_dedicated_one_is_given() {
    let provider: Arc<dyn starweaver::environment::EnvironmentProvider> = Arc::new(workspace());
    let mut dependencies = starweaver::context::Dependencies::default();
    dependencies.insert_named(ENVIRONMENT_CAPABILITY, provider);
    dependencies.insert(ToolRuntimeSnapshot {
        shell: Some(ShellEnvironmentSnapshot::default()),
        ..ToolRuntimeSnapshot::default()
    });
    let part = ToolRegistry::new()
        .with_toolset(&shell_tools())
        .execute_call(
            ToolContext::default().with_dependencies(dependencies),
            &ToolCallPart::new("c", "shell_exec", json!({"command": "echo hi"})),
        )
        .await;
    assert_refused(&part, RULE_EXECUTION_DISABLED);
}

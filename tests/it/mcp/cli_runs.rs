//! `starweaver run` on manifests with an MCP toolset: the tests' own Python server is called
//! and stopped with the run, so no server process outlives it; and with the server from the
//! registries (`@modelcontextprotocol/server-everything`, found on `PATH` as `.ci/run`
//! installs it), a long call's progress shows as `tool_progress` records before its return,
//! and a `deferred` entry over the server hands its calls to a worker, so the run waits
//! instead of calling it.

use serde_json::Value;

use crate::common::hostile::{hostile_server, python3};
use crate::common::interop::everything_on_path;
use crate::common::running;
use crate::run_cli::{assert_status, folder, json_lines, run, stdout};

const SERVER: &str = "  - type: mcp
    name: everything
    command: mcp-server-everything
    args: [stdio]
    startup_timeout_ms: 60000
";

/// The `event` of every record, in order.
fn events(records: &[Value]) -> Vec<&Value> {
    records.iter().map(|record| &record["event"]).collect()
}

#[test]
fn a_long_calls_progress_is_a_record_before_its_return() {
    if !everything_on_path() {
        return;
    }
    let manifest = format!(
        "version: 1\nname: progress\nmodel: {{id: script, script: turns.yaml}}\ntoolsets:\n{SERVER}    tools: [trigger-long-running-operation]\n"
    );
    let script = "- calls:\n    - tool: trigger-long-running-operation\n      args: { duration: 0.3, steps: 3 }\n- answer: done\n";
    let dir = folder(&[("agent.yaml", &manifest), ("turns.yaml", script)]);
    let output = run(
        dir.path(),
        &["run", "agent.yaml", "--json", "--prompt", "go"],
    );
    assert_status(&output, 0);
    let records = json_lines(&stdout(&output));
    let events = events(&records);
    let progress: Vec<&&Value> = events
        .iter()
        .filter(|event| event["type"] == "tool_progress")
        .collect();
    assert_eq!(progress.len(), 3, "{events:#?}");
    assert_eq!(progress[2]["update"]["progress"], 3.0);
    assert_eq!(progress[2]["update"]["total"], 3.0);
    assert_eq!(progress[0]["tool_name"], "trigger-long-running-operation");
    let last_progress = events
        .iter()
        .rposition(|event| event["type"] == "tool_progress")
        .unwrap();
    let returned = events
        .iter()
        .position(|event| event["type"] == "tool_return")
        .unwrap();
    assert!(last_progress < returned, "{events:#?}");
}

#[test]
fn a_deferred_entry_over_a_server_waits_for_a_worker() {
    if !everything_on_path() {
        return;
    }
    let manifest = format!(
        "version: 1\nname: handoff\nmodel: {{id: script, script: turns.yaml}}\ntoolsets:\n{SERVER}    tools: [echo]\n  - type: deferred\n    name: jobs\n    toolsets: [everything]\n"
    );
    let script = "- calls:\n    - tool: echo\n      args: { message: later }\n- answer: done\n";
    let dir = folder(&[("agent.yaml", &manifest), ("turns.yaml", script)]);
    let output = run(
        dir.path(),
        &["run", "agent.yaml", "--json", "--prompt", "go"],
    );
    assert_status(&output, 3);
    let records = json_lines(&stdout(&output));
    let waiting = events(&records)
        .into_iter()
        .find(|event| event["type"] == "waiting")
        .unwrap_or_else(|| panic!("no waiting record: {records:#?}"));
    let request = &waiting["requests"][0];
    assert_eq!(request["tool_name"], "echo", "{waiting:#}");
    assert_eq!(request["kind"], "deferred", "{waiting:#}");
}

/// A manifest whose one MCP server exits at startup (`hostile_server.py exit`), under the
/// unavailable-tool policy `policy`; `None` when `python3` is missing (after a notice).
fn dying_server(policy: &str) -> Option<tempfile::TempDir> {
    if !python3("the failing MCP server") {
        return None;
    }
    let script = hostile_server();
    let manifest = format!(
        "version: 1\nname: dying\nmodel: {{id: test}}\nruntime: {{unavailable_tools: {policy}}}\ntoolsets:\n  - type: mcp\n    name: dies\n    command: python3\n    args: ['{}', exit]\n",
        script.display()
    );
    Some(folder(&[("agent.yaml", &manifest)]))
}

#[test]
fn a_server_that_exits_at_startup_is_reported_on_stderr_and_the_run_goes_on_under_skip() {
    let Some(dir) = dying_server("skip") else {
        return;
    };
    for json in [false, true] {
        let mut args = vec!["run", "agent.yaml", "--prompt", "go"];
        if json {
            args.push("--json");
        }
        let output = run(dir.path(), &args);
        assert_status(&output, 0);
        let errors = crate::run_cli::stderr(&output);
        assert!(
            errors.contains("toolset `dies` could not be set up")
                && errors.contains("exited with status 3")
                && errors.contains("cannot start: the config file is missing"),
            "json {json}: {errors}"
        );
        if json {
            let records = json_lines(&stdout(&output));
            let failed = events(&records)
                .into_iter()
                .find(|event| event["event"]["kind"] == "toolset_failed")
                .unwrap_or_else(|| panic!("no toolset_failed record: {records:#?}"));
            let error = failed["event"]["payload"]["error"].as_str().unwrap();
            assert!(error.contains("exited with status 3"), "{error}");
            assert!(error.contains("the config file is missing"), "{error}");
        }
    }
}

// Regression: a server that exited at startup left no tools to report as unavailable, so
// `unavailable_tools: fail_run` let the run complete without it.
#[test]
fn a_server_that_exits_at_startup_fails_the_run_under_fail_run() {
    let Some(dir) = dying_server("fail_run") else {
        return;
    };
    let output = run(dir.path(), &["run", "agent.yaml", "--prompt", "go"]);
    assert_status(&output, 1);
    let errors = crate::run_cli::stderr(&output);
    assert!(
        errors.contains("toolsets unavailable in this context: dies"),
        "{errors}"
    );
    assert!(errors.contains("FailRun"), "{errors}");
}

// The second server is a shell that starts the Python server and then sleeps: it would
// outlive the run's end of its standard input unless the run stopped its process group.
#[test]
fn the_servers_a_run_starts_answer_its_calls_and_none_outlives_the_run() {
    let label = format!("run-cli-mcp-{}", std::process::id());
    let script = hostile_server();
    let script = script.display();
    let manifest = format!(
        "version: 1
name: served
model: {{id: script, script: turns.yaml}}
toolsets:
  - type: mcp
    name: hostile
    command: python3
    args: ['{script}', normal, '{label}']
    tools: [pid, echo]
  - type: mcp
    name: wrapped
    command: sh
    args: [-c, 'python3 \"$0\" normal {label}-wrapped; sleep 60', '{script}']
    tools: [pid]
    prefix: w
"
    );
    let turns = "- calls:\n    - tool: pid\n      args: {}\n    - tool: echo\n      args: {}\n    - tool: w_pid\n      args: {}\n- answer: done\n";
    let dir = folder(&[("agent.yaml", &manifest), ("turns.yaml", turns)]);
    let output = run(
        dir.path(),
        &["run", "agent.yaml", "--json", "--prompt", "go"],
    );
    assert_status(&output, 0);
    let records = json_lines(&stdout(&output));
    let returns: Vec<&Value> = events(&records)
        .into_iter()
        .filter(|event| event["type"] == "tool_return")
        .collect();
    assert_eq!(returns.len(), 3, "{records:#?}");
    let content = |name: &str| {
        returns
            .iter()
            .find(|event| event["part"]["tool_name"] == name)
            .map(|event| event["part"]["content"].clone())
            .unwrap_or_else(|| panic!("no return of {name}: {returns:#?}"))
    };
    // The server's own answers: its label and the tool's name, and its process id.
    assert_eq!(content("echo"), Value::from(format!("{label} echo")));
    for name in ["pid", "w_pid"] {
        let pid: u32 = content(name)
            .as_str()
            .and_then(|pid| pid.parse().ok())
            .unwrap_or_else(|| panic!("{name}: {returns:#?}"));
        // The run stopped its servers: those processes are gone.
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&cmdline).contains(&label),
            "the server {name} answered from (pid {pid}) outlived `starweaver run`"
        );
    }
    // Nor anything they started: the shell still sleeping would carry the label.
    assert!(!running(&label), "a server outlived `starweaver run`");
}

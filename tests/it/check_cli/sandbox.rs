//! `shell.sandbox` through the binary: its warnings fail `--deny-warnings` and yield to an allow
//! marker, its errors exit 1, and `--explain` shows the sandbox and what it lets commands reach.

use serde_json::Value;
use starweaver::environment::{SandboxKernel, SandboxPolicy};

use super::{folder, run, stderr, stdout};

/// A local agent with read-only file tools and a shell running `git`, its `sandbox` lines
/// given.
fn reviewer(sandbox: &str) -> String {
    format!(
        "version: 1
name: reviewer
model: {{id: test}}
environment: {{type: local}}
shell:
  allow_execute: true
  allowed_programs: [git]
{sandbox}toolsets:
  - {{type: filesystem, read_only: true}}
  - {{type: shell, tools: [shell_exec]}}
"
    )
}

#[test]
fn sandbox_warnings_fail_deny_warnings_and_yield_to_an_allow_marker() {
    let cases = [
        ("", vec!["shell-can-write"]),
        (
            "  sandbox: {mode: off}\n",
            vec!["sandbox-off", "shell-can-write"],
        ),
        ("  sandbox: {mode: read-only}\n", vec![]),
    ];
    for (sandbox, rules) in cases {
        let dir = folder(&[("agent.yaml", reviewer(sandbox).as_bytes())]);
        let output = run(
            dir.path(),
            &["check", "--deny-warnings", "--format", "json", "agent.yaml"],
        );
        let found: Value = serde_json::from_str(&stdout(&output)).unwrap();
        let found: Vec<&str> = found
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["rule"].as_str().unwrap())
            .collect();
        assert_eq!(found, rules, "{sandbox}");
        let status = if rules.is_empty() { 0 } else { 1 };
        assert_eq!(output.status.code(), Some(status), "{sandbox}");
    }
    let marked =
        reviewer("  sandbox:\n    # starweaver-check: allow(sandbox-off)\n    mode: off\n")
            .replace(
                "  - {type: filesystem",
                "  # starweaver-check: allow(shell-can-write)\n  - {type: filesystem",
            );
    let dir = folder(&[("agent.yaml", marked.as_bytes())]);
    let output = run(dir.path(), &["check", "--deny-warnings", "agent.yaml"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

#[test]
fn a_sandbox_that_cannot_apply_is_an_error_with_its_fix() {
    let escaping = reviewer("  sandbox: {mode: read-only, writable: [../cache]}\n");
    let dir = folder(&[("agent.yaml", escaping.as_bytes())]);
    let output = run(dir.path(), &["check", "agent.yaml"]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("error[path-escape]"), "{text}");
    assert!(text.contains("agent.yaml:8:"), "{text}");
    assert!(
        text.contains("help: name a folder inside the environment root"),
        "{text}"
    );
    let virtual_env =
        reviewer("  sandbox: {mode: read-only}\n").replace("{type: local}", "{type: virtual}");
    let dir = folder(&[("agent.yaml", virtual_env.as_bytes())]);
    let output = run(dir.path(), &["check", "agent.yaml"]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("error[invalid-value]"), "{text}");
    assert!(text.contains("help: remove `sandbox`"), "{text}");
}

#[test]
fn explain_shows_the_sandbox_and_whether_this_kernel_enforces_it() {
    let manifest =
        reviewer("  sandbox:\n    mode: read-only\n    writable: [target]\n    read: workspace\n");
    let dir = folder(&[("agent.yaml", manifest.as_bytes())]);
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let target = root.join("target").display().to_string();
    let policy = SandboxPolicy::read_only()
        .with_writable(["target"])
        .with_reads(starweaver::environment::SandboxReads::Workspace);
    let kernel = SandboxKernel::detect();
    let output = run(
        dir.path(),
        &["check", "--explain", "--format", "json", "agent.yaml"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let value: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let shell = &value["agents"][0]["shell"];
    assert_eq!(
        shell["sandbox"],
        serde_json::json!({"mode": "read-only", "writable": [target], "network": false,
            "read": "workspace", "required": true, "enforced": kernel.enforces(&policy),
            "not_enforced": kernel.missing(&policy)})
    );
    assert_eq!(
        shell["reach"],
        serde_json::json!({"sandbox": "read-only",
            "read": {"scope": "folders", "folders": [root.display().to_string()]},
            "write": {"scope": "folders", "folders": [target]}, "network": false,
            "temporary_folder": true, "system_folders": true})
    );
    let output = run(dir.path(), &["check", "--explain", "agent.yaml"]);
    let text = stdout(&output);
    let expected = format!(
        "          sandbox: read-only, also writable: {target}, network off, reads workspace; "
    );
    assert!(text.contains(&expected), "{text}");
    if kernel.enforces(&policy) {
        assert!(text.contains("; this kernel enforces it\n"), "{text}");
    } else {
        assert!(
            text.contains("every command is refused here (it lacks "),
            "{text}"
        );
    }
    assert!(
        text.contains(&format!(
            "          reach: read-only sandbox: they read only in {}, the system folders \
             programs need and their private temporary folder, write only in {target} and \
             their private temporary folder, and cannot use the network\n",
            root.display()
        )),
        "{text}"
    );
}

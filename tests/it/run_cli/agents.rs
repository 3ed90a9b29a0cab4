//! Every manifest in `agents/` plays its script (`model: {id: script}`) through the binary, in
//! place: its shell and filesystem calls succeed, its sub-agents' included (an MCP agent's
//! calls to its server when the server is installed), every shell-carrying agent shows a command
//! that exited 0, the README's main job answers with the loader's path, and no run changes the
//! checkout.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{assert_status, json_lines, run, stdout};

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The checkout's state as git sees it (`None` in an exported tree without git).
fn git_status(root: &Path) -> Option<Vec<u8>> {
    std::process::Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=all"])
        .current_dir(root)
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| output.stdout)
}

/// The manifests of `agents/` (not the scripts beside them), by file name, sorted.
fn manifests() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repository().join("agents"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| {
            (name.ends_with(".yaml") || name.ends_with(".yml")) && !name.contains(".script.")
        })
        .collect();
    names.sort();
    names
}

/// The `tool_return` parts of a `--json` run, its sub-agents' included (a `sub_agent` event
/// carries the sub-agent's own event, nested as deep as the tree).
fn returns(records: &[Value]) -> Vec<&Value> {
    records
        .iter()
        .map(|record| {
            let mut event = &record["event"];
            while event["type"] == "sub_agent" {
                event = &event["event"];
            }
            event
        })
        .filter(|event| event["type"] == "tool_return")
        .map(|event| &event["part"])
        .collect()
}

/// The tool that ran for a return: its own name, or the one behind a proxy's `call_tool`.
fn ran(part: &Value) -> &str {
    part["metadata"]["inner_tool"]
        .as_str()
        .or_else(|| part["tool_name"].as_str())
        .unwrap_or_default()
}

/// No return of the run is a failed call.
fn assert_no_failed_call(records: &[Value], shown: &str) {
    for part in returns(records) {
        let kind = part["kind"].as_str().unwrap_or_default();
        assert!(
            !["invalid_arguments", "not_found"].contains(&kind),
            "{shown}: {part}"
        );
        assert_ne!(part["content"]["is_error"], true, "{shown}: {part}");
    }
}

#[test]
fn every_agent_plays_its_script_in_place_and_its_tool_calls_succeed() {
    const SHELL: [&str; 6] = [
        "shell_exec",
        "shell_wait",
        "shell_status",
        "shell_input",
        "shell_signal",
        "shell_kill",
    ];
    const FILES: [&str; 6] = ["ls", "read_file", "write_file", "edit_file", "glob", "grep"];
    let root = repository();
    let before = git_status(&root);
    let names = manifests();
    assert!(names.len() >= 5, "{names:?}");
    for name in &names {
        if name == crate::common::interop::MCP_AGENT
            && !crate::common::interop::everything_on_path()
        {
            continue;
        }
        let relative = format!("agents/{name}");
        let text = std::fs::read_to_string(root.join(&relative)).unwrap();
        assert!(text.contains("id: script"), "{relative} plays a script");
        let output = run(
            &root,
            &[
                "run",
                &relative,
                "--json",
                "--yes",
                "--prompt",
                "show what you can do",
            ],
        );
        assert_status(&output, 0);
        let records = json_lines(&stdout(&output));
        assert_no_failed_call(&records, &relative);
        let parts = returns(&records);
        // A call that waits for approval returns twice: waiting, then its outcome.
        let worked: Vec<&str> = parts
            .iter()
            .filter(|part| SHELL.contains(&ran(part)) || FILES.contains(&ran(part)))
            .filter(|part| part["kind"] != "approval_required")
            .map(|part| {
                assert_eq!(part["kind"], "success", "{relative}: {part}");
                ran(part)
            })
            .collect();
        if text.contains("type: mcp") {
            // An MCP server's tools stand in for the shell and the files: each call succeeded.
            let served: Vec<&&Value> = parts
                .iter()
                .filter(|part| ran(part).starts_with("ev_"))
                .collect();
            assert!(!served.is_empty(), "{relative} called no MCP tool");
            for part in served {
                assert_eq!(part["kind"], "success", "{relative}: {part}");
            }
        } else {
            assert!(
                !worked.is_empty(),
                "{relative} called no shell or file tool"
            );
        }
        let finished = records.last().unwrap();
        assert_eq!(finished["type"], "run_finished", "{relative}");
        // A text answer, or the object of an agent with `output:` (its strings templates too).
        let answer = match &finished["output"] {
            Value::String(text) => text.clone(),
            Value::Object(object) if !object.is_empty() => finished["output"].to_string(),
            _ => String::new(),
        };
        // The answer is read from the returns, not a template left as written.
        assert!(
            !answer.is_empty() && !answer.contains("{{") && !answer.contains("{%"),
            "{relative}: {answer}"
        );
        if text.contains("type: shell") {
            // The contract: a record naming `shell_exec` (here the return itself, also
            // behind `call_tool`) holds `"exit_code": 0` as a JSON number.
            let exited = parts
                .iter()
                .any(|part| ran(part) == "shell_exec" && part["content"]["exit_code"] == 0);
            assert!(exited, "{relative}: no shell_exec exited 0");
            let named = records.iter().any(|record| {
                record.to_string().contains("shell_exec")
                    && record["event"]["part"]["content"]["exit_code"].as_i64() == Some(0)
            });
            assert!(named, "{relative}: no record names shell_exec with exit 0");
        }
    }
    if let Some(before) = before {
        assert_eq!(
            git_status(&root),
            Some(before),
            "a run changed the checkout"
        );
    }
}

#[test]
fn the_main_job_finds_the_loader_with_grep_and_read_file_and_answers_with_its_path() {
    let root = repository();
    let before = git_status(&root);
    let output = run(
        &root,
        &[
            "run",
            "agents/repo-helper.yaml",
            "--json",
            "--prompt",
            "Where is the manifest loader?",
        ],
    );
    assert_status(&output, 0);
    let records = json_lines(&stdout(&output));
    assert_no_failed_call(&records, "repo-helper");
    let called: Vec<&str> = returns(&records).into_iter().map(ran).collect();
    for tool in ["grep", "read_file", "shell_exec"] {
        assert!(called.contains(&tool), "{tool} not called: {called:?}");
    }
    let finished = records
        .iter()
        .find(|record| record["type"] == "run_finished")
        .unwrap();
    let answer = finished["output"].as_str().unwrap();
    assert!(answer.contains("starweaver-config/src/load"), "{answer}");
    // The path in the answer is the one grep found, and the loader really is there.
    let grep = returns(&records)
        .into_iter()
        .find(|part| part["tool_name"] == "grep")
        .unwrap();
    let found = grep["content"]["matches"][0]["path"].as_str().unwrap();
    assert!(answer.contains(found), "{answer}");
    let source = std::fs::read_to_string(root.join(found)).unwrap();
    assert!(source.contains("pub async fn load("), "{found}");
    if let Some(before) = before {
        assert_eq!(
            git_status(&root),
            Some(before),
            "the run changed the checkout"
        );
    }
}

#[test]
fn the_readme_job_shows_one_line_per_call_and_result_then_the_answer() {
    let root = repository();
    let output = run(
        &root,
        &[
            "run",
            "agents/repo-helper.yaml",
            "--prompt",
            "Where is the manifest loader?",
        ],
    );
    assert_status(&output, 0);
    let text = stdout(&output);
    assert!(text.contains("step 1: asking the model"), "{text}");
    assert!(text.contains("→ grep"), "{text}");
    assert!(text.contains("→ read_file"), "{text}");
    // One line per tool result, cut to its first 80 characters of content.
    let results: Vec<&str> = text.lines().filter(|line| line.contains("← ")).collect();
    assert_eq!(results.len(), 3, "{text}");
    for line in &results {
        assert!(line.contains(" success: "), "{line}");
        let content = line.split_once(" success: ").unwrap().1;
        assert!(content.chars().count() <= 81, "{line}");
    }
    assert!(
        text.contains("The manifest loader is `load` in starweaver-config/src/load/"),
        "{text}"
    );
    assert!(
        text.trim_end()
            .lines()
            .last()
            .unwrap()
            .starts_with("usage: "),
        "{text}"
    );
}

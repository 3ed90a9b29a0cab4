//! A tree of manifests through `starweaver run`: `lead` hands work to `helper` and `release`
//! in one step; `release` hands it on to `deployer`, whose `write_file` needs approval. The
//! approval two levels down is answered with `--yes`, at a terminal, through `--save` and
//! `--resume`, and through a run store; `--json` lines carry the agent path and the usage of
//! the whole tree; the same tree runs on the `test` model.

use std::path::Path;
use std::time::Duration;

use expectrl::Expect;
use serde_json::Value;

use crate::run_cli::{assert_status, folder, json_lines, run, stdout};

/// The tree on script models (or, with `test`, on the `test` model).
fn tree(test_model: bool) -> tempfile::TempDir {
    let model = |script: &str| {
        if test_model {
            "{id: test}".to_string()
        } else {
            format!("{{id: script, script: {script}}}")
        }
    };
    let lead = format!(
        "version: 1\nname: lead\nmodel: {}\ninstructions: Delegate.\ntoolsets:\n  - type: agents\n    \
         name: team\n    agents:\n      - path: helper.yaml\n      - path: release.yaml\n",
        model("lead.script.yaml")
    );
    let helper = format!(
        "version: 1\nname: helper\ndescription: Checks the build.\nmodel: {}\ninstructions: Check.\n",
        model("helper.script.yaml")
    );
    let release = format!(
        "version: 1\nname: release\ndescription: Releases the build.\nmodel: {}\n\
         instructions: Release.\ntoolsets:\n  - type: agents\n    name: crew\n    agents:\n      \
         - path: deployer.yaml\n",
        model("release.script.yaml")
    );
    let deployer = format!(
        "version: 1\nname: deployer\ndescription: Deploys the build.\nmodel: {}\n\
         instructions: Deploy.\nenvironment: {{type: local, root: .}}\ntoolsets:\n  - type: filesystem\n    \
         tools: [write_file]\n    approval_required: [write_file]\n",
        model("deployer.script.yaml")
    );
    folder(&[
        ("lead.yaml", &lead),
        ("helper.yaml", &helper),
        ("release.yaml", &release),
        ("deployer.yaml", &deployer),
        (
            "lead.script.yaml",
            "- calls:\n    - {tool: helper, args: {task: check build 42}}\n    \
             - {tool: release, args: {task: release build 42}}\n\
             - answer: \"Checked and released: {{ calls[1].result }}\"\n",
        ),
        ("helper.script.yaml", "- answer: Build 42 passes.\n"),
        (
            "release.script.yaml",
            "- calls:\n    - {tool: deployer, args: {task: deploy build 42}}\n\
             - answer: \"Released ({{ calls[0].result }})\"\n",
        ),
        (
            "deployer.script.yaml",
            "- calls:\n    - {tool: write_file, args: {path: deployed.txt, content: build 42}}\n\
             - answer: Deployed.\n",
        ),
    ])
}

fn deployed(dir: &Path) -> bool {
    dir.join("deployed.txt").exists()
}

/// The `run_finished` record of `--json` output, and every record before it.
fn finished(output: &std::process::Output) -> (Value, Vec<Value>) {
    let mut lines = json_lines(&stdout(output));
    let last = lines.pop().unwrap();
    assert_eq!(last["type"], "run_finished", "{last}");
    (last, lines)
}

#[test]
fn yes_approves_a_call_two_levels_down_and_json_lines_name_the_agent_path() {
    let dir = tree(false);
    let output = run(
        dir.path(),
        &[
            "run",
            "lead.yaml",
            "--prompt",
            "Ship build 42",
            "--yes",
            "--json",
        ],
    );
    assert_status(&output, 0);
    assert!(deployed(dir.path()));
    let (finished, records) = finished(&output);
    assert_eq!(
        finished["output"],
        "Checked and released: Released (Deployed.)"
    );
    // lead 2 requests, helper 1, release 2, deployer 2.
    assert_eq!(finished["usage"]["requests"], 7, "{finished}");
    assert!(finished["usage"]["input_tokens"].as_u64().unwrap() > 0);
    let deep: Vec<&Value> = records
        .iter()
        .filter(|record| record["event"]["type"] == "sub_agent")
        .filter(|record| record["event"]["agent"] == serde_json::json!(["release", "deployer"]))
        .collect();
    assert!(
        deep.iter()
            .any(|record| record["event"]["event"]["type"] == "tool_call"
                && record["event"]["event"]["call"]["name"] == "write_file"),
        "{deep:#?}"
    );
    assert!(records.iter().any(|record| {
        record["event"]["type"] == "sub_agent"
            && record["event"]["agent"] == serde_json::json!(["helper"])
            && record["event"]["event"]["type"] == "run_completed"
    }));
}

#[test]
fn without_a_terminal_the_deep_call_is_denied_and_never_runs() {
    let dir = tree(false);
    let output = run(
        dir.path(),
        &["run", "lead.yaml", "--prompt", "Ship build 42"],
    );
    assert_status(&output, 0);
    assert!(!deployed(dir.path()), "ran unapproved");
    let text = stdout(&output);
    assert!(
        text.contains("write_file (in release › deployer) denied"),
        "{text}"
    );
}

#[test]
fn a_deep_approval_is_saved_and_approved_on_resume() {
    let dir = tree(false);
    let first = run(
        dir.path(),
        &[
            "run",
            "lead.yaml",
            "--prompt",
            "Ship build 42",
            "--save",
            "run.json",
            "--json",
        ],
    );
    assert_status(&first, 3);
    assert!(!deployed(dir.path()));
    let (waiting, _) = finished(&first);
    let pending = waiting["pending"].as_array().unwrap();
    assert_eq!(pending.len(), 1, "{waiting}");
    assert_eq!(pending[0]["tool_name"], "write_file");
    assert_eq!(
        pending[0]["agent"],
        serde_json::json!(["release", "deployer"])
    );
    let id = pending[0]["tool_call_id"].as_str().unwrap();
    assert_eq!(id.matches('/').count(), 2, "{id}");
    let resumed = run(dir.path(), &["run", "--resume", "run.json", "--yes"]);
    assert_status(&resumed, 0);
    assert!(deployed(dir.path()));
    assert!(
        stdout(&resumed).contains("Checked and released: Released (Deployed.)"),
        "{}",
        stdout(&resumed)
    );
}

#[test]
fn a_deep_approval_is_asked_at_the_terminal_naming_the_sub_agent() {
    let dir = tree(false);
    let mut command = crate::common::starweaver_binary();
    command
        .current_dir(dir.path())
        .env("TERM", "xterm-256color")
        .env("NO_COLOR", "1")
        .args(["run", "lead.yaml", "--prompt", "Ship build 42"]);
    let mut session = expectrl::Session::spawn(command).unwrap();
    // Generous: the machine is shared; this only guards against hangs.
    session.set_expect_timeout(Some(Duration::from_secs(60)));
    session
        .expect("write_file (in release › deployer)")
        .unwrap();
    session.expect("Approve").unwrap();
    // Approve is the first choice.
    session.send("\r").unwrap();
    session
        .expect("Checked and released: Released (Deployed.)")
        .unwrap();
    session.expect(expectrl::Eof).unwrap();
    assert!(deployed(dir.path()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_store_keeps_the_deep_request_and_a_decision_from_another_process_resumes_it() {
    use crate::workers::{run as store_run, Target};
    let dir = tree(false);
    let target = Target::sqlite(dir.path());
    let url = target.url();
    let first = store_run(
        dir.path(),
        &url,
        &["run", "lead.yaml", "--prompt", "Ship build 42"],
    );
    assert_eq!(first.status.code(), Some(3), "{first:?}");
    let listed: Value =
        serde_json::from_slice(&store_run(dir.path(), &url, &["runs", "list", "--json"]).stdout)
            .unwrap();
    let id = listed[0]["id"].as_str().unwrap().to_string();
    let shown: Value = serde_json::from_slice(
        &store_run(dir.path(), &url, &["runs", "show", &id, "--json"]).stdout,
    )
    .unwrap();
    let call = shown["pending"][0]["tool_call_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(shown["pending"][0]["tool_name"], "write_file", "{shown}");
    let approved = store_run(dir.path(), &url, &["runs", "approve", &id, &call]);
    assert!(approved.status.success(), "{approved:?}");
    let resumed = store_run(dir.path(), &url, &["runs", "resume", &id, "--agents", "."]);
    assert_eq!(resumed.status.code(), Some(0), "{resumed:?}");
    assert!(deployed(dir.path()));
}

#[test]
fn the_tree_runs_on_the_test_model() {
    let dir = tree(true);
    let output = run(
        dir.path(),
        &[
            "run",
            "lead.yaml",
            "--prompt",
            "Ship build 42",
            "--yes",
            "--json",
        ],
    );
    assert_status(&output, 0);
    let (finished, records) = finished(&output);
    assert_eq!(finished["status"], "completed");
    // The test model calls every tool it is offered: both sub-agents, and the deployer's
    // write.
    for path in [vec!["helper"], vec!["release"], vec!["release", "deployer"]] {
        assert!(
            records
                .iter()
                .any(|record| record["event"]["type"] == "sub_agent"
                    && record["event"]["agent"] == serde_json::json!(path)),
            "{path:?}"
        );
    }
    assert!(
        finished["usage"]["requests"].as_u64().unwrap() >= 7,
        "{finished}"
    );
}

/// Regression: a sub-agent's tool-search preloads were lost, since each call starts a session
/// of its own; a preloaded tool must be callable from the sub-agent's first step.
#[test]
fn a_sub_agents_preloaded_search_tool_is_callable_from_its_first_step() {
    let dir = folder(&[
        (
            "lead.yaml",
            "version: 1\nname: lead\nmodel: {id: script, script: lead.script.yaml}\ntoolsets:\n  \
             - type: agents\n    name: team\n    agents:\n      - path: finder.yaml\n",
        ),
        (
            "lead.script.yaml",
            "- calls:\n    - {tool: finder, args: {task: find the marker}}\n- answer: done\n",
        ),
        (
            "finder.yaml",
            "version: 1\nname: finder\ndescription: Finds things.\n\
             model: {id: script, script: finder.script.yaml}\nenvironment: {type: local, root: .}\n\
             toolsets:\n  - type: filesystem\n    name: code\n    read_only: true\n  \
             - type: search\n    name: lookup\n    toolsets: [code]\n    preload: [grep]\n",
        ),
        (
            "finder.script.yaml",
            "- calls:\n    - {tool: grep, args: {pattern: MARKER-7}}\n- answer: found\n",
        ),
        ("notes.txt", "MARKER-7 is here\n"),
    ]);
    let output = run(
        dir.path(),
        &["run", "lead.yaml", "--prompt", "Find it", "--json"],
    );
    assert_status(&output, 0);
    let (_, records) = finished(&output);
    let grep_return = records
        .iter()
        .find(|record| {
            record["event"]["type"] == "sub_agent"
                && record["event"]["event"]["type"] == "tool_return"
                && record["event"]["event"]["part"]["tool_name"] == "grep"
        })
        .expect("the finder's grep returned");
    assert_eq!(
        grep_return["event"]["event"]["part"]["kind"], "success",
        "{grep_return}"
    );
}

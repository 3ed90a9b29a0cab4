//! Journaled runs of an agent with an output schema: `run` with a store and `submit` with a
//! `worker` keep the validated object, and `runs show --json` has it as `output` (the model's
//! text as `text`), while a text run's `output` stays its text; on SQLite and, when a test
//! server is set, on PostgreSQL.

use serde_json::{json, Value};

use crate::run_cli::folder;
use crate::workers::{run, settled, worker, Target};

const SHAPED: &str = "version: 1\nname: shaped\nmodel: {id: script, script: shaped.script.yaml}\noutput:\n  schema:\n    type: object\n    properties:\n      severity: { enum: [low, high] }\n      summary: { type: string }\n    required: [severity, summary]\n";

const ANSWER: &str =
    "- calls:\n    - tool: final_answer\n      args: { severity: high, summary: stored }\n";

const TEXT: &str = "version: 1\nname: plain\nmodel: {id: script, script: plain.script.yaml}\n";

fn dir() -> tempfile::TempDir {
    folder(&[
        ("shaped.yaml", SHAPED),
        ("shaped.script.yaml", ANSWER),
        ("plain.yaml", TEXT),
        ("plain.script.yaml", "- answer: just text\n"),
    ])
}

fn expected() -> Value {
    json!({"severity": "high", "summary": "stored"})
}

/// `runs show ID --json` for the only run of `agent` in the store.
fn shown(dir: &std::path::Path, url: &str, agent: &str) -> Value {
    let listed = run(dir, url, &["runs", "list", "--json"]);
    assert!(listed.status.success(), "{listed:?}");
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let id = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["agent"] == agent)
        .unwrap_or_else(|| panic!("no run of {agent}: {listed}"))["id"]
        .as_str()
        .unwrap()
        .to_string();
    let output = run(dir, url, &["runs", "show", &id, "--json"]);
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

async fn run_with_a_store(target: Target, dir: &tempfile::TempDir) {
    let url = target.url();
    let output = run(
        dir.path(),
        &url,
        &["run", "shaped.yaml", "--prompt", "triage"],
    );
    assert!(output.status.success(), "{output:?}");
    let output = run(dir.path(), &url, &["run", "plain.yaml", "--prompt", "hi"]);
    assert!(output.status.success(), "{output:?}");

    let shaped = shown(dir.path(), &url, "shaped");
    assert_eq!(shaped["status"], "finished");
    assert_eq!(shaped["output"], expected(), "{shaped}");
    assert!(shaped["text"].is_string(), "{shaped}");
    let plain = shown(dir.path(), &url, "plain");
    assert_eq!(plain["output"], "just text", "{plain}");
    assert!(plain.get("text").is_none(), "{plain}");

    // The text view shows the object too.
    let id = shaped["id"].as_str().unwrap();
    let text = run(dir.path(), &url, &["runs", "show", id]);
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    assert!(
        text.contains(r#"output: {"severity":"high","summary":"stored"}"#),
        "{text}"
    );
    target.remove().await;
}

async fn submitted_to_a_worker(target: Target, dir: &tempfile::TempDir) {
    let url = target.url();
    let submitted = run(
        dir.path(),
        &url,
        &["submit", "shaped.yaml", "--prompt", "triage"],
    );
    assert!(submitted.status.success(), "{submitted:?}");
    let output = worker(dir.path(), &url, &["--exit-when-idle"])
        .wait_with_output()
        .unwrap();
    let reports = settled(&output);
    assert_eq!(reports[0]["settled"], "finished", "{reports:?}");
    let shaped = shown(dir.path(), &url, "shaped");
    assert_eq!(shaped["output"], expected(), "{shaped}");
    // The store itself holds the object, as a host reading it sees it.
    let store = target.open().await;
    let runs = store.list().await.unwrap();
    assert_eq!(runs[0].structured_output, Some(expected()));
    target.remove().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_with_a_store_keeps_the_object_and_runs_show_has_it_as_output_on_sqlite() {
    let dir = dir();
    run_with_a_store(Target::sqlite(dir.path()), &dir).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_with_a_store_keeps_the_object_and_runs_show_has_it_as_output_on_postgres() {
    let Some(target) = Target::postgres().await else {
        return;
    };
    let dir = dir();
    run_with_a_store(target, &dir).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_stores_the_object_of_a_submitted_run_on_sqlite() {
    let dir = dir();
    submitted_to_a_worker(Target::sqlite(dir.path()), &dir).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_stores_the_object_of_a_submitted_run_on_postgres() {
    let Some(target) = Target::postgres().await else {
        return;
    };
    let dir = dir();
    submitted_to_a_worker(target, &dir).await;
}

//! A run that waits for approval, approved from another process: `starweaver run --store`
//! leaves it waiting (exit 3), `starweaver runs approve` records the decision, and
//! `starweaver runs resume` (or a worker) continues it to its answer.

use super::{finish_with_workers, finished, lines, run, sh_turn, shell_manifest, stored, Target};
use crate::run_cli::folder;

fn gated_folder() -> tempfile::TempDir {
    let script = format!("{}- answer: done\n", sh_turn("echo ran >> count.txt"));
    folder(&[
        (
            "gated.yaml",
            &shell_manifest(
                "gated",
                "gated.script.yaml",
                "    approval_required: true\n",
            ),
        ),
        ("gated.script.yaml", &script),
    ])
}

fn json(output: &std::process::Output) -> serde_json::Value {
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Runs until the approval, approves it from a second process, and returns the run's id.
async fn waits_then_approved(dir: &std::path::Path, target: &Target) -> starweaver::RunId {
    let url = target.url();
    let first = run(dir, &url, &["run", "gated.yaml", "--prompt", "go"]);
    assert_eq!(first.status.code(), Some(3), "{first:?}");
    assert_eq!(lines(dir, "count.txt"), 0, "not run unapproved");
    let listed = json(&run(dir, &url, &["runs", "list", "--json"]));
    let runs = listed.as_array().unwrap();
    assert_eq!(runs.len(), 1, "{listed}");
    assert_eq!(runs[0]["status"], "waiting");
    let id = runs[0]["id"].as_str().unwrap().to_string();
    let shown = json(&run(dir, &url, &["runs", "show", &id, "--json"]));
    let pending = shown["pending"].as_array().unwrap();
    assert_eq!(pending.len(), 1, "{shown}");
    assert_eq!(pending[0]["tool_name"], "shell_exec");
    let call = pending[0]["tool_call_id"].as_str().unwrap().to_string();
    let approved = run(dir, &url, &["runs", "approve", &id, &call]);
    assert!(approved.status.success(), "{approved:?}");
    let store = target.open().await;
    let id = starweaver::RunId::new(id);
    assert_eq!(
        stored(&store, &id).await.status,
        starweaver::runs::RunStatus::Queued
    );
    id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_approved_from_another_process_is_resumed_and_finishes_on_sqlite() {
    let dir = gated_folder();
    let target = Target::sqlite(dir.path());
    let id = waits_then_approved(dir.path(), &target).await;
    let resumed = run(
        dir.path(),
        &target.url(),
        &["runs", "resume", id.as_str(), "--agents", "."],
    );
    assert_eq!(resumed.status.code(), Some(0), "{resumed:?}");
    let store = target.open().await;
    let done = stored(&store, &id).await;
    assert!(finished(&done), "{done:?}");
    assert_eq!(done.output.as_deref(), Some("done"));
    assert_eq!(lines(dir.path(), "count.txt"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_approved_from_another_process_is_finished_by_a_worker_on_postgres() {
    let Some(target) = Target::postgres().await else {
        return;
    };
    let dir = gated_folder();
    let id = waits_then_approved(dir.path(), &target).await;
    let done = finish_with_workers(dir.path(), &target, &id).await;
    assert!(finished(&done), "{done:?}");
    assert_eq!(lines(dir.path(), "count.txt"), 1);
    target.remove().await;
}

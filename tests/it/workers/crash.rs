//! Workers that die, pause and race: a run is finished by another worker, every call whose
//! return was journaled ran once, and a worker that lost its lease writes nothing.

use std::time::Duration;

use super::{
    finish_with_workers, finished, kill_group_in, lines, settled, sh_turn, shell_manifest, signal,
    stored, submit, until, worker, Target,
};
use crate::run_cli::folder;

/// Step 1 counts; step 2 records its process group and, the first time only, sleeps.
fn counter_folder() -> tempfile::TempDir {
    let script = format!(
        "{}{}- answer: done\n",
        sh_turn("echo ran >> count.txt"),
        sh_turn(
            "echo $$ > slow.pid; if [ -e second ]; then echo again; else touch second; sleep 60; fi"
        ),
    );
    folder(&[
        (
            "counter.yaml",
            &shell_manifest("counter", "counter.script.yaml", ""),
        ),
        ("counter.script.yaml", &script),
    ])
}

async fn killed_after_a_journaled_return(target: Target) {
    let dir = counter_folder();
    let store = target.open().await;
    let id = submit(&store, "counter").await;
    let mut first = worker(dir.path(), &target.url(), &["--lease-ms", "1000"]);
    // Step 2 runs once step 1's return is journaled.
    until("step 2 started", async || {
        dir.path().join("second").exists()
    })
    .await;
    let journal = store.journal(&id).await.unwrap();
    assert!(
        journal
            .iter()
            .any(|entry| entry.step == 1 && !entry.call_id.is_empty()),
        "step 1's return is journaled: {journal:?}"
    );
    signal(&first, "-KILL");
    let _ = first.wait();
    kill_group_in(dir.path(), "slow.pid");

    let run = finish_with_workers(dir.path(), &target, &id).await;
    assert!(finished(&run), "{run:?}");
    assert_eq!(run.output.as_deref(), Some("done"));
    assert_eq!(
        lines(dir.path(), "count.txt"),
        1,
        "the journaled call ran once"
    );
    target.remove().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_killed_after_a_journaled_return_is_finished_by_another_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    killed_after_a_journaled_return(Target::sqlite(dir.path())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_killed_after_a_journaled_return_is_finished_by_another_on_postgres() {
    let Some(target) = Target::postgres().await else {
        return;
    };
    killed_after_a_journaled_return(target).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_worker_loses_its_lease_and_writes_nothing_when_continued() {
    let Some(target) = Target::postgres().await else {
        return;
    };
    // Step 2 sleeps two seconds the first time: long enough to pause its worker in it.
    let script = format!(
        "{}{}- answer: done\n",
        sh_turn("echo ran >> count.txt"),
        sh_turn("if [ -e second ]; then echo again; else touch second; sleep 2; fi"),
    );
    let dir = folder(&[
        (
            "pause.yaml",
            &shell_manifest("pause", "pause.script.yaml", ""),
        ),
        ("pause.script.yaml", &script),
    ]);
    let store = target.open().await;
    let id = submit(&store, "pause").await;
    let first = worker(
        dir.path(),
        &target.url(),
        &["--lease-ms", "1000", "--exit-when-idle"],
    );
    until("step 2 started", async || {
        dir.path().join("second").exists()
    })
    .await;
    signal(&first, "-STOP");
    // The lease lapses; another worker finishes the run.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let run = finish_with_workers(dir.path(), &target, &id).await;
    assert!(finished(&run), "{run:?}");
    let journal = store.journal(&id).await.unwrap();
    let before = stored(&store, &id).await;

    signal(&first, "-CONT");
    let output = first.wait_with_output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let lines_out = settled(&output);
    assert_eq!(lines_out.len(), 1, "{lines_out:?}");
    assert_eq!(lines_out[0]["settled"], "lost", "{lines_out:?}");
    assert_eq!(store.journal(&id).await.unwrap(), journal, "no journal row");
    assert_eq!(stored(&store, &id).await, before, "no write at all");
    assert_eq!(lines(dir.path(), "count.txt"), 1);
    target.remove().await;
}

async fn two_workers_race(target: Target) {
    let script = format!("{}- answer: done\n", sh_turn("echo ran >> count.txt"));
    let dir = folder(&[
        ("race.yaml", &shell_manifest("race", "race.script.yaml", "")),
        ("race.script.yaml", &script),
    ]);
    let store = target.open().await;
    let id = submit(&store, "race").await;
    let args = ["--exit-when-idle", "--poll-ms", "10"];
    let first = worker(dir.path(), &target.url(), &args);
    let second = worker(dir.path(), &target.url(), &args);
    let outputs = [
        first.wait_with_output().unwrap(),
        second.wait_with_output().unwrap(),
    ];
    let reports: Vec<serde_json::Value> = outputs.iter().flat_map(settled).collect();
    assert_eq!(reports.len(), 1, "exactly one worker ran it: {reports:?}");
    assert_eq!(reports[0]["settled"], "finished");
    assert!(finished(&stored(&store, &id).await));
    assert_eq!(lines(dir.path(), "count.txt"), 1);
    target.remove().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn of_two_workers_racing_for_one_run_exactly_one_runs_it_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    two_workers_race(Target::sqlite(dir.path())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn of_two_workers_racing_for_one_run_exactly_one_runs_it_on_postgres() {
    let Some(target) = Target::postgres().await else {
        return;
    };
    two_workers_race(target).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_runs_across_four_workers_each_finish_exactly_once() {
    let Some(target) = Target::postgres().await else {
        return;
    };
    let script = "- calls:\n    - tool: shell_exec\n      args: { program: echo, args: [ran] }\n- answer: done\n";
    let dir = folder(&[
        ("many.yaml", &shell_manifest("many", "many.script.yaml", "")),
        ("many.script.yaml", script),
    ]);
    let store = target.open().await;
    let mut ids = Vec::new();
    for _ in 0..200 {
        ids.push(submit(&store, "many").await);
    }
    let workers: Vec<_> = (0..4)
        .map(|_| {
            worker(
                dir.path(),
                &target.url(),
                &["--exit-when-idle", "--poll-ms", "10"],
            )
        })
        .collect();
    let mut settled_runs = Vec::new();
    for child in workers {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{output:?}");
        settled_runs.extend(settled(&output));
    }
    let mut ran: Vec<String> = settled_runs
        .iter()
        .map(|line| {
            assert_eq!(line["settled"], "finished", "{line}");
            line["run"].as_str().unwrap().to_string()
        })
        .collect();
    ran.sort();
    let mut expected: Vec<String> = ids.iter().map(|id| id.as_str().to_string()).collect();
    expected.sort();
    assert_eq!(ran, expected, "every run once, none lost or run twice");
    for id in &ids {
        assert!(finished(&stored(&store, id).await));
    }
    target.remove().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_gives_a_workers_run_back_to_the_queue_and_another_worker_finishes_it() {
    let dir = counter_folder();
    let target = Target::sqlite(dir.path());
    let store = target.open().await;
    let id = submit(&store, "counter").await;
    let first = worker(dir.path(), &target.url(), &[]);
    until("step 2 started", async || {
        dir.path().join("second").exists()
    })
    .await;
    signal(&first, "-TERM");
    let output = first.wait_with_output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let reports = settled(&output);
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0]["settled"], "released", "{reports:?}");
    assert_eq!(
        stored(&store, &id).await.status,
        starweaver::runs::RunStatus::Queued
    );
    // Its command was stopped with it: nothing it started outlives the worker.
    let pid = std::fs::read_to_string(dir.path().join("slow.pid")).unwrap();
    assert!(
        !std::path::Path::new(&format!("/proc/{}", pid.trim())).exists(),
        "the step's command outlived its worker"
    );
    let run = finish_with_workers(dir.path(), &target, &id).await;
    assert!(finished(&run), "{run:?}");
    assert_eq!(
        lines(dir.path(), "count.txt"),
        1,
        "the journaled call ran once"
    );
}

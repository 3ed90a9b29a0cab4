//! The store-facing commands as scripts use them: `submit` prints the id alone, `runs list`
//! and `runs show` print stable JSON, answers reach only the calls a run waits for, secrets
//! never reach the store, and a store that cannot be opened fails at once with its URL masked.

use std::time::{Duration, Instant};

use super::{run, sh_turn, shell_manifest, Target};
use crate::run_cli::folder;

fn json(output: &std::process::Output) -> serde_json::Value {
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A manifest with a secret variable and an approval-gated shell call.
fn secret_folder() -> tempfile::TempDir {
    let script = format!("{}- answer: done\n", sh_turn("echo ran >> count.txt"));
    let manifest = shell_manifest("keeper", "keeper.script.yaml", "    approval_required: true\n")
        .replace(
            "runtime:",
            "vars:\n  tone: plain\n  api_token: none\ninstructions: \"Answer {{ vars.tone }}.\"\nruntime:",
        );
    folder(&[("keeper.yaml", &manifest), ("keeper.script.yaml", &script)])
}

const SECRET: &str = "sekrit-value-123456";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn submit_prints_the_id_alone_and_list_and_show_are_stable_json() {
    let dir = secret_folder();
    let target = Target::sqlite(dir.path());
    let url = target.url();
    let token = format!("api_token={SECRET}");
    let submitted = run(
        dir.path(),
        &url,
        &[
            "submit",
            "keeper.yaml",
            "--prompt",
            "go",
            "--var",
            "tone=short",
            "--var",
            &token,
        ],
    );
    assert!(submitted.status.success(), "{submitted:?}");
    let stdout = text(&submitted.stdout);
    let id = stdout.trim_end_matches('\n');
    assert_eq!(stdout, format!("{id}\n"), "the id alone");
    assert!(!id.is_empty() && !id.contains(char::is_whitespace));

    let listed = json(&run(dir.path(), &url, &["runs", "list", "--json"]));
    let runs = listed.as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let entry = &runs[0];
    assert_eq!(entry["id"], id);
    assert_eq!(entry["agent"], "keeper");
    assert_eq!(entry["status"], "queued");
    assert!(
        entry["created_at"].as_str().unwrap().ends_with('Z'),
        "{entry}"
    );
    assert!(entry["updated_at"].is_string());

    let shown = run(dir.path(), &url, &["runs", "show", id, "--json"]);
    let value = json(&shown);
    assert_eq!(value["vars"]["tone"], "short");
    assert_eq!(value["vars"]["api_token"], "***");
    assert_eq!(value["pending"], serde_json::json!([]));
    assert_eq!(value["output"], serde_json::Value::Null);
    std::thread::sleep(Duration::from_millis(1_100));
    let again = run(dir.path(), &url, &["runs", "show", id, "--json"]);
    assert_eq!(shown.stdout, again.stdout, "nothing clock-relative");

    // The secret is in no byte of the store.
    for name in ["runs.db", "runs.db-wal"] {
        if let Ok(bytes) = std::fs::read(dir.path().join(name)) {
            assert!(!text(&bytes).contains(SECRET), "{name} holds the secret");
        }
    }

    // A worker without the secret fails the run, naming it.
    let output = super::worker(dir.path(), &url, &["--exit-when-idle"])
        .wait_with_output()
        .unwrap();
    let reports = super::settled(&output);
    assert_eq!(reports[0]["settled"], "failed", "{reports:?}");
    assert!(
        reports[0]["message"]
            .as_str()
            .unwrap()
            .contains("`api_token`"),
        "{reports:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_reach_only_the_calls_a_run_waits_for() {
    let dir = secret_folder();
    let target = Target::sqlite(dir.path());
    let url = target.url();
    let first = run(dir.path(), &url, &["run", "keeper.yaml", "--prompt", "go"]);
    assert_eq!(first.status.code(), Some(3), "{first:?}");
    let listed = json(&run(dir.path(), &url, &["runs", "list", "--json"]));
    let id = listed[0]["id"].as_str().unwrap().to_string();
    let shown = json(&run(dir.path(), &url, &["runs", "show", &id, "--json"]));
    let call = shown["pending"][0]["tool_call_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(shown["pending"][0]["request_kind"], "tool_approval");

    let unknown = run(dir.path(), &url, &["runs", "approve", &id, "no-such-call"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(
        text(&unknown.stderr).contains("no-such-call"),
        "{unknown:?}"
    );
    let bad = run(
        dir.path(),
        &url,
        &["runs", "answer", &id, &call, "{not json"],
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("not JSON"), "{bad:?}");
    let wrong = run(dir.path(), &url, &["runs", "answer", &id, &call, "\"yes\""]);
    assert_eq!(
        wrong.status.code(),
        Some(2),
        "an approval is approved, not answered"
    );
    assert!(text(&wrong.stderr).contains("runs approve"), "{wrong:?}");

    let denied = json(&run(
        dir.path(),
        &url,
        &[
            "runs",
            "approve",
            &id,
            &call,
            "--deny",
            "not today",
            "--json",
        ],
    ));
    assert_eq!(denied["status"], "queued");
    let resumed = run(dir.path(), &url, &["runs", "resume", &id, "--agents", "."]);
    assert_eq!(resumed.status.code(), Some(0), "{resumed:?}");
    assert_eq!(
        super::lines(dir.path(), "count.txt"),
        0,
        "denied: never ran"
    );
    let done = json(&run(dir.path(), &url, &["runs", "show", &id, "--json"]));
    assert_eq!(done["status"], "finished");
    assert_eq!(done["output"], "done");

    let late = run(dir.path(), &url, &["runs", "cancel", &id]);
    assert_eq!(
        late.status.code(),
        Some(1),
        "a finished run is not cancelled"
    );
    let unknown_run = run(dir.path(), &url, &["runs", "show", "nope", "--json"]);
    assert_eq!(unknown_run.status.code(), Some(1));
    assert!(text(&unknown_run.stderr).contains("nope"));
}

#[test]
fn a_store_that_cannot_be_opened_fails_at_once_with_its_password_masked() {
    let dir = tempfile::tempdir().unwrap();
    let url = "postgres://sw:hunter2-secret@127.0.0.1:1/nope";
    for args in [
        &["runs", "list"][..],
        &["worker", "--agents", "."][..],
        &["submit", "x.yaml", "--prompt", "go"][..],
    ] {
        let started = Instant::now();
        let output = run(dir.path(), url, args);
        assert!(started.elapsed() < Duration::from_secs(30), "{args:?}");
        assert_eq!(output.status.code(), Some(1), "{args:?}: {output:?}");
        let all = format!("{}{}", text(&output.stdout), text(&output.stderr));
        assert!(all.contains("postgres://sw:***@127.0.0.1:1/nope"), "{all}");
        assert!(!all.contains("hunter2"), "{all}");
    }
    let nowhere = run(
        dir.path(),
        "sqlite:/nonexistent-dir/deeper/runs.db",
        &["runs", "list"],
    );
    assert_eq!(nowhere.status.code(), Some(1), "{nowhere:?}");
    assert!(text(&nowhere.stderr).contains("/nonexistent-dir/deeper/runs.db"));

    let mut none = crate::common::starweaver_binary();
    let output = none
        .current_dir(dir.path())
        .env_remove("STARWEAVER_STORE")
        .args(["runs", "list"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("STARWEAVER_STORE"),
        "{output:?}"
    );
}

//! `--json`: one JSON object per line, the run's records then one `run_finished` record.

use super::{assert_status, folder, json_lines, run, run_with_stdin, stdout, APPROVAL};

#[test]
fn every_line_parses_and_the_last_is_the_finished_record() {
    let dir = folder(&[("careful.yaml", APPROVAL)]);
    let output = run(
        dir.path(),
        &["run", "careful.yaml", "--json", "--yes", "--prompt", "list"],
    );
    assert_status(&output, 0);
    let lines = json_lines(&stdout(&output));
    let (last, records) = lines.split_last().unwrap();
    assert_eq!(last["type"], "run_finished");
    assert_eq!(last["status"], "completed");
    assert_eq!(last["exit_code"], 0);
    assert!(last["output"].as_str().unwrap().contains("ls"), "{last}");
    assert_eq!(last["usage"]["requests"], 2);
    let types: Vec<&str> = records
        .iter()
        .map(|r| r["event"]["type"].as_str().unwrap())
        .collect();
    assert_eq!(types.first(), Some(&"run_started"));
    for wanted in [
        "model_request",
        "tool_call",
        "tool_return",
        "waiting",
        "run_completed",
    ] {
        assert!(types.contains(&wanted), "{wanted} missing from {types:?}");
    }
    let sequences: Vec<u64> = records
        .iter()
        .map(|r| r["sequence"].as_u64().unwrap())
        .collect();
    assert!(sequences.windows(2).all(|w| w[0] < w[1]), "{sequences:?}");
}

#[test]
fn a_waiting_run_ends_with_its_pending_calls() {
    let dir = folder(&[("careful.yaml", APPROVAL)]);
    let output = run(
        dir.path(),
        &[
            "run",
            "careful.yaml",
            "--json",
            "--save",
            "run.json",
            "--prompt",
            "list",
        ],
    );
    assert_status(&output, 3);
    let lines = json_lines(&stdout(&output));
    let last = lines.last().unwrap();
    assert_eq!(last["status"], "waiting");
    assert_eq!(last["exit_code"], 3);
    assert_eq!(last["pending"][0]["tool_name"], "ls");
    assert_eq!(last["pending"][0]["request_kind"], "tool_approval");
    assert_eq!(last["saved_to"], "run.json");
}

#[test]
fn the_prompt_comes_from_standard_input_within_a_bound() {
    let dir = folder(&[("plain.yaml", "version: 1\nname: plain\nmodel: {id: test}\n")]);
    let output = run_with_stdin(
        dir.path(),
        &["run", "plain.yaml", "--json"],
        b"from the pipe\n",
    );
    assert_status(&output, 0);
    let lines = json_lines(&stdout(&output));
    assert_eq!(
        lines.last().unwrap()["output"],
        "test model reply to: from the pipe"
    );
    let big = vec![b'a'; 1024 * 1024 + 1];
    let output = run_with_stdin(dir.path(), &["run", "plain.yaml"], &big);
    assert_status(&output, 2);
    assert!(super::stderr(&output).contains("longer than 1048576 bytes"));
}

//! `starweaver run` with an output schema: `--json` ends with `run_finished` carrying the
//! validated object, plain mode prints it pretty, and a run whose answers stay invalid fails
//! with exit 1, the error naming the field and the schema error.

use serde_json::json;

use crate::run_cli::{assert_status, folder, json_lines, run, stderr, stdout};

const SHAPED: &str = "version: 1\nname: shaped\nmodel: {id: script, script: turns.yaml}\noutput:\n  schema:\n    type: object\n    properties:\n      severity: { enum: [low, high] }\n      summary: { type: string }\n    required: [severity, summary]\n  retries: 1\n";

/// A first answer the schema rejects (a template's value is known only when played, so `check`
/// lets it through), then one it accepts.
const RETRIED: &str = "- calls:\n    - tool: final_answer\n      args: { severity: \"{{ 'medium' }}\", summary: first }\n- calls:\n    - tool: final_answer\n      args: { severity: high, summary: second }\n";

#[test]
fn json_ends_with_run_finished_carrying_the_validated_object_not_an_invalid_attempt() {
    let dir = folder(&[("agent.yaml", SHAPED), ("turns.yaml", RETRIED)]);
    let output = run(
        dir.path(),
        &["run", "agent.yaml", "--json", "--prompt", "triage"],
    );
    assert_status(&output, 0);
    let lines = json_lines(&stdout(&output));
    let (last, records) = lines.split_last().unwrap();
    assert_eq!(last["type"], "run_finished");
    assert_eq!(last["status"], "completed");
    assert_eq!(last["exit_code"], 0);
    assert_eq!(
        last["output"],
        json!({"severity": "high", "summary": "second"})
    );
    assert_eq!(last["usage"]["requests"], 2);
    // The invalid attempt went back to the model as a retry, and is nowhere in the result.
    let retried = records.iter().any(|record| {
        record["event"]["type"] == "tool_return"
            && record["event"]["part"]["kind"] == "invalid_arguments"
    });
    assert!(retried, "{records:#?}");
    assert!(!last.to_string().contains("medium"), "{last}");
    // The stream's own last record carries the object too.
    let completed = records
        .iter()
        .rev()
        .find(|record| record["event"]["type"] == "run_completed")
        .expect("a run_completed record");
    assert_eq!(
        completed["event"]["structured_output"],
        json!({"severity": "high", "summary": "second"})
    );
}

#[test]
fn plain_mode_prints_the_object_pretty() {
    let dir = folder(&[("agent.yaml", SHAPED), ("turns.yaml", RETRIED)]);
    let output = run(dir.path(), &["run", "agent.yaml", "--prompt", "triage"]);
    assert_status(&output, 0);
    let text = stdout(&output);
    assert!(
        text.contains("{\n  \"severity\": \"high\",\n  \"summary\": \"second\"\n}"),
        "{text}"
    );
}

#[test]
fn invalid_every_time_fails_with_exit_1_naming_the_field_and_the_error() {
    // No integer is at least 5 and at most 1: every answer is invalid.
    let impossible = "version: 1\nname: impossible\nmodel: {id: test}\noutput:\n  schema:\n    type: object\n    properties:\n      count: { type: integer, minimum: 5, maximum: 1 }\n    required: [count]\n  retries: 1\n";
    let dir = folder(&[("agent.yaml", impossible)]);
    let output = run(
        dir.path(),
        &["run", "agent.yaml", "--json", "--prompt", "count"],
    );
    assert_status(&output, 1);
    let lines = json_lines(&stdout(&output));
    let (last, records) = lines.split_last().unwrap();
    assert_eq!(last["type"], "run_finished");
    assert_eq!(last["status"], "failed");
    assert_eq!(last["exit_code"], 1);
    assert!(last.get("output").is_none(), "{last}");
    let error = last["error"].as_str().unwrap();
    assert!(error.contains("/count"), "{error}");
    assert!(error.contains("output schema"), "{error}");
    assert!(error.contains("greater than the maximum of 1"), "{error}");
    // retries 1: two requests, none after the last invalid answer.
    let requests = records
        .iter()
        .filter(|record| record["event"]["type"] == "model_request")
        .count();
    assert_eq!(requests, 2, "{records:#?}");
    assert!(stderr(&output).contains("error:"));
}

#[test]
fn the_triage_agent_returns_structured_output() {
    let repository = crate::common::examples::repository();
    let output = run(
        repository,
        &[
            "run",
            "agents/triage.yaml",
            "--json",
            "--prompt",
            "Triage: check reads too many files",
        ],
    );
    assert_status(&output, 0);
    let lines = json_lines(&stdout(&output));
    let last = lines.last().unwrap();
    assert_eq!(last["type"], "run_finished");
    let answer = &last["output"];
    assert_eq!(answer["label"], "question", "{last}");
    assert_eq!(answer["file"], "starweaver-config/src/check/collect.rs");
    assert!(answer["line"].as_u64().is_some(), "{last}");
    assert_eq!(answer["reproducible"], false);
}

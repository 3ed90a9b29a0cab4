//! `--save` then `--resume`: a waiting run continues in a second process.

use super::{assert_status, folder, run, stderr, stdout, APPROVAL};

#[test]
fn an_approval_saved_without_a_terminal_is_approved_on_resume() {
    let dir = folder(&[("careful.yaml", APPROVAL)]);
    let first = run(
        dir.path(),
        &[
            "run",
            "careful.yaml",
            "--save",
            "run.json",
            "--prompt",
            "list",
        ],
    );
    assert_status(&first, 3);
    let text = stdout(&first);
    assert!(text.contains("ls stays pending"), "{text}");
    assert!(text.contains("saved to run.json"), "{text}");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run.json")).unwrap())
            .unwrap();
    assert_eq!(saved["format"], "starweaver-run");
    assert_eq!(saved["version"], 1);
    assert!(saved["manifest"]
        .as_str()
        .unwrap()
        .ends_with("careful.yaml"));

    // Still nobody to ask: it stays waiting, saved again.
    let again = run(
        dir.path(),
        &["run", "--resume", "run.json", "--save", "run.json"],
    );
    assert_status(&again, 3);

    let resumed = run(
        dir.path(),
        &["run", "--resume", "run.json", "--yes", "--save", "run.json"],
    );
    assert_status(&resumed, 0);
    let text = stdout(&resumed);
    assert!(text.contains("← ls success"), "{text}");
    assert!(text.contains("Called 1 tool(s)"), "{text}");

    // The file now holds the finished conversation: nothing to approve or run again, and a
    // new prompt continues it.
    let output = run(dir.path(), &["run", "--resume", "run.json", "--yes"]);
    assert_status(&output, 2);
    assert!(stderr(&output).contains("no prompt"), "{}", stderr(&output));
    let output = run(
        dir.path(),
        &["run", "--resume", "run.json", "--yes", "--prompt", "again"],
    );
    assert_status(&output, 0);
    // The `test` model sees `ls` already called in the conversation, so it answers at once.
    assert!(
        stdout(&output).contains("usage: 1 model request(s)"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn without_save_an_approval_is_denied_and_the_run_says_so() {
    let dir = folder(&[("careful.yaml", APPROVAL)]);
    let output = run(dir.path(), &["run", "careful.yaml", "--prompt", "list"]);
    assert_status(&output, 0);
    let text = stdout(&output);
    assert!(
        text.contains("ls denied: no terminal to ask for approval"),
        "{text}"
    );
}

#[test]
fn resuming_a_waiting_run_takes_no_prompt_and_bad_files_are_named() {
    let dir = folder(&[("careful.yaml", APPROVAL), ("junk.json", "{\"format\": 1}")]);
    let first = run(
        dir.path(),
        &[
            "run",
            "careful.yaml",
            "--save",
            "run.json",
            "--prompt",
            "list",
        ],
    );
    assert_status(&first, 3);
    let output = run(
        dir.path(),
        &["run", "--resume", "run.json", "--prompt", "more"],
    );
    assert_status(&output, 2);
    assert!(
        stderr(&output).contains("--prompt is not used when resuming"),
        "{}",
        stderr(&output)
    );
    let output = run(dir.path(), &["run", "--resume", "junk.json"]);
    assert_status(&output, 2);
    assert!(stderr(&output).contains("junk.json"), "{}", stderr(&output));
    let output = run(
        dir.path(),
        &["run", "--resume", "run.json", "--result", "x=1"],
    );
    assert_status(&output, 2);
    assert!(
        stderr(&output).contains("not a pending deferred call"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn yes_does_not_answer_clarifying_questions_and_the_model_is_told() {
    let asker = "version: 1\nname: asker\nmodel: {id: test}\ntoolsets:\n  - type: user_input\n";
    let dir = folder(&[("asker.yaml", asker)]);
    let output = run(
        dir.path(),
        &["run", "asker.yaml", "--yes", "--json", "--prompt", "x"],
    );
    assert_status(&output, 0);
    let lines = super::json_lines(&stdout(&output));
    let denial = lines
        .iter()
        .filter(|line| line["event"]["type"] == "tool_return")
        .map(|line| line["event"]["part"]["content"]["message"].to_string())
        .find(|message| message.contains("denied"))
        .unwrap();
    assert!(
        denial.contains("--yes approves tool calls but does not answer questions"),
        "{denial}"
    );
}

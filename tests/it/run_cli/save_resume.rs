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

/// A waiting run saved as `run.json` in a fresh folder, and the folder.
fn saved_waiting_run() -> tempfile::TempDir {
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
    dir
}

fn edit_save(dir: &std::path::Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = dir.join("run.json");
    let mut saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut saved);
    std::fs::write(&path, saved.to_string()).unwrap();
}

// Problems with what a save file names were blamed on the command line (`--var`, "give the
// path of an agent manifest"), without naming the save file.
#[test]
fn problems_with_what_a_save_file_names_say_it_came_from_the_file() {
    let dir = saved_waiting_run();
    std::fs::remove_file(dir.path().join("careful.yaml")).unwrap();
    let gone = run(dir.path(), &["run", "--resume", "run.json", "--yes"]);
    assert_status(&gone, 2);
    assert!(
        stderr(&gone).contains("resuming `run.json`"),
        "{}",
        stderr(&gone)
    );

    let dir = saved_waiting_run();
    edit_save(dir.path(), |saved| {
        saved["session"] = serde_json::json!({"nope": 1})
    });
    let bad = run(dir.path(), &["run", "--resume", "run.json", "--yes"]);
    assert_status(&bad, 2);
    assert!(
        stderr(&bad).contains("cannot resume from `run.json`"),
        "{}",
        stderr(&bad)
    );

    let dir = saved_waiting_run();
    edit_save(dir.path(), |saved| {
        saved["max_steps"] = serde_json::json!(0)
    });
    let zero = run(dir.path(), &["run", "--resume", "run.json", "--yes"]);
    assert_status(&zero, 2);
    assert!(
        stderr(&zero).contains("`max_steps` is 0"),
        "{}",
        stderr(&zero)
    );
}

#[test]
fn a_relative_manifest_in_a_save_file_is_found_beside_the_file() {
    let dir = saved_waiting_run();
    edit_save(dir.path(), |saved| {
        saved["manifest"] = serde_json::json!("careful.yaml");
    });
    // Resumed from another folder: the manifest is looked up beside the file.
    let elsewhere = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.json");
    let resumed = run(
        elsewhere.path(),
        &["run", "--resume", file.to_str().unwrap(), "--yes"],
    );
    assert_status(&resumed, 0);
}

// A save file pointed at another agent's manifest resumed as waiting and failed only when a
// call ran ("needs tool ..."), exit 1.
#[test]
fn a_save_file_resumed_on_another_agent_is_refused_up_front() {
    let dir = saved_waiting_run();
    let other = APPROVAL.replace("name: careful", "name: someone-else");
    assert_ne!(other, APPROVAL, "the fixture names its agent `careful`");
    std::fs::write(dir.path().join("careful.yaml"), other).unwrap();
    let resumed = run(dir.path(), &["run", "--resume", "run.json", "--yes"]);
    assert_status(&resumed, 2);
    assert!(
        stderr(&resumed).contains("it is a run of the agent `careful`"),
        "{}",
        stderr(&resumed)
    );
}

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

/// An agent whose first step asks a clarifying question and writes a file that needs approval,
/// in an in-memory folder: a run of it waits on both.
pub const ASKS_AND_WRITES: &str = "version: 1\nname: asks-and-writes\nmodel: {id: test}\n\
environment: {type: virtual}\ntoolsets:\n  - type: user_input\n  - type: filesystem\n    \
tools: [write_file]\n    approval_required: true\n";

/// The pending calls of the save file `run.json` in `dir`: (call id, request kind).
pub fn pending_calls(dir: &std::path::Path) -> Vec<(String, String)> {
    pending_in(&std::fs::read_to_string(dir.join("run.json")).unwrap())
}

/// The pending calls of a save file's text: (call id, request kind).
fn pending_in(text: &str) -> Vec<(String, String)> {
    let saved: serde_json::Value = serde_json::from_str(text).unwrap();
    let Some(pending) = saved["session"]["waiting"]["pending"].as_array() else {
        return Vec::new();
    };
    pending
        .iter()
        .map(|request| {
            let kind = &request["metadata"]["request"]["kind"];
            (
                request["tool_call_id"].as_str().unwrap().to_string(),
                kind.as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// A folder with a saved run of [`ASKS_AND_WRITES`] waiting on a question and an approval, and
/// the question's call id.
pub fn saved_question_and_approval() -> (tempfile::TempDir, String) {
    let dir = folder(&[("asks.yaml", ASKS_AND_WRITES)]);
    let first = run(
        dir.path(),
        &[
            "run",
            "asks.yaml",
            "--save",
            "run.json",
            "--prompt",
            "ship it",
        ],
    );
    assert_status(&first, 3);
    let pending = pending_calls(dir.path());
    let kinds: Vec<&str> = pending.iter().map(|(_, kind)| kind.as_str()).collect();
    assert!(
        kinds.contains(&"clarifying_questions") && kinds.contains(&"tool_approval"),
        "the fixture waits on a question and an approval: {pending:?}"
    );
    let question = pending
        .iter()
        .find(|(_, kind)| kind == "clarifying_questions")
        .map(|(id, _)| id.clone())
        .unwrap();
    (dir, question)
}

/// The kinds of the `tool_return` records of `tool` in JSON lines.
fn return_kinds(lines: &[serde_json::Value], tool: &str) -> Vec<String> {
    lines
        .iter()
        .filter(|line| line["event"]["type"] == "tool_return")
        .filter(|line| line["event"]["part"]["tool_name"] == tool)
        .map(|line| line["event"]["part"]["kind"].as_str().unwrap().to_string())
        .collect()
}

// Regression: resuming a run that waited on a question and an approval, without a terminal,
// with `--yes --save` ended "waiting" every time (the approval never ran), while the same
// resume without `--save` went ahead and denied the question: `--save` changed the outcome.
#[test]
fn save_never_changes_what_a_resume_of_a_question_and_an_approval_does() {
    let (dir, question) = saved_question_and_approval();
    let before = std::fs::read_to_string(dir.path().join("run.json")).unwrap();
    let unsaved = run(dir.path(), &["run", "--resume", "run.json", "--yes"]);
    let saved = run(
        dir.path(),
        &["run", "--resume", "run.json", "--yes", "--save", "run.json"],
    );
    assert_status(&unsaved, 3);
    assert_status(&saved, 3);
    // The same lines, but for where the run was recorded.
    let without_saved_line = |text: String| {
        text.lines()
            .filter(|line| !line.starts_with("saved to") && !line.starts_with("not saved"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        without_saved_line(stdout(&unsaved)),
        without_saved_line(stdout(&saved))
    );
    let text = stdout(&saved);
    assert!(
        text.contains(&format!("--answer {question}=TEXT")),
        "{text}"
    );
    assert!(text.contains("answered; runs with the rest"), "{text}");
    // Nothing ran, so the file still waits on the same calls.
    assert_eq!(pending_calls(dir.path()), pending_in(&before));
}

// Regression: answers given on a resume that still waited were dropped, so `--yes --save`
// kept nothing and the next resume waited on the approval again; the save keeps them now.
#[test]
fn answers_given_before_the_rest_are_kept_in_the_save_for_the_next_resume() {
    let (dir, question) = saved_question_and_approval();
    let approvals = run(
        dir.path(),
        &["run", "--resume", "run.json", "--yes", "--save", "run.json"],
    );
    assert_status(&approvals, 3);
    assert!(
        stdout(&approvals).contains("with the answers given so far"),
        "{}",
        stdout(&approvals)
    );
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run.json")).unwrap())
            .unwrap();
    let kept = saved["answered"]["interactions"].as_object().unwrap();
    assert_eq!(kept.len(), 1, "{saved}");
    assert!(!kept.contains_key(&question), "{saved}");
    // No `--yes` this time: the approval comes from the file.
    let answer = format!("{question}=ship to staging first");
    let done = run(
        dir.path(),
        &["run", "--resume", "run.json", "--answer", &answer, "--json"],
    );
    assert_status(&done, 0);
    let lines = super::json_lines(&stdout(&done));
    assert_eq!(return_kinds(&lines, "write_file"), ["success"]);
    assert_eq!(return_kinds(&lines, "ask_user_question"), ["success"]);
}

// Regression: a saved question could not be answered without a terminal: `--result` for it
// was refused as "not a pending deferred call" and no other flag answered it.
#[test]
fn a_saved_question_is_answered_without_a_terminal_and_the_approvals_run() {
    let (dir, question) = saved_question_and_approval();
    let wrong = run(
        dir.path(),
        &[
            "run",
            "--resume",
            "run.json",
            "--result",
            &format!("{question}=\"staging\""),
        ],
    );
    assert_status(&wrong, 2);
    assert!(
        stderr(&wrong).contains(&format!("answer it with --answer {question}=TEXT")),
        "{}",
        stderr(&wrong)
    );
    std::fs::copy(dir.path().join("run.json"), dir.path().join("copy.json")).unwrap();
    let answer = format!("{question}=ship to staging first");
    let saved = run(
        dir.path(),
        &[
            "run", "--resume", "run.json", "--yes", "--answer", &answer, "--json", "--save",
            "run.json",
        ],
    );
    let unsaved = run(
        dir.path(),
        &[
            "run",
            "--resume",
            "copy.json",
            "--yes",
            "--answer",
            &answer,
            "--json",
        ],
    );
    for output in [&saved, &unsaved] {
        assert_status(output, 0);
        let lines = super::json_lines(&stdout(output));
        // The approved write ran, and the answer reached the question's tool.
        assert_eq!(return_kinds(&lines, "write_file"), ["success"]);
        assert_eq!(return_kinds(&lines, "ask_user_question"), ["success"]);
        let answered = lines
            .iter()
            .find(|line| line["event"]["part"]["tool_name"] == "ask_user_question")
            .unwrap();
        assert!(
            answered["event"]["part"]["content"]
                .to_string()
                .contains("ship to staging first"),
            "{answered}"
        );
    }
    // The file saved after the run waits for nothing.
    assert!(pending_calls(dir.path()).is_empty());
}

//! Secret variables (a name ending in `key`, `token`, `secret`, `password`, ..., or listed in
//! `secret_vars`) never leave the process: masked in `--json` lines, the plain and terminal
//! output and save files, and asked again on `--resume`. Masking never changes the structure of
//! what it masks, nor what an approved call does.

use super::{assert_status, folder, run, stderr, stdout};

const SECRET: &str = "sk-live-0123456789";

const MANIFEST: &str =
    "version: 1\nname: keyed\nmodel: {id: test}\nvars:\n  api_key: unset\n  tone: dry\n\
instructions: 'Use {{ vars.api_key }} in a {{ vars.tone }} tone.'\nenvironment: {type: local}\n\
toolsets:\n  - type: filesystem\n    tools: [ls]\n    approval_required: true\n";

/// No tools: the `test` model answers by quoting the prompt.
const ECHO: &str = "version: 1\nname: echo\nmodel: {id: test}\nvars: {service_token: unset}\n";

#[test]
fn secret_values_are_masked_in_json_lines_and_plain_output() {
    let dir = folder(&[("keyed.yaml", ECHO)]);
    let var = format!("service_token={SECRET}");
    let prompt = format!("echo {SECRET}");
    let output = run(
        dir.path(),
        &[
            "run",
            "keyed.yaml",
            "--json",
            "--var",
            &var,
            "--prompt",
            &prompt,
        ],
    );
    assert_status(&output, 0);
    let text = stdout(&output);
    assert!(!text.contains(SECRET), "{text}");
    assert!(text.contains("***"), "{text}");
    let output = run(
        dir.path(),
        &["run", "keyed.yaml", "--var", &var, "--prompt", &prompt],
    );
    assert!(!stdout(&output).contains(SECRET), "{}", stdout(&output));
}

#[test]
fn save_files_hold_no_secret_and_resume_asks_for_it() {
    let dir = folder(&[("keyed.yaml", MANIFEST)]);
    let var = format!("api_key={SECRET}");
    let prompt = format!("use {SECRET}");
    let first = run(
        dir.path(),
        &[
            "run",
            "keyed.yaml",
            "--var",
            &var,
            "--var",
            "tone=warm",
            "--save",
            "run.json",
            "--prompt",
            &prompt,
        ],
    );
    assert_status(&first, 3);
    let saved = std::fs::read_to_string(dir.path().join("run.json")).unwrap();
    assert!(!saved.contains(SECRET), "{saved}");
    let file: serde_json::Value = serde_json::from_str(&saved).unwrap();
    assert_eq!(file["vars"]["api_key"], "***");
    assert_eq!(file["vars"]["tone"], "warm");

    let missing = run(dir.path(), &["run", "--resume", "run.json", "--yes"]);
    assert_status(&missing, 2);
    assert!(
        stderr(&missing).contains("--var api_key=..."),
        "{}",
        stderr(&missing)
    );
    let resumed = run(
        dir.path(),
        &["run", "--resume", "run.json", "--yes", "--var", &var],
    );
    assert_status(&resumed, 0);
    assert!(!stdout(&resumed).contains(SECRET), "{}", stdout(&resumed));
}

#[test]
fn secret_values_are_masked_at_a_terminal_too() {
    use expectrl::{Eof, Expect as _};
    let dir = folder(&[("keyed.yaml", ECHO)]);
    let mut command = crate::common::starweaver_binary();
    command
        .current_dir(dir.path())
        .env("TERM", "xterm-256color")
        .env("NO_COLOR", "1")
        .args(["run", "keyed.yaml", "--var"])
        .arg(format!("service_token={SECRET}"))
        .arg("--prompt")
        .arg(format!("echo {SECRET}"));
    // Standard input and output both a terminal: the terminal UI.
    let mut session = expectrl::Session::spawn(command).unwrap();
    // Generous: the machine is shared; this only guards against hangs.
    session.set_expect_timeout(Some(std::time::Duration::from_secs(60)));
    let seen = session.expect(Eof).unwrap();
    let text = String::from_utf8_lossy(seen.before()).into_owned()
        + &String::from_utf8_lossy(&seen.matches().flatten().copied().collect::<Vec<u8>>());
    assert!(text.contains("tool calls"), "not the whole run:\n{text}");
    assert!(!text.contains(SECRET), "{text}");
    assert!(text.contains("***"), "{text}");
}

/// A variable the manifest marks secret, whatever its name: its value (given, or the
/// manifest's own default) is masked in the JSON lines and the save file, and resume asks for it.
const DECLARED: &str =
    "version: 1\nname: deployer\nmodel: {id: test}\nvars:\n  deploy: default-hunter2\n\
secret_vars: [deploy]\ninstructions: 'Deploy with {{ vars.deploy }}.'\nenvironment: {type: local}\n\
toolsets:\n  - type: filesystem\n    tools: [ls]\n    approval_required: true\n";

#[test]
fn variables_the_manifest_marks_secret_are_masked_too() {
    let dir = folder(&[("deployer.yaml", DECLARED)]);
    // The manifest's default value, unchanged by any --var: masked as well.
    let output = run(
        dir.path(),
        &[
            "run",
            "deployer.yaml",
            "--json",
            "--prompt",
            "go with default-hunter2",
        ],
    );
    let text = stdout(&output);
    assert!(!text.contains("default-hunter2"), "{text}");
    let var = format!("deploy={SECRET}");
    let first = run(
        dir.path(),
        &[
            "run",
            "deployer.yaml",
            "--json",
            "--var",
            &var,
            "--save",
            "run.json",
            "--prompt",
            &format!("deploy {SECRET}"),
        ],
    );
    assert_status(&first, 3);
    assert!(!stdout(&first).contains(SECRET), "{}", stdout(&first));
    let saved = std::fs::read_to_string(dir.path().join("run.json")).unwrap();
    assert!(!saved.contains(SECRET), "{saved}");
    let file: serde_json::Value = serde_json::from_str(&saved).unwrap();
    assert_eq!(file["vars"]["deploy"], "***");
    let missing = run(dir.path(), &["run", "--resume", "run.json", "--yes"]);
    assert_status(&missing, 2);
    assert!(
        stderr(&missing).contains("--var deploy=..."),
        "{}",
        stderr(&missing)
    );
}

/// The `test` model calls `write_file` with `{"path": "test-model-note.txt", "content": PROMPT}`.
const WRITER: &str = "version: 1\nname: writer\nmodel: {id: test}\nvars: {api_key: unset}\n\
environment: {type: local}\ntoolsets:\n  - type: filesystem\n    tools: [write_file]\n    \
approval_required: true\n";

#[test]
fn a_waiting_call_whose_arguments_hold_a_secret_is_not_saved() {
    let dir = folder(&[("writer.yaml", WRITER)]);
    let output = run(
        dir.path(),
        &[
            "run",
            "writer.yaml",
            "--var",
            "api_key=example",
            "--save",
            "run.json",
            "--prompt",
            "write example",
        ],
    );
    // Saved masked, the call would write `***` once approved on resume.
    assert_status(&output, 1);
    let error = stderr(&output);
    assert!(
        error.contains("`write_file` (call test-call-1)") && error.contains("secret"),
        "{error}"
    );
    assert!(!dir.path().join("run.json").exists());
    // The run's lines are still shown, masked.
    let text = stdout(&output);
    assert!(text.contains("→ write_file"), "{text}");
    assert!(!text.contains("example"), "{text}");
}

#[test]
fn a_resumed_approved_call_runs_with_its_real_arguments() {
    let dir = folder(&[("writer.yaml", WRITER)]);
    let var = format!("api_key={SECRET}");
    let first = run(
        dir.path(),
        &[
            "run",
            "writer.yaml",
            "--var",
            &var,
            "--save",
            "run.json",
            "--prompt",
            "write it",
        ],
    );
    assert_status(&first, 3);
    let saved = std::fs::read_to_string(dir.path().join("run.json")).unwrap();
    assert!(!saved.contains(SECRET), "{saved}");
    let resumed = run(
        dir.path(),
        &["run", "--resume", "run.json", "--yes", "--var", &var],
    );
    assert_status(&resumed, 0);
    let written = std::fs::read_to_string(dir.path().join("test-model-note.txt")).unwrap();
    assert_eq!(written, "write it");
}

/// `sort_key` is secret by its name; its default `name` is a word records and state use.
const SORTED: &str = "version: 1\nname: sorted\nmodel: {id: test}\nvars: {sort_key: name}\n\
environment: {type: local}\ntoolsets:\n  - type: filesystem\n    tools: [ls]\n    \
approval_required: true\n";

#[test]
fn masking_never_breaks_the_structure_of_records_or_save_files() {
    let dir = folder(&[("sorted.yaml", SORTED)]);
    let first = run(
        dir.path(),
        &[
            "run",
            "sorted.yaml",
            "--save",
            "run.json",
            "--prompt",
            "list by name",
        ],
    );
    assert_status(&first, 3);
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run.json")).unwrap())
            .unwrap();
    let call = &saved["session"]["messages"][1]["parts"][0];
    assert_eq!(call["name"], "ls", "{call}");
    assert_eq!(
        saved["session"]["messages"][0]["parts"][0]["content"],
        "list by ***"
    );
    let resumed = run(dir.path(), &["run", "--resume", "run.json", "--yes"]);
    assert_status(&resumed, 0);

    // A value too short to mask is left alone, with one warning.
    let output = run(
        dir.path(),
        &[
            "run",
            "sorted.yaml",
            "--json",
            "--var",
            "sort_key=e",
            "--prompt",
            "list",
        ],
    );
    let lines = super::json_lines(&stdout(&output));
    assert!(
        lines
            .iter()
            .all(|line| line.get("sequence").is_some() || line["type"] == "run_finished"),
        "{lines:?}"
    );
    let warning = "secret `sort_key` is too short to mask reliably";
    assert_eq!(
        stderr(&output).matches(warning).count(),
        1,
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_variable_whose_value_is_the_mask_is_not_asked_for_again() {
    let dir = folder(&[("keyed.yaml", MANIFEST)]);
    let first = run(
        dir.path(),
        &[
            "run",
            "keyed.yaml",
            "--var",
            "tone=***",
            "--save",
            "run.json",
            "--prompt",
            "list",
        ],
    );
    assert_status(&first, 3);
    let resumed = run(dir.path(), &["run", "--resume", "run.json", "--yes"]);
    assert_status(&resumed, 0);
}

/// What an MCP server is given from the host (`env_from`), under a name no secret rule would
/// catch.
const PASSED: (&str, &str) = ("STARWEAVER_MCP_PASSED_SETTING", "hushed-7Q2x-passed");

/// A manifest whose MCP servers repeat the value they were given from the host in their tool
/// descriptions, their answers and their dying words (`hostile_server.py leak`): one answers,
/// the other dies (apart, so the death never fails the answer in flight).
fn leaky_manifest() -> String {
    let script = crate::common::hostile::hostile_server();
    format!(
        "version: 1
name: leaky
model: {{id: test}}
toolsets:
  - type: mcp
    name: answers
    command: python3
    args: ['{script}', leak, {variable}]
    env_from: [{variable}]
    tools: [echo]
  - type: mcp
    name: dies
    command: python3
    args: ['{script}', leak, {variable}]
    env_from: [{variable}]
    tools: [die]
",
        script = script.display(),
        variable = PASSED.0,
    )
}

/// `python3`, or a one-line notice that the test is skipped.
fn python() -> bool {
    crate::common::hostile::python3("the leaky MCP server")
}

#[test]
fn values_an_mcp_server_takes_from_the_host_are_masked_in_output_events_errors_and_saves() {
    if !python() {
        return;
    }
    let dir = folder(&[("leaky.yaml", &leaky_manifest())]);
    let run_with = |args: &[&str]| {
        crate::common::starweaver_binary()
            .current_dir(dir.path())
            .env(PASSED.0, PASSED.1)
            .args(args)
            .output()
            .unwrap()
    };
    let json = run_with(&[
        "run",
        "leaky.yaml",
        "--json",
        "--save",
        "state.json",
        "--prompt",
        "call them all",
    ]);
    let plain = run_with(&["run", "leaky.yaml", "--prompt", "call them all"]);
    let saved = std::fs::read_to_string(dir.path().join("state.json")).unwrap();
    for (what, text) in [
        ("--json lines", stdout(&json)),
        ("--json stderr", stderr(&json)),
        ("plain output", stdout(&plain)),
        ("plain stderr", stderr(&plain)),
        ("the save file", saved.clone()),
    ] {
        assert!(!text.contains(PASSED.1), "{what} shows the value:\n{text}");
    }
    // The server did repeat it: in `echo`'s answer and in the error `die` ended with.
    let lines = stdout(&json);
    assert!(lines.contains("it was given ***"), "{lines}");
    assert!(lines.contains("and it knew ***"), "{lines}");
    assert!(saved.contains("it was given ***"), "{saved}");
    assert!(stdout(&plain).contains("***"), "{}", stdout(&plain));
}

// Regression: `mcp serve` wrote a re-served server's stderr tail, which repeated a value taken
// from the host with `env_from`, unmasked into its startup log.
#[test]
fn mcp_serve_masks_what_a_served_server_was_given_from_the_host_in_its_log() {
    if !python() {
        return;
    }
    let script = crate::common::hostile::hostile_server();
    let manifest = format!(
        "version: 1
name: leaky
model: {{id: test}}
toolsets:
  - type: mcp
    name: dies
    command: python3
    args: ['{script}', leak, {variable}, exit]
    env_from: [{variable}]
    startup_timeout_ms: 30000
",
        script = script.display(),
        variable = PASSED.0,
    );
    let dir = folder(&[("leaky.yaml", &manifest)]);
    // Standard input is empty: the server stops as soon as it has started.
    let output = crate::common::starweaver_binary()
        .current_dir(dir.path())
        .env(PASSED.0, PASSED.1)
        .args(["mcp", "serve", "leaky.yaml"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let log = stderr(&output);
    assert!(log.contains("toolset `dies` is unavailable"), "{log}");
    assert!(!log.contains(PASSED.1), "the log shows the value:\n{log}");
    assert!(
        log.contains("***"),
        "the server's words are still shown:\n{log}"
    );
}

//! Secret variables (a name with `key`, `token`, `secret` or `password`) never leave the
//! process: masked in `--json` lines, the plain and terminal output and save files, and asked
//! again on `--resume`.

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
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_starweaver"));
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

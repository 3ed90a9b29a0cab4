//! What `run` writes: never raw terminal escapes from the model or tools, and no exit 0 when
//! the output could not be written (found by review).

use std::process::Stdio;

use super::{folder, run_with_stdin, stdout};

/// No tools: the `test` model answers by quoting the prompt.
const ECHO: &str = "version: 1\nname: echo\nmodel: {id: test}\n";

#[test]
fn escapes_in_model_or_tool_text_never_reach_the_output_raw() {
    let dir = folder(&[("echo.yaml", ECHO)]);
    let output = run_with_stdin(
        dir.path(),
        &["run", "echo.yaml"],
        b"x\x1b]0;PWNED\x07\x1b[2J",
    );
    let text = stdout(&output);
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(!text.contains('\u{7}'), "{text:?}");
    assert!(text.contains("PWNED"), "{text:?}");
}

#[test]
fn output_that_cannot_be_written_is_not_a_success() {
    let dir = folder(&[("echo.yaml", ECHO)]);
    for json in [false, true] {
        let mut command = crate::common::starweaver_binary();
        command
            .current_dir(dir.path())
            .args(["run", "echo.yaml", "--prompt", "hi"])
            .stdout(Stdio::from(std::fs::File::create("/dev/full").unwrap()))
            .stderr(Stdio::piped());
        if json {
            command.arg("--json");
        }
        let output = command.output().unwrap();
        assert_eq!(output.status.code(), Some(1), "json {json}");
        let problems = String::from_utf8_lossy(&output.stderr);
        assert!(problems.contains("could not be written"), "{problems}");
    }
}

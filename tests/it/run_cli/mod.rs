//! `starweaver run`, as the built binary: the agents in `agents/`, JSON lines, save and resume
//! across processes, exit statuses, secrets, the prompt on standard input, and Ctrl-C during a
//! long shell command (the run that calls it is saved here with the library and a scripted
//! model). Deferred results are tested beside the command, in the binary's unit tests, where a
//! code tool can be given.

mod agents;
mod ctrl_c;
mod exit_codes;
mod json_lines;
mod output;
mod providers;
pub mod save_resume;
mod secrets;
mod usage_guards;

use std::io::Write as _;
use std::path::Path;
use std::process::{Output, Stdio};

/// A manifest whose one file tool needs approval: it waits until someone approves.
pub const APPROVAL: &str =
    "version: 1\nname: careful\nmodel: {id: test}\nenvironment: {type: local}\n\
toolsets:\n  - type: filesystem\n    tools: [ls]\n    approval_required: true\n";

/// Runs the binary in `dir` with `args` and `stdin` as standard input.
pub fn run_with_stdin(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = crate::common::starweaver_binary()
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    // A prompt too large is refused before it is all read: ignore the broken pipe.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().unwrap()
}

/// Runs the binary in `dir` with `args` and an empty standard input.
pub fn run(dir: &Path, args: &[&str]) -> Output {
    run_with_stdin(dir, args, b"")
}

/// Standard output as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// Standard error as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// The exit status, with both streams in the message when it is not `want`.
pub fn assert_status(output: &Output, want: i32) {
    assert_eq!(
        output.status.code(),
        Some(want),
        "stdout:\n{}\nstderr:\n{}",
        stdout(output),
        stderr(output)
    );
}

/// A temporary folder holding `files` (name, contents).
pub fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, contents) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
    }
    dir
}

/// Every line of `text` as JSON.
pub fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

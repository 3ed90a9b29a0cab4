//! The `starweaver check` and `starweaver schema` commands, run as the built binary: every
//! output format on a broken manifest, exit statuses, folder walking, the committed schema and
//! the help text.

mod exit_codes;
mod explain;
mod formats;
mod help;
mod limits;
mod mcp;
mod sandbox;
mod schema;
mod walking;

use std::path::Path;
use std::process::Output;

/// A manifest with two problems: a misspelled key at 2:3 inside `model`, and a bad value
/// at 5:22.
pub const BROKEN: &str = "model:\n  idd: test\nversion: 1\nname: scout\nruntime: {max_steps: x}\n";

/// A manifest with no problems.
pub const CLEAN: &str = "version: 1\nname: scout\nmodel: {id: test}\n";

/// Runs the binary in `dir` with `args`.
pub fn run(dir: &Path, args: &[&str]) -> Output {
    crate::common::starweaver_binary()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

/// Standard output as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// Standard error as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// A temporary folder holding `files` (relative path, contents).
pub fn folder(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, contents) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
    }
    dir
}

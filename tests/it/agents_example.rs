//! `examples/agents`: an application's own binary, whose `check` is
//! `starweaver::config::check_main()` (the tools linked into it are the catalog) and whose
//! `run` loads a manifest and runs it on the `test` model.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::common::examples::{build_example, repository};

/// The example, built once.
fn example_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| build_example("agents"))
}

fn example(args: &[&str]) -> Output {
    Command::new(example_binary())
        .current_dir(repository())
        .args(args)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn the_example_checker_knows_the_tools_linked_into_it() {
    let output = example(&["check", "examples/agents/glossary.yaml", "--deny-warnings"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    assert!(text(&output.stdout).contains("0 errors, 0 warnings"));
    // The `starweaver` binary links no application tools: it cannot verify them, and says so.
    let plain = crate::common::starweaver_binary()
        .current_dir(repository())
        .args(["check", "examples/agents/glossary.yaml", "--deny-warnings"])
        .output()
        .unwrap();
    assert_eq!(plain.status.code(), Some(1), "{}", text(&plain.stdout));
    // Bad usage is status 2, and the usage line names the command as typed.
    let usage = example(&["check", "--no-such-flag"]);
    assert_eq!(usage.status.code(), Some(2));
    assert!(text(&usage.stderr).contains("check [OPTIONS] [PATHS]..."));
}

#[test]
fn the_example_checker_reports_a_tool_it_does_not_have() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("missing.yaml");
    std::fs::write(
        &manifest,
        "version: 1\nname: m\nmodel: {id: test}\ntoolsets:\n  - {type: tools, name: g, tools: [define, defnie_all]}\n",
    )
    .unwrap();
    let output = example(&["check", manifest.to_str().unwrap(), "--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    let problems: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let problems = problems.as_array().unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0]["rule"], "unknown-tool");
    assert_eq!(problems[0]["line"], 5);
    assert!(problems[0]["message"]
        .as_str()
        .unwrap()
        .contains("defnie_all"));
}

#[test]
fn the_example_runs_the_manifest_to_an_answer() {
    let output = example(&[
        "run",
        "examples/agents/glossary.yaml",
        "--prompt",
        "What is a toolset?",
    ]);
    let answer = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    // The test model called both tools and answered from what they returned.
    assert!(answer.contains("define:"), "{answer}");
    assert!(answer.contains("list_terms:"), "{answer}");
    assert!(answer.contains("tool proxy"), "{answer}");
    let usage = example(&["run", "examples/agents/glossary.yaml"]);
    assert_eq!(usage.status.code(), Some(2));
}

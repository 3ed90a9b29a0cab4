//! One word per concept across the command line's views of the same agent: what `run` prints,
//! what `check --explain` shows and what `tools` lists say "waits for approval" for a tool that
//! needs approval and "waits for answers" for a clarifying question.

use crate::run_cli::save_resume::ASKS_AND_WRITES;
use crate::run_cli::{folder, run, stdout};

/// The line of `text` that starts (after its indent and any marker) with `tool`.
fn line_of<'a>(text: &'a str, tool: &str, marker: &str) -> &'a str {
    text.lines()
        .find(|line| {
            line.trim_start()
                .trim_start_matches(marker)
                .trim_start()
                .starts_with(&format!("{tool} "))
        })
        .unwrap_or_else(|| panic!("no `{marker} {tool}` line in:\n{text}"))
}

// Regression: the same approval-gated tool was `approval_required` in run output, "needs
// approval" in `--explain` and `required` in `tools` (and a question's tool `answers` in one,
// "needs approval" in another).
#[test]
fn a_tool_that_needs_approval_has_the_same_words_in_run_explain_and_tools() {
    let dir = folder(&[("asks.yaml", ASKS_AND_WRITES)]);
    let ran = stdout(&run(
        dir.path(),
        &[
            "run",
            "asks.yaml",
            "--save",
            "run.json",
            "--prompt",
            "ship it",
        ],
    ));
    let explained = stdout(&run(dir.path(), &["check", "--explain", "asks.yaml"]));
    let listed = stdout(&run(dir.path(), &["tools", "asks.yaml"]));

    for (tool, words) in [
        ("write_file", "waits for approval"),
        ("ask_user_question", "waits for answers"),
    ] {
        let returned = line_of(&ran, tool, "←");
        assert!(returned.ends_with(words), "{returned}\n{ran}");
        let waiting = line_of(&ran, tool, "?");
        assert!(waiting.contains(words), "{waiting}\n{ran}");
        let row = line_of(&explained, tool, "");
        assert!(row.ends_with(words), "{row}\n{explained}");
        // `tools` puts the last word under its WAITS FOR column.
        let header = listed.lines().next().unwrap();
        assert!(header.contains("WAITS FOR"), "{listed}");
        let row = line_of(&listed, tool, "");
        let column = header.find("WAITS FOR").unwrap();
        let cell = row[column..].split_whitespace().next().unwrap();
        assert_eq!(Some(cell), words.split_whitespace().last(), "{listed}");
    }
    for other in ["approval_required", "needs approval"] {
        for (view, text) in [("run", &ran), ("--explain", &explained), ("tools", &listed)] {
            assert!(!text.contains(other), "{view} says `{other}`:\n{text}");
        }
    }
}

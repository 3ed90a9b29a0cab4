//! The manifest checker against a corpus of broken manifests: each file in `tests/corpus/`
//! states the diagnostics it must produce in `# expect: RULE LINE:COLUMN` comments, and the
//! checker must report exactly those, no more and no fewer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::path::Path;

use starweaver_config::diagnostics::{Diagnostic, Rule};
use starweaver_config::validate::check_bytes;

/// One expected or reported diagnostic: rule name, line, column.
type Finding = (String, usize, usize);

/// The `# expect:` lines of a corpus file.
fn expectations(text: &str) -> Vec<Finding> {
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("# expect:"))
        .map(|spec| {
            let (rule, place) = spec.trim().split_once(' ').expect("`RULE LINE:COLUMN`");
            assert!(Rule::from_name(rule).is_some(), "unknown rule `{rule}`");
            let (line, column) = place.trim().split_once(':').expect("`LINE:COLUMN`");
            (
                rule.to_owned(),
                line.parse().unwrap(),
                column.parse().unwrap(),
            )
        })
        .collect()
}

fn finding(diagnostic: &Diagnostic) -> Finding {
    let start = diagnostic.span.start;
    (
        diagnostic.rule.as_str().to_owned(),
        start.line,
        start.column,
    )
}

#[test]
fn every_corpus_file_reports_exactly_its_expected_diagnostics() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "the corpus has {} files", files.len());
    let mut failures = String::new();
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        let mut expected = expectations(&String::from_utf8_lossy(&bytes));
        let name = file.file_name().unwrap().to_string_lossy();
        assert!(
            !expected.is_empty() || name.starts_with("valid-"),
            "{name} states no `# expect:` lines"
        );
        let diagnostics = check_bytes(&bytes);
        let positions: Vec<_> = diagnostics.iter().map(|d| d.span.start).collect();
        assert!(positions.is_sorted(), "{name}: diagnostics out of order");
        for diagnostic in &diagnostics {
            assert!(!diagnostic.message.is_empty(), "{name}: empty message");
        }
        let mut found: Vec<Finding> = diagnostics.iter().map(finding).collect();
        expected.sort();
        found.sort();
        if expected != found {
            let _ = writeln!(
                failures,
                "{name}:\n  expected {expected:?}\n  found    {found:?}"
            );
            for diagnostic in &diagnostics {
                let _ = writeln!(failures, "    {diagnostic}");
            }
        }
    }
    assert!(failures.is_empty(), "corpus mismatches:\n{failures}");
}

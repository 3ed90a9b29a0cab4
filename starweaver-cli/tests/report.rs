//! The renderers and the exit-status rules on hand-made diagnostics, including warnings and
//! awkward paths and messages that no checker rule produces yet.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use starweaver_cli::check::{status_of, CheckStatus};
use starweaver_cli::report::{github, human, json, render, sarif, FileReport, Format};
use starweaver_config::diagnostics::{Diagnostic, Rule};
use starweaver_config::yaml::{Position, Span};

const SOURCE: &str = "version: 1\nshell: {allow_execute: true}\n";

fn span(line: usize, column: usize, offset: usize, width: usize) -> Span {
    Span::new(
        Position::new(line, column, offset),
        Position::new(line, column + width, offset + width),
    )
}

fn warned() -> FileReport {
    FileReport::new(
        "agents/a,b:c%.yaml",
        SOURCE.as_bytes().to_vec(),
        vec![Diagnostic::warning(
            Rule::ShellPolicy,
            span(2, 9, 19, 13),
            "any program may run: 100% of them\nreally",
        )
        .with_help("list them in `allowed_programs`")],
    )
}

#[test]
fn warnings_pass_unless_denied() {
    let reports = [warned()];
    assert_eq!(status_of(&reports, false), CheckStatus::Clean);
    assert_eq!(status_of(&reports, true), CheckStatus::Failed);
    assert_eq!(status_of(&[], true), CheckStatus::Clean);
}

#[test]
fn human_warnings_have_the_warning_level_and_a_caret_under_the_span() {
    let text = human::render(&[warned()]);
    assert!(
        text.starts_with("warning[shell-policy]: any program may run"),
        "{text}"
    );
    assert!(text.contains("--> agents/a,b:c%.yaml:2:9"), "{text}");
    assert!(
        text.contains("2 | shell: {allow_execute: true}\n  |         ^^^^^^^^^^^^^"),
        "{text}"
    );
    assert!(
        text.contains("= help: list them in `allowed_programs`"),
        "{text}"
    );
    assert!(text.ends_with("0 errors, 1 warning in 1 file\n"), "{text}");
}

#[test]
fn an_empty_span_still_gets_a_caret() {
    let report = FileReport::new(
        "a.yaml",
        SOURCE.as_bytes().to_vec(),
        vec![Diagnostic::error(
            Rule::MissingField,
            Span::point(Position::START),
            "missing field `name`",
        )],
    );
    let text = human::render(&[report]);
    assert!(text.contains("1 | version: 1\n  | ^\n"), "{text}");
}

#[test]
fn spans_past_the_end_or_inside_a_character_do_not_panic() {
    let report = FileReport::new(
        "a.yaml",
        "é".as_bytes().to_vec(),
        vec![
            Diagnostic::error(Rule::Syntax, span(1, 1, 1, 40), "inside"),
            Diagnostic::error(Rule::Syntax, span(9, 1, 99, 1), "past"),
        ],
    );
    let text = human::render(&[report]);
    assert!(text.contains("error[syntax]: inside") && text.contains("error[syntax]: past"));
}

#[test]
fn github_escapes_properties_and_messages() {
    let text = github::render(&[warned()]);
    assert_eq!(
        text,
        "::warning file=agents/a%2Cb%3Ac%25.yaml,line=2,col=9,endLine=2,endColumn=22,title=shell-policy::any program may run: 100%25 of them%0Areally%0Ahelp: list them in `allowed_programs`\n\
         agents/a,b:c%25.yaml: 0 errors, 1 warning\n"
    );
}

#[test]
fn json_and_sarif_carry_the_warning_level() {
    let value = json::to_value(&[warned()]);
    assert_eq!(value[0]["severity"], "warning");
    assert_eq!(value[0]["help"], "list them in `allowed_programs`");
    let log = sarif::to_value(&[warned()]);
    let result = &log["runs"][0]["results"][0];
    assert_eq!(result["level"], "warning");
    assert_eq!(result["ruleId"], "shell-policy");
    assert_eq!(
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "agents/a%2Cb%3Ac%25.yaml"
    );
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert_eq!(rules.len(), Rule::ALL.len());
}

#[test]
fn empty_reports_render_in_every_format() {
    assert_eq!(
        render(Format::Human, &[]),
        "0 errors, 0 warnings in 0 files\n"
    );
    assert_eq!(render(Format::Json, &[]), "[]\n");
    assert_eq!(render(Format::Github, &[]), "");
    let log: serde_json::Value = serde_json::from_str(&render(Format::Sarif, &[])).unwrap();
    assert_eq!(log["runs"][0]["results"], serde_json::json!([]));
}

#[test]
fn a_span_far_into_a_long_line_gets_its_place_without_a_quote() {
    let line = format!("model: {{{}k: 1}}\n", "a: 1, ".repeat(200));
    let offset = line.find("k:").unwrap();
    let report = FileReport::new(
        "a.yaml",
        line.clone().into_bytes(),
        vec![Diagnostic::error(
            Rule::UnknownField,
            span(1, offset + 1, offset, 1),
            "far",
        )],
    );
    let text = human::render(&[report]);
    assert!(
        text.contains(&format!("--> a.yaml:1:{}", offset + 1)),
        "{text}"
    );
    assert!(text.contains("the line is too long to quote"), "{text}");
    assert!(!text.contains("a: 1, a: 1"), "{text}");
}

//! The command line's help and suggestions.

use super::{folder, run, stderr, stdout};

#[test]
fn a_mistyped_subcommand_gets_a_suggestion() {
    let dir = folder(&[]);
    let output = run(dir.path(), &["chek"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("'check'"), "{}", stderr(&output));
}

#[test]
fn help_lists_the_commands_with_examples() {
    let dir = folder(&[]);
    let output = run(dir.path(), &["--help"]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert!(text.contains("check") && text.contains("schema"), "{text}");
    assert!(text.contains("Examples:\n  starweaver run"), "{text}");
    assert!(text.contains("\n  starweaver check "), "{text}");
    let output = run(dir.path(), &["check", "--help"]);
    let text = stdout(&output);
    assert!(
        text.contains("--deny-warnings") && text.contains("--format"),
        "{text}"
    );
    assert!(
        text.contains("starweaver check agents/triage.yaml --format json"),
        "{text}"
    );
}

//! Which crate carries what. `starweaver-config` is a library: no
//! argument parser, terminal crate or report renderer reaches its normal
//! dependency tree, with every feature on. Those belong to the command
//! line, `starweaver-cli`.

use crate::common::cargo;

/// What only the command line may depend on.
const COMMAND_LINE_ONLY: &[&str] = &[
    "clap",
    "clap_complete",
    "annotate-snippets",
    "console",
    "indicatif",
    "dialoguer",
    "inquire",
    "anstream",
];

#[test]
fn the_config_crate_has_no_argument_parser_terminal_or_report_renderer() {
    let tree = cargo::normal_tree("starweaver-config", &["--all-features"]);
    // The tree was read: the crate and what it is built on are in it.
    for expected in ["starweaver-config", "starweaver-core", "granit-parser"] {
        assert!(tree.contains(expected), "{expected} missing from {tree:?}");
    }
    let found: Vec<&&str> = COMMAND_LINE_ONLY
        .iter()
        .filter(|name| tree.contains(**name))
        .collect();
    assert!(
        found.is_empty(),
        "starweaver-config depends on {found:?}; they belong to starweaver-cli"
    );
}

#[test]
fn the_command_line_crate_carries_them() {
    let tree = cargo::normal_tree("starweaver-cli", &["--all-features"]);
    for expected in ["clap", "annotate-snippets", "console", "starweaver-config"] {
        assert!(tree.contains(expected), "{expected} missing from {tree:?}");
    }
}

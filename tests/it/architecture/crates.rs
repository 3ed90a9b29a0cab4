//! Which crate carries what. `starweaver-config` is a library: no
//! argument parser, terminal crate or report renderer reaches its normal
//! dependency tree, with every feature on. Those belong to the command
//! line, `starweaver-cli`.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

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

/// Every crate name in `cargo tree -p PACKAGE --all-features -e normal`.
fn normal_tree(package: &str) -> BTreeSet<String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
        .args(["tree", "--offline", "--locked", "-p", package])
        .args(["--all-features", "-e", "normal", "--prefix", "none"])
        .args(["--format", "{p}"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_config_crate_has_no_argument_parser_terminal_or_report_renderer() {
    let tree = normal_tree("starweaver-config");
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
    let tree = normal_tree("starweaver-cli");
    for expected in ["clap", "annotate-snippets", "console", "starweaver-config"] {
        assert!(tree.contains(expected), "{expected} missing from {tree:?}");
    }
}

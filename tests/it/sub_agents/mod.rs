//! Sub-agents: agents offered as tools, in code, in manifests and on the command line. In
//! manifests (`type: agents`): the tree the checker reads (each file checked as a manifest of
//! its own, cycles, missing files and depth at the `path:` that makes the edge),
//! `check --explain` showing the tree, and loading a tree into one tool per sub-agent; the
//! runtime: what crosses the boundary between a run and its sub-agents.

mod check;
mod cli;
mod load;
mod runtime;

use starweaver::config::validate::{check_tree, CheckContext, TreeCheck};

use crate::run_cli::folder;

/// A manifest named `name` whose `agents` toolset names `paths`, with the rest of `extra`
/// (more YAML under the toolset entry) after them.
pub fn parent(name: &str, paths: &[&str], extra: &str) -> String {
    let mut text = format!(
        "version: 1\nname: {name}\nmodel: {{id: test}}\ntoolsets:\n  - type: agents\n    name: helpers\n    agents:\n"
    );
    for path in paths {
        text.push_str(&format!("      - path: {path}\n"));
    }
    text.push_str(extra);
    text
}

/// A manifest with no sub-agents.
pub fn leaf(name: &str) -> String {
    format!("version: 1\nname: {name}\nmodel: {{id: test}}\n")
}

/// Checks `root` (a file of `files`) in a folder holding `files`; the folder stays while the
/// result is read.
pub fn check_root(files: &[(&str, &str)], root: &str) -> (tempfile::TempDir, TreeCheck) {
    let dir = folder(files);
    let path = dir.path().join(root);
    let bytes = std::fs::read(&path).unwrap();
    let tree = check_tree(&bytes, &CheckContext::new().with_file(&path));
    (dir, tree)
}

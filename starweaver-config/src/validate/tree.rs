//! A manifest and the sub-agent manifests its `agents` toolsets name, checked as one tree.
//!
//! Every file of the tree is checked as a manifest of its own, in its own folder, and its
//! diagnostics stay in that file, at its own lines ([`FileCheck`]). What only the tree can
//! show is reported where the tree is written, at the `path:` that makes the edge: a file
//! that leads back to one above it (`agent-cycle`), a tree deeper than a `max_depth` on its
//! path allows (`agent-depth`), and a sub-agent whose file has errors (`agent-invalid`, so the
//! manifest above it cannot load either).

use std::path::{Path, PathBuf};

use super::Checked;
use crate::diagnostics::Diagnostic;

/// The most manifests one tree reads (the root included): a tree of many small files that name
/// each other many times over cannot make one check run away.
pub(crate) const MAX_TREE_FILES: usize = 64;

/// One sub-agent manifest of a tree, as the checker read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileCheck {
    /// The file, as its parent's folder and `path:` name it (`agents/reviewer.yaml`).
    pub file: PathBuf,
    /// Its text, for quoting in a report.
    pub bytes: Vec<u8>,
    /// Its problems, at its own lines, in source order; empty when it is clean.
    pub diagnostics: Vec<Diagnostic>,
}

/// A manifest checked with its sub-agents ([`super::check_tree`]).
#[derive(Debug)]
pub struct TreeCheck {
    /// The manifest's own problems, in source order (a sub-agent with errors is one
    /// `agent-invalid` error here, at its `path:`).
    pub diagnostics: Vec<Diagnostic>,
    /// The checked manifest, its sub-agents' with it; `None` when the tree has an error.
    pub checked: Option<Checked>,
    /// Every sub-agent file below it, each once, in the order the walk first reached it.
    pub sub_agents: Vec<FileCheck>,
}

/// One file on the walk's path from the root: where it is and how messages name it.
#[derive(Clone, Debug)]
struct Step {
    /// Its canonical path, when the file is known and exists.
    canonical: Option<PathBuf>,
    /// As messages show it.
    shown: String,
}

/// Where the walk of one tree is: the files from the root to the one being checked, how many
/// levels its sub-agents may still add, and how many files the walk has read.
#[derive(Debug)]
pub(crate) struct TreeState {
    path: Vec<Step>,
    levels_left: Option<u32>,
    visited: usize,
}

impl TreeState {
    /// The walk of a tree whose root is the file `file` (when the caller names it).
    pub(crate) fn root(file: Option<&Path>) -> Self {
        let step = match file {
            Some(file) => Step {
                canonical: std::fs::canonicalize(file).ok(),
                shown: file.display().to_string(),
            },
            None => Step {
                canonical: None,
                shown: "this manifest".to_string(),
            },
        };
        Self {
            path: vec![step],
            levels_left: None,
            visited: 1,
        }
    }

    /// The levels a toolset whose own limit is `max_depth` may still add below the current
    /// file: the smaller of its limit and what the files above left.
    pub(crate) fn levels_for(&self, max_depth: u32) -> u32 {
        self.levels_left
            .map_or(max_depth, |left| left.min(max_depth))
    }

    /// The level a sub-agent of the current file is at (the root's sub-agents are level 1).
    pub(crate) fn next_level(&self) -> usize {
        self.path.len()
    }

    /// The chain from the root to the current file, then `last`: `a.yaml -> b.yaml -> c.yaml`.
    pub(crate) fn chain(&self, last: &str) -> String {
        let mut parts: Vec<&str> = self.path.iter().map(|step| step.shown.as_str()).collect();
        parts.push(last);
        parts.join(" -> ")
    }

    /// The chain from the file on the path that is `canonical` back to itself, when the file is
    /// on the path: the cycle a sub-agent of the current file would close.
    pub(crate) fn cycle(&self, canonical: &Path, shown: &str) -> Option<String> {
        let start = self
            .path
            .iter()
            .position(|step| step.canonical.as_deref() == Some(canonical))?;
        let mut parts: Vec<&str> = self.path[start..]
            .iter()
            .map(|step| step.shown.as_str())
            .collect();
        parts.push(shown);
        Some(parts.join(" -> "))
    }

    /// Whether the walk has read as many files as one tree may.
    pub(crate) fn is_full(&self) -> bool {
        self.visited >= MAX_TREE_FILES
    }

    /// Runs `check` with `child` as the current file, whose sub-agents may add `levels` more
    /// levels below it.
    pub(crate) fn enter<T>(
        &mut self,
        canonical: PathBuf,
        shown: String,
        levels: u32,
        check: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let saved = self.levels_left.replace(levels);
        self.visited += 1;
        self.path.push(Step {
            canonical: Some(canonical),
            shown,
        });
        let result = check(self);
        self.path.pop();
        self.levels_left = saved;
        result
    }
}

/// Adds `file` to `files`, or, when the walk reached it before (two manifests of the tree
/// naming one sub-agent), the diagnostics it has that the first visit did not.
pub(crate) fn merge(files: &mut Vec<FileCheck>, file: FileCheck) {
    match files.iter_mut().find(|known| known.file == file.file) {
        Some(known) => {
            for diagnostic in file.diagnostics {
                if !known.diagnostics.contains(&diagnostic) {
                    known.diagnostics.push(diagnostic);
                }
            }
            known
                .diagnostics
                .sort_by_key(|diagnostic| diagnostic.span.start.offset);
        }
        None => files.push(file),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smallest_limit_on_the_path_applies() {
        let mut state = TreeState::root(None);
        // The root's toolset allows two levels.
        assert_eq!(state.levels_for(2), 2);
        assert_eq!(state.next_level(), 1);
        let inner = state.enter(PathBuf::from("/b"), "b".into(), 1, |state| {
            // A child's wider limit cannot widen what its parent left.
            let wide = state.levels_for(5);
            let narrow = state.enter(PathBuf::from("/c"), "c".into(), 0, |state| {
                (state.levels_for(3), state.next_level())
            });
            (wide, state.levels_for(1), narrow)
        });
        assert_eq!(inner, (1, 1, (0, 3)));
        // Leaving restores the root's state.
        assert_eq!(state.levels_for(7), 7);
        assert_eq!(state.next_level(), 1);
    }

    #[test]
    fn a_file_already_on_the_path_is_a_cycle_named_from_where_it_starts() {
        let mut state = TreeState::root(None);
        let found = state.enter(PathBuf::from("/a"), "a.yaml".into(), 2, |state| {
            state.enter(PathBuf::from("/b"), "b.yaml".into(), 1, |state| {
                (
                    state.cycle(Path::new("/a"), "a.yaml"),
                    state.cycle(Path::new("/c"), "c.yaml"),
                    state.chain("c.yaml"),
                )
            })
        });
        assert_eq!(found.0.as_deref(), Some("a.yaml -> b.yaml -> a.yaml"));
        assert_eq!(found.1, None);
        assert_eq!(found.2, "this manifest -> a.yaml -> b.yaml -> c.yaml");
    }

    #[test]
    fn the_walk_stops_at_the_file_limit() {
        let mut state = TreeState::root(None);
        assert!(!state.is_full());
        state.visited = MAX_TREE_FILES;
        assert!(state.is_full());
    }

    #[test]
    fn a_file_reached_twice_keeps_each_diagnostic_once() {
        use crate::diagnostics::Rule;
        use crate::yaml::{Position, Span};
        let at = |line| Span::point(Position::new(line, 1, line * 10));
        let one = Diagnostic::error(Rule::AgentCycle, at(2), "one");
        let two = Diagnostic::error(Rule::AgentDepth, at(1), "two");
        let file = |diagnostics| FileCheck {
            file: PathBuf::from("b.yaml"),
            bytes: Vec::new(),
            diagnostics,
        };
        let mut files = Vec::new();
        merge(&mut files, file(vec![one.clone()]));
        merge(&mut files, file(vec![one.clone(), two.clone()]));
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].diagnostics, [two, one]);
    }
}

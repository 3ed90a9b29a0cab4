//! `type: agents`: each `agents[].path` a manifest inside this manifest's folder
//! (`path-escape`) that exists and can be read (`missing-file`, at the `path:` value), which
//! is then checked as a manifest of its own, in its own folder, its diagnostics in its own file.
//! At the `path:` that makes the edge: a file already on the way from the root (`agent-cycle`,
//! naming the chain), a level deeper than the smallest `max_depth` on the path allows
//! (`agent-depth`), and a sub-agent whose file has errors (`agent-invalid`).
//!
//! `max_depth` counts levels below the manifest that sets it (its sub-agents are level 1), and
//! a sub-agent's own `max_depth` can only narrow what the manifests above it left: the
//! smallest limit on the path applies. So a sub-agent checked alone never allows less than it
//! does inside a tree.

use std::collections::BTreeMap;
use std::path::Path;

use super::model::short;
use super::CheckContext;
use crate::diagnostics::{Diagnostic, Rule, Severity};
use crate::files::{read_limited, ReadLimitedError};
use crate::manifest::DEFAULT_AGENT_MAX_DEPTH;
use crate::paths::{manifest_file, FileProblem};
use crate::validate::tree::{merge, FileCheck, TreeState, MAX_TREE_FILES};
use crate::validate::Checked;
use crate::yaml::{Node, Span, Value};

/// A sub-agent by its place: (index in `toolsets:`, index in that entry's `agents:`).
pub(super) type Place = (usize, usize);

/// What the sub-agents of one manifest gave the check.
#[derive(Debug, Default)]
pub(super) struct Agents {
    /// Each readable sub-agent manifest's `name`, the default name of its tool.
    pub names: BTreeMap<Place, String>,
    /// The problems found at this manifest's `path:` values.
    pub found: Vec<Diagnostic>,
    /// Each sub-agent's checked manifest, when it has no error.
    pub checked: BTreeMap<Place, Checked>,
    /// Every file below this manifest, each once.
    pub files: Vec<FileCheck>,
}

/// Reads and checks every sub-agent the manifest names. Needs the manifest's folder: without
/// one ([`super::super::check`] with a bare context) nothing is read.
pub(super) fn read(root: &Node, context: &CheckContext, state: &mut TreeState) -> Agents {
    let mut agents = Agents::default();
    let Some(base_dir) = context.base_dir() else {
        return agents;
    };
    let entries = root
        .get("toolsets")
        .and_then(Node::as_sequence)
        .unwrap_or_default();
    for (index, entry) in entries.iter().enumerate() {
        if entry.get("type").and_then(Node::as_str) != Some("agents") {
            continue;
        }
        let max_depth = max_depth(entry);
        let items = entry
            .get("agents")
            .and_then(Node::as_sequence)
            .unwrap_or_default();
        for (at, item) in items.iter().enumerate() {
            let Some(path) = item.get("path") else {
                continue;
            };
            let Some(text) = path.as_str() else { continue };
            let edge = Edge {
                place: (index, at),
                text,
                span: path.span,
                max_depth,
            };
            one(&edge, base_dir, context, state, &mut agents);
        }
    }
    agents
}

/// An `agents` entry's `max_depth`, or the default when it is unset or not a level count (the
/// structure pass reports that).
fn max_depth(entry: &Node) -> u32 {
    match entry.get("max_depth").map(|node| &node.value) {
        Some(Value::Int(levels)) if *levels >= 1 => u32::try_from(*levels).unwrap_or(u32::MAX),
        _ => DEFAULT_AGENT_MAX_DEPTH,
    }
}

/// One `agents[]` item: where it is and what its `path:` says.
struct Edge<'a> {
    place: Place,
    /// The `path:` as written.
    text: &'a str,
    /// Where the `path:` value is.
    span: Span,
    /// Its toolset's `max_depth`.
    max_depth: u32,
}

/// Checks the sub-agent `edge` names.
fn one(
    edge: &Edge<'_>,
    base_dir: &Path,
    context: &CheckContext,
    state: &mut TreeState,
    agents: &mut Agents,
) {
    let Edge {
        place,
        text,
        span,
        max_depth,
    } = *edge;
    let written = short(text);
    let file = match manifest_file(base_dir, text) {
        Ok(file) => file,
        Err(FileProblem::OutsideFolder) => {
            agents.found.push(
                Diagnostic::error(
                    Rule::PathEscape,
                    span,
                    format!("the sub-agent `{written}` is outside the manifest's folder"),
                )
                .with_help(
                    "put the sub-agent's manifest beside this one (or in a folder inside it) and name it relative to this manifest",
                ),
            );
            return;
        }
    };
    let limit = context.budgets().max_document_bytes as u64;
    let bytes = match read_limited(&file, limit) {
        Ok(bytes) => bytes,
        Err(error) => {
            agents.found.push(unreadable(&written, span, &error));
            return;
        }
    };
    let canonical = match std::fs::canonicalize(&file) {
        Ok(canonical) => canonical,
        Err(error) => {
            agents
                .found
                .push(unreadable(&written, span, &ReadLimitedError::Io(error)));
            return;
        }
    };
    let shown = file.display().to_string();
    if let Some(chain) = state.cycle(&canonical, &shown) {
        agents.found.push(
            Diagnostic::error(
                Rule::AgentCycle,
                span,
                format!("the sub-agent `{written}` leads back to a manifest above it: {chain}"),
            )
            .with_help("remove one sub-agent of the chain, so no manifest is its own sub-agent"),
        );
        return;
    }
    let levels = state.levels_for(max_depth);
    if levels == 0 {
        let level = state.next_level();
        agents.found.push(
            Diagnostic::error(
                Rule::AgentDepth,
                span,
                format!(
                    "the sub-agent `{written}` would be level {level} of the tree ({}), deeper than the `max_depth` of {} that applies here",
                    state.chain(&shown),
                    level - 1
                ),
            )
            .with_help(
                "raise `max_depth` on the `agents` toolsets along the path (the smallest one applies), or give this work to an agent higher up",
            ),
        );
        return;
    }
    if state.is_full() {
        agents.found.push(
            Diagnostic::error(
                Rule::AgentDepth,
                span,
                format!(
                    "the sub-agent `{written}` would be more than the {MAX_TREE_FILES} manifests one tree may hold"
                ),
            )
            .with_help("name fewer sub-agents, or fewer levels of them"),
        );
        return;
    }
    let child = context.for_sub_agent(&file);
    let outcome = state.enter(canonical, shown, levels - 1, |state| {
        crate::validate::check_in(&bytes, &child, state)
    });
    if let Some(name) = outcome.name {
        agents.names.insert(place, name);
    }
    let errors: Vec<&Diagnostic> = outcome
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.severity == Severity::Error)
        .collect();
    if let Some(first) = errors.first() {
        let count = match errors.len() {
            1 => "an error".to_string(),
            many => format!("{many} errors"),
        };
        agents.found.push(
            Diagnostic::error(
                Rule::AgentInvalid,
                span,
                format!(
                    "the sub-agent `{written}` has {count} (reported in `{}`), so this manifest cannot load either",
                    file.display()
                ),
            )
            .with_note(format!(
                "the first, at {}:{}: {}[{}]: {}",
                first.span.start.line,
                first.span.start.column,
                first.severity,
                first.rule,
                first.message
            ))
            .with_help(format!("fix the errors of `{}`", file.display())),
        );
    }
    if let Some(checked) = outcome.checked {
        agents.checked.insert(place, checked);
    }
    merge(
        &mut agents.files,
        FileCheck {
            file,
            bytes,
            diagnostics: outcome.diagnostics,
        },
    );
    for below in outcome.sub_agents {
        merge(&mut agents.files, below);
    }
}

/// `missing-file` for a sub-agent file that cannot be read.
fn unreadable(written: &str, span: Span, error: &ReadLimitedError) -> Diagnostic {
    match error {
        ReadLimitedError::Io(error) if error.kind() == std::io::ErrorKind::NotFound => {
            Diagnostic::error(
                Rule::MissingFile,
                span,
                format!("the sub-agent file `{written}` does not exist"),
            )
            .with_help(
                "create it, or name an existing manifest (relative to this manifest's folder)",
            )
        }
        ReadLimitedError::TooLarge { limit } => Diagnostic::error(
            Rule::MissingFile,
            span,
            format!("the sub-agent file `{written}` holds more than {limit} bytes, the manifest size limit"),
        )
        .with_help(format!(
            "make it smaller, or raise the limit with `{}`",
            crate::check::MAX_MANIFEST_BYTES_FLAG
        )),
        other => Diagnostic::error(
            Rule::MissingFile,
            span,
            format!("cannot read the sub-agent file `{written}`: {other}"),
        )
        .with_help("name a readable manifest file (relative to this manifest's folder)"),
    }
}

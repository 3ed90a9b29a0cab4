//! Follow-on problems across the passes: a proxy or search naming a toolset that no entry has,
//! when an entry lost its name to a structural problem (a misspelled `type:`, whose default
//! name it would have had, or a missing `name:`), is a consequence of that problem. It is
//! folded into the structural diagnostic as a note instead of standing as an error of its own.

use std::collections::HashMap;

use super::model::short;
use super::toolsets::{entries, unresolved_references, Entry, Reference};
use crate::diagnostics::{Diagnostic, Rule};
use crate::validate::suggest;
use crate::yaml::{Document, Span};

/// The bundle types that have a default name (the type itself).
const DEFAULT_NAMED: [&str; 3] = ["filesystem", "shell", "user_input"];

/// Every known toolset type.
const KINDS: [&str; 9] = [
    "tools",
    "filesystem",
    "shell",
    "user_input",
    "proxy",
    "search",
    "deferred",
    "mcp",
    "agents",
];

/// `found` with each `unknown-toolset` that follows from a nameless entry moved into that
/// entry's structural diagnostic as a note.
pub(in crate::validate) fn fold(
    document: &Document,
    mut found: Vec<Diagnostic>,
) -> Vec<Diagnostic> {
    // Only names matter here, and an `agents` entry's name is its own `name:`.
    let no_agents = std::collections::BTreeMap::new();
    let entries = entries(&document.root, &no_agents);
    let causes: Vec<Cause> = entries.iter().filter_map(cause).collect();
    if causes.is_empty() {
        return found;
    }
    // Indexed once, so a file with many references costs time in proportion to its size.
    let unknown: HashMap<Span, usize> = found
        .iter()
        .enumerate()
        .filter(|(_, d)| {
            d.rule == Rule::UnknownToolset
                // A typo of a declared name is a mistake of its own.
                && !d.help.as_deref().unwrap_or_default().starts_with("did you mean")
        })
        .map(|(index, d)| (d.span, index))
        .collect();
    let mut structural: HashMap<Span, Vec<usize>> = HashMap::new();
    for (index, d) in found.iter().enumerate() {
        if matches!(d.rule, Rule::InvalidValue | Rule::MissingField) {
            structural.entry(d.span).or_default().push(index);
        }
    }
    let report_of = |cause: &Cause| {
        structural
            .get(&cause.span)?
            .iter()
            .copied()
            .find(|index| cause.explains(&found[*index]))
    };
    // The first misspelled entry per default name it would have, and the first nameless one.
    let mut misspelled: HashMap<&str, (usize, &Cause)> = HashMap::new();
    let mut nameless: Option<(usize, &Cause)> = None;
    for cause in &causes {
        let Some(index) = report_of(cause) else {
            continue;
        };
        match cause.kind {
            CauseKind::MisspelledType {
                default_name: Some(name),
                ..
            } => {
                misspelled.entry(name).or_insert((index, cause));
            }
            CauseKind::MissingName => {
                nameless.get_or_insert((index, cause));
            }
            CauseKind::MisspelledType { .. } => {}
        }
    }
    let mut folded = vec![false; found.len()];
    for reference in unresolved_references(&entries) {
        let Some(&at) = unknown.get(&reference.target.span) else {
            continue;
        };
        let chosen = misspelled.get(reference.target.text).copied().or(nameless);
        let Some((index, note)) =
            chosen.and_then(|(index, cause)| cause.note(&reference).map(|note| (index, note)))
        else {
            continue;
        };
        found[index].notes.push(note);
        folded[at] = true;
    }
    found
        .into_iter()
        .zip(folded)
        .filter_map(|(diagnostic, folded)| (!folded).then_some(diagnostic))
        .collect()
}

/// A nameless entry and the structural diagnostic that says why.
struct Cause {
    /// What it is: a misspelled type that would give it a default name, or a missing name.
    kind: CauseKind,
    /// Where the structural diagnostic is: the `type:` value, or the entry's mapping.
    span: Span,
}

enum CauseKind {
    /// `type:` is no known type; the closest type's default name, if it has one.
    MisspelledType {
        meant: &'static str,
        default_name: Option<&'static str>,
    },
    /// A type that needs a `name:` and has none.
    MissingName,
}

/// Why `entry` has no name, when it is a structural problem.
fn cause(entry: &Entry<'_>) -> Option<Cause> {
    if entry.name.is_some() {
        return None;
    }
    if KINDS.contains(&entry.kind) {
        // A known type without a name: one that needs one (the others have defaults).
        // A name of the wrong kind is reported as such, not as missing.
        let absent = entry
            .node
            .get("name")
            .is_none_or(|name| name.as_str().is_some());
        return absent.then_some(Cause {
            kind: CauseKind::MissingName,
            span: entry.node.span,
        });
    }
    let meant = suggest::closest(entry.kind, &KINDS)?;
    let default_name = DEFAULT_NAMED.iter().copied().find(|kind| *kind == meant);
    Some(Cause {
        kind: CauseKind::MisspelledType {
            meant,
            default_name,
        },
        span: entry.kind_span,
    })
}

impl Cause {
    /// Whether `diagnostic` is the structural report of this cause.
    fn explains(&self, diagnostic: &Diagnostic) -> bool {
        diagnostic.span == self.span
            && match self.kind {
                CauseKind::MisspelledType { .. } => diagnostic.rule == Rule::InvalidValue,
                CauseKind::MissingName => {
                    diagnostic.rule == Rule::MissingField && diagnostic.message.contains("`name`")
                }
            }
    }

    /// The note for a reference this cause explains, if it does.
    fn note(&self, reference: &Reference<'_>) -> Option<String> {
        let target = short(reference.target.text);
        let by = format!(
            "{} `{}` (line {}) names `{target}`",
            reference.wrapper_kind,
            short(reference.wrapper),
            reference.target.span.start.line
        );
        match self.kind {
            CauseKind::MisspelledType {
                meant,
                default_name: Some(name),
            } if name == reference.target.text => Some(format!(
                "{by}: the name this toolset gets as `type: {meant}`, so fixing the type fixes \
                 that too"
            )),
            CauseKind::MissingName => Some(format!(
                "{by}, which no toolset is named: is this toolset meant to be `{target}`?"
            )),
            CauseKind::MisspelledType { .. } => None,
        }
    }
}

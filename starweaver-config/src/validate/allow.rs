//! Allow markers: a comment `# starweaver-check: allow(RULE)` alone on the line before a node
//! silences that rule's warnings inside the node, for the deliberate exception a team has
//! reviewed. A marker that silences nothing is reported, so stale markers do not pile up.
//!
//! An error is never silenced: an error means the manifest cannot load as written, and a
//! check that passed it would hand the loader a manifest it cannot build. An error a marker
//! names stays an error, with a note saying the marker cannot allow it.

use super::suggest;
use crate::diagnostics::{Diagnostic, Rule, Severity};
use crate::yaml::{Document, Node, Position};

/// The marker's prefix, after the `#`.
const PREFIX: &str = "starweaver-check:";

/// Drops the warnings the document's markers allow, notes on each error a marker names that it
/// stays, and adds one warning per marker rule that matched nothing (or that names no rule).
pub(super) fn apply(document: &Document, diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut kept = diagnostics;
    kept.sort_by_key(|diagnostic| diagnostic.span.start);
    let mut silenced = vec![false; kept.len()];
    let mut extra = Vec::new();
    for comment in document.comments.iter().filter(|comment| comment.own_line) {
        let Some(names) = marker(&comment.text) else {
            continue;
        };
        let (start, end) = scope(&document.root, comment.line() + 1);
        for name in names {
            let Some(rule) = Rule::from_name(name) else {
                let all: Vec<&str> = Rule::ALL.iter().map(|rule| rule.as_str()).collect();
                extra.push(
                    Diagnostic::warning(
                        Rule::InvalidValue,
                        comment.span,
                        format!("allow marker names `{}`, which is no rule", short(name)),
                    )
                    .with_help(suggest::help(name, &all, "rule names")),
                );
                continue;
            };
            // Diagnostics are sorted by start, so the node's are one run.
            let first = kept.partition_point(|d| d.span.start < start);
            let last = kept.partition_point(|d| d.span.start <= end);
            let mut any = false;
            for index in first..last.max(first) {
                if kept[index].rule != rule {
                    continue;
                }
                any = true;
                if kept[index].severity == Severity::Error {
                    let line = comment.line();
                    kept[index].notes.push(format!(
                        "the `allow({rule})` marker on line {line} cannot allow it: an error \
                         stops the manifest from loading, so only warnings can be allowed"
                    ));
                } else {
                    silenced[index] = true;
                }
            }
            if !any {
                extra.push(
                    Diagnostic::warning(
                        rule,
                        comment.span,
                        format!("this `allow({rule})` marker allows nothing on the next line"),
                    )
                    .with_help(
                        "remove the marker, or move it to the line before the node it is for",
                    ),
                );
            }
        }
    }
    let mut flags = silenced.into_iter();
    kept.retain(|_| !flags.next().unwrap_or(false));
    kept.extend(extra);
    kept.sort_by_key(|diagnostic| diagnostic.span.start);
    kept
}

/// The rule names of `starweaver-check: allow(a, b)`; `None` for any other comment.
fn marker(text: &str) -> Option<Vec<&str>> {
    let rest = text.trim().strip_prefix(PREFIX)?.trim();
    let inner = rest.strip_prefix("allow(")?.strip_suffix(')')?;
    Some(
        inner
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .collect(),
    )
}

/// From the start of the node that begins on `line` to the end of the largest such node; the
/// whole line when no node begins there.
fn scope(root: &Node, line: usize) -> (Position, Position) {
    let mut found: Option<(Position, Position)> = None;
    visit(root, line, &mut found);
    found.unwrap_or((
        Position::new(line, 1, 0),
        Position::new(line, usize::MAX, usize::MAX),
    ))
}

/// Widens `found` to cover `start..end` when that range begins on `line`.
fn widen(found: &mut Option<(Position, Position)>, line: usize, start: Position, end: Position) {
    if start.line == line {
        let (low, high) = found.get_or_insert((start, end));
        *low = (*low).min(start);
        *high = (*high).max(end);
    }
}

fn visit(node: &Node, line: usize, found: &mut Option<(Position, Position)>) {
    widen(found, line, node.span.start, node.span.end);
    if let Some(entries) = node.as_mapping() {
        for (key, value) in entries {
            widen(
                found,
                line,
                key.span.start,
                value.span.end.max(key.span.end),
            );
            if key.span.start.line <= line && value.span.end.line >= line {
                visit(value, line, found);
            }
        }
    } else if let Some(items) = node.as_sequence() {
        for item in items {
            if item.span.start.line <= line && item.span.end.line >= line {
                visit(item, line, found);
            }
        }
    }
}

/// At most 64 characters of a name, so a huge marker keeps the message short.
fn short(text: &str) -> String {
    text.chars().take(64).collect()
}

#[cfg(test)]
mod tests {
    use super::marker;

    #[test]
    fn markers_are_read_only_in_their_exact_form() {
        assert_eq!(
            marker(" starweaver-check: allow(shell-policy)"),
            Some(vec!["shell-policy"])
        );
        assert_eq!(
            marker("starweaver-check: allow(a, b)"),
            Some(vec!["a", "b"])
        );
        assert_eq!(marker("starweaver-check allow(a)"), None);
        assert_eq!(marker("a note"), None);
    }
}

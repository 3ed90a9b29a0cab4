//! `duplicate-name`: two toolsets with one name, or two tools the agent would see under one
//! final name (after prefixes). Toolsets behind a proxy are reachable only through it, so their
//! tools do not join the agent's list.
//!
//! A repeated toolset name is one mistake, reported once: the tools the two toolsets then
//! share, and a proxy or search naming a toolset that no entry has (usually the name the
//! repeated one was meant to have), are notes of that diagnostic rather than errors of their own.

use std::collections::HashMap;

use super::model::short;
use super::toolsets::{called_by_name, unresolved_references, Entry, Folding, Reference};
use crate::diagnostics::{Diagnostic, Rule};
use crate::validate::suggest;
use crate::yaml::Span;

/// One repeated toolset name, before its notes are known.
struct Repeat<'a> {
    /// The name both toolsets have.
    name: &'a str,
    /// Where the repeated name is.
    span: Span,
    /// Line of the first toolset with the name.
    first_line: usize,
    /// The tools the two would both give the agent, in order.
    shared_tools: Vec<String>,
}

/// Every second and later use of a toolset or final tool name.
pub(super) fn check(entries: &[Entry<'_>]) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let mut toolsets: HashMap<&str, Span> = HashMap::new();
    // By the index of the entry whose name repeats an earlier one.
    let mut repeats: Vec<(usize, Repeat<'_>)> = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let Some(name) = entry.name.as_ref() else {
            continue;
        };
        if let Some(first) = toolsets.get(name.text) {
            repeats.push((
                index,
                Repeat {
                    name: name.text,
                    span: name.span,
                    first_line: first.start.line,
                    shared_tools: Vec::new(),
                },
            ));
        } else {
            toolsets.insert(name.text, name.span);
        }
    }
    let mut tools: HashMap<String, (Span, &str, &str)> = HashMap::new();
    for (index, entry) in called_by_name(entries) {
        let owner = entry.owner();
        let mut repeat = repeats
            .iter_mut()
            .find(|(at, _)| *at == index)
            .map(|(_, repeat)| repeat);
        for tool in entry.tools() {
            let final_name = entry.final_name(tool.text);
            if let Some((first, first_owner, first_tool)) = tools.get(&final_name) {
                // Two toolsets of one name sharing a tool: a consequence of the name.
                if let Some(repeat) = repeat.as_mut().filter(|_| *first_owner == owner) {
                    repeat.shared_tools.push(final_name);
                    continue;
                }
                // Two names of one MCP server that map to the same provider name.
                if entry.is_mcp() && *first_owner == owner {
                    found.push(
                        Diagnostic::error(
                            Rule::DuplicateName,
                            tool.span,
                            format!(
                                "`{}` and `{}` (line {}) of toolset `{}` both reach the model as \
                                 `{}`: characters tool names cannot hold become `_`",
                                short(tool.text),
                                short(first_tool),
                                first.start.line,
                                short(owner),
                                short(&final_name)
                            ),
                        )
                        .with_help("list only one of them in `tools:`"),
                    );
                    continue;
                }
                found.push(
                    Diagnostic::error(
                        Rule::DuplicateName,
                        tool.span,
                        format!(
                            "the agent would have two tools named `{}`: one from toolset `{}` \
                             (line {}) and one from toolset `{}`",
                            short(&final_name),
                            short(first_owner),
                            first.start.line,
                            short(owner)
                        ),
                    )
                    .with_help("set `prefix:` on one of the toolsets, or drop the tool from one"),
                );
            } else {
                tools.insert(final_name, (tool.span, owner, tool.text));
            }
        }
    }
    let folding = Folding::new(entries);
    let unresolved: Vec<Reference<'_>> = if repeats.is_empty() {
        Vec::new()
    } else {
        unresolved_references(entries)
            .into_iter()
            .filter(|reference| folding.folds(reference.target.text))
            .collect()
    };
    for (position, (_, repeat)) in repeats.into_iter().enumerate() {
        found.push(repeated(
            repeat,
            if position == 0 { &unresolved } else { &[] },
        ));
    }
    found
}

/// The diagnostic of one repeated name, with what it causes as notes; the references that name
/// no toolset go on the first one.
fn repeated(repeat: Repeat<'_>, unresolved: &[Reference<'_>]) -> Diagnostic {
    let name = short(repeat.name);
    let mut diagnostic = Diagnostic::error(
        Rule::DuplicateName,
        repeat.span,
        format!(
            "two toolsets are named `{name}` (the first at line {})",
            repeat.first_line
        ),
    );
    if !repeat.shared_tools.is_empty() {
        let listed: Vec<&str> = repeat.shared_tools.iter().map(String::as_str).collect();
        diagnostic = diagnostic.with_note(format!(
            "so the agent would also get two of each of their tools: {}",
            suggest::list(&listed)
        ));
    }
    for reference in unresolved {
        diagnostic = diagnostic.with_note(format!(
            "{} `{}` (line {}) names `{}`, which no toolset is named: is one of the two `{name}` \
             meant to be `{}`?",
            reference.wrapper_kind,
            short(reference.wrapper),
            reference.target.span.start.line,
            short(reference.target.text),
            short(reference.target.text),
        ));
    }
    let help = match (unresolved.first(), repeat.shared_tools.is_empty()) {
        (Some(reference), _) => format!(
            "rename the toolset meant to be `{}`",
            short(reference.target.text)
        ),
        (None, true) => "give one of them another `name:`".to_owned(),
        (None, false) => "drop one of them, or give one another `name:` and a `prefix:` so \
                           its tools get names of their own"
            .to_owned(),
    };
    diagnostic.with_help(help)
}

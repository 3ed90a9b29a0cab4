//! `duplicate-name`: two toolsets with one name, or two tools the agent would see under one
//! final name (after prefixes). Toolsets behind a proxy are reachable only through it, so their
//! tools do not join the agent's list.

use std::collections::{BTreeSet, HashMap};

use super::model::short;
use super::toolsets::{strings, Entry};
use crate::diagnostics::{Diagnostic, Rule};
use crate::yaml::Span;

/// Every second and later use of a toolset or final tool name.
pub(super) fn check(entries: &[Entry<'_>]) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let mut toolsets: HashMap<&str, Span> = HashMap::new();
    for name in entries.iter().filter_map(|entry| entry.name.as_ref()) {
        if let Some(first) = toolsets.get(name.text) {
            found.push(
                Diagnostic::error(
                    Rule::DuplicateName,
                    name.span,
                    format!(
                        "two toolsets are named `{}` (the first at line {})",
                        short(name.text),
                        first.start.line
                    ),
                )
                .with_help("give one of them another `name:`"),
            );
        } else {
            toolsets.insert(name.text, name.span);
        }
    }
    let proxied: BTreeSet<&str> = entries
        .iter()
        .filter(|entry| entry.kind == "proxy")
        .flat_map(|entry| strings(entry.node.get("toolsets")))
        .map(|name| name.text)
        .collect();
    let mut tools: HashMap<String, (Span, &str)> = HashMap::new();
    for entry in entries {
        let owner = entry.name.as_ref().map_or(entry.kind, |name| name.text);
        if proxied.contains(owner) {
            continue;
        }
        for tool in entry.tools() {
            let final_name = entry.final_name(tool.text);
            if let Some((first, first_owner)) = tools.get(&final_name) {
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
                tools.insert(final_name, (tool.span, owner));
            }
        }
    }
    found
}

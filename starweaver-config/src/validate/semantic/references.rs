//! `unknown-toolset` and `unknown-tool`: names that refer to nothing. A proxy's, search's or
//! deferred set's `toolsets:`, a bundle's `tools:` choice, code tools against the catalog (a deferred set's
//! first-party tool names need none), `approval_required` names and `search.preload`.

use std::collections::HashSet;

use super::model::short;
use super::toolsets::{strings, Entry, Folding, Named, FILESYSTEM, SHELL, USER_INPUT};
use super::CheckContext;
use crate::diagnostics::{Diagnostic, Rule};
use crate::validate::suggest;

/// Every reference to a toolset or tool that does not exist.
pub(super) fn check(entries: &[Entry<'_>], context: &CheckContext) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let names: Vec<&str> = entries
        .iter()
        .filter_map(|entry| entry.name.as_ref().map(|name| name.text))
        .collect();
    let declared: HashSet<&str> = names.iter().copied().collect();
    let folding = Folding::new(entries);
    let mut first_code_tool = None;
    let known: Vec<&str> = context
        .catalog()
        .map(|catalog| catalog.iter().map(String::as_str).collect())
        .unwrap_or_default();
    for entry in entries {
        if entry.kind == "deferred"
            && entry.node.get("tools").is_none()
            && entry.node.get("toolsets").is_none()
        {
            found.push(
                Diagnostic::error(
                    Rule::MissingField,
                    entry.kind_span,
                    "a deferred toolset names no tools and no toolsets",
                )
                .with_help(
                    "add `tools: [NAME, ...]` (tools registered in code, or first-party tools) \
                     or `toolsets: [NAME, ...]` (toolsets of this manifest)",
                ),
            );
        }
        if entry.wraps_toolsets() {
            let own = entry.name.as_ref().map(|name| name.text);
            for target in strings(entry.node.get("toolsets")) {
                // A deferred set that names toolsets is assembled from them, like a proxy.
                let wrapper = entries.iter().find(|other| {
                    (matches!(other.kind, "proxy" | "search")
                        || (other.kind == "deferred" && other.node.get("toolsets").is_some()))
                        && other
                            .name
                            .as_ref()
                            .is_some_and(|name| name.text == target.text)
                });
                if let (Some(wrapper), false) = (wrapper, Some(target.text) == own) {
                    found.push(
                        Diagnostic::error(
                            Rule::UnknownToolset,
                            target.span,
                            format!(
                                "`{}` is a {} toolset; a {} can hold only toolsets with tools of \
                                 their own",
                                short(target.text),
                                wrapper.kind,
                                entry.kind
                            ),
                        )
                        .with_help(format!(
                            "name the toolsets behind `{}` here instead",
                            short(target.text)
                        )),
                    );
                    continue;
                }
                // A proxy or search cannot hold itself. A name no toolset has, in a manifest
                // that repeats a toolset name, is a note of that `duplicate-name` instead.
                if Some(target.text) == own
                    || (!declared.contains(target.text) && !folding.folds(target.text))
                {
                    found.push(
                        Diagnostic::error(
                            Rule::UnknownToolset,
                            target.span,
                            format!(
                                "no toolset of this manifest is named `{}`",
                                short(target.text)
                            ),
                        )
                        .with_help(suggest::help(
                            target.text,
                            &names,
                            "toolset names",
                        )),
                    );
                }
            }
        }
        if entry.kind == "search" {
            found.extend(preload(entry, entries));
        }
        if let Some(all) = entry.bundle_tools() {
            if !matches!(entry.kind, "proxy" | "search") {
                for tool in entry.listed_tools() {
                    if entry.kind == "filesystem"
                        && !all.contains(&tool.text)
                        && FILESYSTEM.contains(&tool.text)
                    {
                        found.push(
                            Diagnostic::error(
                                Rule::InvalidValue,
                                tool.span,
                                format!(
                                    "`{}` changes files, and this toolset has `read_only: true`",
                                    tool.text
                                ),
                            )
                            .with_help(format!(
                                "drop it, or set `read_only: false`; a read-only toolset keeps {}",
                                suggest::list(all)
                            )),
                        );
                    } else if !all.contains(&tool.text) {
                        found.push(unknown_tool(
                            &tool,
                            all,
                            format!(
                                "the {} bundle has no tool `{}`",
                                entry.kind,
                                short(tool.text)
                            ),
                        ));
                    }
                }
            }
        } else if entry.has_code_tools() {
            // A deferred set may also name first-party tools: those need no catalog.
            let listed: Vec<Named<'_>> = entry
                .listed_tools()
                .into_iter()
                .filter(|tool| !(entry.kind == "deferred" && is_first_party(tool.text)))
                .collect();
            if first_code_tool.is_none() {
                first_code_tool = listed.first().map(|tool| tool.span);
            }
            if let Some(catalog) = context.catalog() {
                for tool in listed.iter().filter(|tool| !catalog.contains(tool.text)) {
                    found.push(unknown_tool(
                        tool,
                        &known,
                        format!("no code tool is registered as `{}`", short(tool.text)),
                    ));
                }
            }
        }
        found.extend(approval(entry));
    }
    if let (None, Some(span)) = (context.catalog(), first_code_tool) {
        found.push(
            Diagnostic::warning(
                Rule::UnknownTool,
                span,
                "code-tool names are not verified: no tool catalog was given",
            )
            .with_help("give the checker a tool catalog (the registered names, or a catalog JSON file) to check them"),
        );
    }
    found
}

/// Whether `name` is a tool of a first-party bundle (filesystem, shell, user input), which a
/// deferred set may name without a catalog.
fn is_first_party(name: &str) -> bool {
    FILESYSTEM.contains(&name) || SHELL.contains(&name) || USER_INPUT.contains(&name)
}

fn unknown_tool(tool: &Named<'_>, known: &[&str], message: String) -> Diagnostic {
    Diagnostic::error(Rule::UnknownTool, tool.span, message)
        .with_help(suggest::help(tool.text, known, "tools"))
}

/// Every name a tool of `entry` answers to: as listed and after its prefix.
fn offered(entry: &Entry<'_>) -> HashSet<String> {
    entry
        .tools()
        .iter()
        .flat_map(|tool| [tool.text.to_owned(), entry.final_name(tool.text)])
        .collect()
}

/// `approval_required:` names that are not tools of the entry. An MCP server's are its own
/// names (the client matches them before the prefix), judged only when `tools:` lists them.
fn approval(entry: &Entry<'_>) -> Vec<Diagnostic> {
    let names = strings(entry.node.get("approval_required"));
    if names.is_empty() || !entry.tools_are_known() {
        return Vec::new();
    }
    let tools = entry.tools();
    let candidates: Vec<&str> = tools.iter().map(|tool| tool.text).collect();
    let offered = if entry.is_mcp() {
        candidates.iter().map(|name| (*name).to_owned()).collect()
    } else {
        offered(entry)
    };
    names
        .into_iter()
        .filter(|name| !offered.contains(name.text))
        .map(|name| {
            unknown_tool(
                &name,
                &candidates,
                format!(
                    "`approval_required` names `{}`, which is not a tool of this toolset",
                    short(name.text)
                ),
            )
        })
        .collect()
}

/// `preload:` names that no searched toolset offers.
fn preload(search: &Entry<'_>, entries: &[Entry<'_>]) -> Vec<Diagnostic> {
    let names = strings(search.node.get("preload"));
    if names.is_empty() {
        return Vec::new();
    }
    let searched: HashSet<&str> = strings(search.node.get("toolsets"))
        .iter()
        .map(|name| name.text)
        .collect();
    // A searched toolset that does not exist is reported at its name; which tools it would
    // offer is unknown, so `preload` cannot be judged until it is fixed.
    let resolves = |name: &&str| {
        entries
            .iter()
            .any(|entry| entry.name.as_ref().is_some_and(|own| own.text == *name))
    };
    if !searched.iter().all(resolves) {
        return Vec::new();
    }
    // An MCP server without a `tools:` list names its tools when it starts.
    let open = entries.iter().any(|entry| {
        !entry.tools_are_known()
            && entry
                .name
                .as_ref()
                .is_some_and(|name| searched.contains(name.text))
    });
    if open {
        return Vec::new();
    }
    let targets: Vec<&Entry<'_>> = entries
        .iter()
        .filter(|entry| {
            entry
                .name
                .as_ref()
                .is_some_and(|name| searched.contains(name.text))
        })
        .collect();
    let finals: Vec<String> = targets
        .iter()
        .flat_map(|entry| {
            entry
                .tools()
                .into_iter()
                .map(|tool| entry.final_name(tool.text))
        })
        .collect();
    let candidates: Vec<&str> = finals.iter().map(String::as_str).collect();
    let offered: HashSet<String> = targets.iter().flat_map(|entry| offered(entry)).collect();
    names
        .into_iter()
        .filter(|name| !offered.contains(name.text))
        .map(|name| {
            unknown_tool(
                &name,
                &candidates,
                format!(
                    "`preload` names `{}`, which no searched toolset offers",
                    short(name.text)
                ),
            )
        })
        .collect()
}

//! An `mcp` entry's transport and the settings that go with it.

use super::super::model::short;
use super::super::toolsets::Entry;
use super::super::CheckContext;
use crate::diagnostics::{Diagnostic, Rule};
use crate::yaml::{Node, Value};

/// Settings only a local server (`command`) takes.
const STDIO_ONLY: [&str; 5] = ["args", "env", "env_from", "cwd", "sandbox"];
/// Settings only an HTTP server (`url`) takes.
const HTTP_ONLY: [&str; 1] = ["headers_from_env"];

/// A key of the entry whose value is set (not `null`), with its key node and value.
pub(super) fn set<'a>(entry: &Entry<'a>, key: &str) -> Option<(&'a Node, &'a Node)> {
    entry
        .node
        .entry(key)
        .filter(|(_, value)| !matches!(value.value, Value::Null))
}

/// The transport, the keys that belong to the other one, the `url`, the `prefix` and the
/// `cwd` of one entry.
pub(super) fn check(entry: &Entry<'_>, context: &CheckContext) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let command = set(entry, "command");
    let url = set(entry, "url");
    match (command, url) {
        (Some(_), Some((url_key, _))) => found.push(
            Diagnostic::error(
                Rule::InvalidValue,
                url_key.span,
                "an `mcp` toolset has both `command` and `url`: a server is either a local \
                 program or an HTTP endpoint",
            )
            .with_help("keep `command` for a local server, or `url` for an HTTP one"),
        ),
        (None, None) => found.push(
            Diagnostic::error(
                Rule::MissingField,
                entry.kind_span,
                "an `mcp` toolset needs `command` (a local server) or `url` (an HTTP server), \
                 and has neither",
            )
            .with_help(
                "add `command: mcp-server-NAME` (with `args:`), or `url: http://HOST:PORT/mcp`",
            ),
        ),
        (Some(_), None) => found.extend(misplaced(entry, &HTTP_ONLY, "an HTTP server (`url`)")),
        (None, Some((_, value))) => {
            found.extend(misplaced(entry, &STDIO_ONLY, "a local server (`command`)"));
            found.extend(url_scheme(value));
        }
    }
    if let Some(prefix) = entry.node.get("prefix") {
        found.extend(prefix_problem(prefix));
    }
    if let (Some(base), Some(_)) = (context.base_dir(), command) {
        let cwd = set(entry, "cwd").map(|(_, value)| value);
        let text = cwd.and_then(Node::as_str);
        let folder = crate::paths::manifest_relative(base, text.unwrap_or("."));
        if cwd.is_some_and(|node| node.as_str().is_some()) && !folder.is_dir() {
            if let Some(node) = cwd {
                found.push(
                    Diagnostic::error(
                        Rule::InvalidValue,
                        node.span,
                        format!(
                            "`cwd` `{}` is not a folder (looked for `{}`)",
                            short(text.unwrap_or(".")),
                            folder.display()
                        ),
                    )
                    .with_help(
                        "point `cwd` at an existing folder, relative to the manifest's folder",
                    ),
                );
            }
        }
    }
    found
}

/// One error per key of `keys` the entry sets, which only `owner` takes.
fn misplaced(entry: &Entry<'_>, keys: &[&str], owner: &str) -> Vec<Diagnostic> {
    keys.iter()
        .filter_map(|key| set(entry, key).map(|(node, _)| (key, node)))
        .map(|(key, node)| {
            Diagnostic::error(
                Rule::InvalidValue,
                node.span,
                format!("`{key}` applies only to {owner}, which this toolset is not"),
            )
            .with_help(format!("remove `{key}`"))
        })
        .collect()
}

/// `invalid-value` for a `url` that is not `http://` or `https://` with a host.
fn url_scheme(url: &Node) -> Option<Diagnostic> {
    let text = url.as_str()?;
    let (scheme, rest) = text.split_once("://").unwrap_or(("", text));
    let scheme_ok = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
    let has_host = !rest.is_empty() && !rest.starts_with('/');
    if scheme_ok && has_host && !text.chars().any(char::is_whitespace) {
        return None;
    }
    Some(
        Diagnostic::error(
            Rule::InvalidValue,
            url.span,
            format!(
                "`url` `{}` is not an `http://` or `https://` address: MCP servers are reached \
                 over streamable HTTP",
                short(text)
            ),
        )
        .with_help(
            "write the server's endpoint (`http://127.0.0.1:3001/mcp`), or use `command` for a \
             local server",
        ),
    )
}

/// `invalid-value` for a `prefix` with characters tool names cannot hold: the client would
/// replace them, so the model would see another prefix than the one written.
fn prefix_problem(prefix: &Node) -> Option<Diagnostic> {
    let text = prefix.as_str()?;
    let bad = text.chars().find(|c| !starweaver_names::is_name_char(*c));
    let message = match bad {
        _ if text.is_empty() => {
            "`prefix` is empty: it would start every tool name with `_`".to_string()
        }
        Some(c) => format!(
            "`prefix` `{}` holds {c:?}, which tool names cannot: the model would see it as `_`",
            short(text)
        ),
        None => return None,
    };
    Some(
        Diagnostic::error(Rule::InvalidValue, prefix.span, message)
            .with_help("use only ASCII letters, digits, `_` and `-` in `prefix`"),
    )
}

//! An `mcp` entry's `sandbox`, by the rules of `shell.sandbox`: `mode: off` is a warning
//! (`sandbox-off`), and a `writable` folder that leaves the server's `cwd` is a `path-escape`
//! error. A local server without `sandbox:` is not sandboxed, on purpose (most need the
//! network and their caches): no rule says otherwise, and `check --explain` states it.

use super::super::model::short;
use super::super::skills::escapes as leaves;
use super::super::toolsets::{strings, Entry};
use super::super::CheckContext;
use super::settings::set;
use crate::diagnostics::{Diagnostic, Rule};
use crate::paths::{manifest_relative, writable_folder};

/// Every problem of the entry's `sandbox`.
pub(super) fn check(entry: &Entry<'_>, context: &CheckContext) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    // On an HTTP server, `sandbox` is refused with the other settings of a local one.
    let (Some((_, sandbox)), Some(_)) = (set(entry, "sandbox"), set(entry, "command")) else {
        return found;
    };
    if let Some(mode) = sandbox
        .get("mode")
        .filter(|mode| mode.as_str() == Some("off"))
    {
        found.push(
            Diagnostic::warning(
                Rule::SandboxOff,
                mode.span,
                "`sandbox.mode: off` runs this MCP server without a kernel sandbox: it can write \
                 anywhere the user running the agent can and reach the network",
            )
            .with_help(
                "remove `mode: off` to get `workspace-write` (writes only inside `cwd`), or use \
                 `mode: read-only`; add `network: true` if the server needs the network",
            ),
        );
    }
    let cwd = set(entry, "cwd").and_then(|(_, value)| value.as_str());
    let folder = context
        .base_dir()
        .map(|base| manifest_relative(base, cwd.unwrap_or(".")))
        .filter(|folder| folder.is_dir());
    for writable in strings(sandbox.get("writable")) {
        let escapes = match &folder {
            Some(folder) => writable_folder(folder, writable.text).is_err(),
            None => leaves(writable.text),
        };
        if escapes {
            found.push(escape(writable.text, writable.span));
        }
    }
    found
}

fn escape(text: &str, span: crate::yaml::Span) -> Diagnostic {
    Diagnostic::error(
        Rule::PathEscape,
        span,
        format!(
            "sandbox folder `{}` leaves the server's `cwd`: it may write only inside it",
            short(text)
        ),
    )
    .with_help("name a folder inside `cwd`, relative to it (`cache`), or widen `cwd`")
}

//! `invalid-value` for final tool names that model providers refuse (`^[A-Za-z0-9_-]{1,64}$`):
//! a `prefix` with a space, or one that makes a name too long, passed the checker and then every
//! run failed before its first request.

use starweaver_core::tools::validate_tool_name;

use super::toolsets::Entry;
use crate::diagnostics::{Diagnostic, Rule};

/// One diagnostic per entry whose tools, after its prefix, break the provider rule: at the
/// `prefix` when it is the cause, else at the tool's name.
pub(super) fn check(entries: &[Entry<'_>]) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    // An MCP server's names are mapped to the rule; its `prefix` is checked with its settings.
    for entry in entries.iter().filter(|entry| !entry.is_mcp()) {
        let prefix_span = entry.node.get("prefix").map(|node| node.span);
        for tool in entry.tools() {
            let Err(problem) = validate_tool_name(&entry.final_name(tool.text)) else {
                continue;
            };
            let own_name_is_fine = validate_tool_name(tool.text).is_ok();
            let (span, help) = match prefix_span {
                Some(span) if own_name_is_fine => (span, "change the `prefix`"),
                _ if entry.is_agents() => (
                    tool.span,
                    "give the sub-agent a `tool:` name of letters, digits, `_` and `-`",
                ),
                _ => (tool.span, "rename the tool where it is registered"),
            };
            found.push(Diagnostic::error(Rule::InvalidValue, span, problem).with_help(help));
            // One problem per entry: every tool of a bad prefix would say the same.
            break;
        }
    }
    found
}

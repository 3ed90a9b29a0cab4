//! `starweaver tools --json`: the exact definitions, for machines.
//!
//! `{"version": 1, "file": ..., "tools": [ToolDefinition, ...]}`: `tools` is exactly what the
//! first model request carries, in its order (approval and deferral are in each definition's
//! `metadata`). With `--all`, `later` lists the tools reachable afterwards, each as
//! `{"reach": "search"|"proxy", "via": NAME, "toolset": NAME, "definition": ToolDefinition}`.
//! When the agent's model adapts tools for its provider, `adjusted` lists its notices
//! (`{kind, subject, reason, changes}`), and the definitions stay as declared.

use serde_json::{json, Value};

use super::listing::Listed;

/// The format version of the `--json` object; it changes only when a field changes meaning or
/// goes away.
pub(super) const TOOLS_FORMAT_VERSION: u32 = 1;

/// The JSON object, pretty-printed, with a trailing newline.
pub(super) fn render(
    file: &str,
    listing: &[Listed],
    all: bool,
    adjusted: &[starweaver_core::model::RequestNotice],
) -> String {
    let (first, later): (Vec<&Listed>, Vec<&Listed>) = listing.iter().partition(|row| row.first);
    let mut object = json!({
        "version": TOOLS_FORMAT_VERSION,
        "file": file,
        "tools": first.iter().map(|row| &row.definition).collect::<Vec<_>>(),
    });
    if all {
        object["later"] = Value::Array(
            later
                .iter()
                .map(|row| {
                    json!({
                        "reach": row.route.kind(),
                        "via": row.route.via(),
                        "toolset": row.toolset,
                        "definition": row.definition,
                    })
                })
                .collect(),
        );
    }
    if !adjusted.is_empty() {
        object["adjusted"] = serde_json::to_value(adjusted).unwrap_or_default();
    }
    let mut text = serde_json::to_string_pretty(&object).unwrap_or_default();
    text.push('\n');
    text
}

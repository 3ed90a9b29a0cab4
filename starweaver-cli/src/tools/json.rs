//! `starweaver tools --json`: the exact definitions, for machines.
//!
//! `{"version": 1, "file": ..., "tools": [ToolDefinition, ...]}`: `tools` is exactly what the
//! first model request carries, in its order (approval and deferral are in each definition's
//! `metadata`). With `--all`, `later` lists the tools reachable afterwards, each as
//! `{"reach": "search"|"proxy", "via": NAME, "toolset": NAME, "definition": ToolDefinition}`.
//! When the agent's model adapts tools for its provider, `adjusted` lists its notices
//! (`{kind, subject, reason, changes}`), and the definitions stay as declared.
//!
//! With MCP toolsets, `servers` lists each, in manifest order, as it was found when started:
//! `{"toolset": NAME, "started": bool, "error": TEXT|null, "tools": [{"name", "server_name",
//! "read_only_hint", "destructive_hint"}]}` (`name` as the model sees it, `server_name` the
//! server's own, the hints `null` when the server gave none). A server that failed to start
//! has `started: false`, its `error` (exit status and the end of its stderr) and no tools.

use serde_json::{json, Value};

use super::listing::Listed;
use super::servers::Failed;

/// The format version of the `--json` object; it changes only when a field changes meaning or
/// goes away.
pub(super) const TOOLS_FORMAT_VERSION: u32 = 1;

/// The JSON object, pretty-printed, with a trailing newline.
pub(super) fn render(
    file: &str,
    listing: &[Listed],
    all: bool,
    adjusted: &[starweaver_core::model::RequestNotice],
    servers: (&[String], &[Failed]),
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
    let (names, failed) = servers;
    if !names.is_empty() {
        object["servers"] = Value::Array(
            names
                .iter()
                .map(|name| server(name, listing, failed))
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

/// One MCP toolset's entry in `servers`.
fn server(name: &str, listing: &[Listed], failed: &[Failed]) -> Value {
    let error = failed
        .iter()
        .find(|failure| failure.toolset == name)
        .map(|failure| failure.error.clone());
    let tools: Vec<Value> = listing
        .iter()
        .filter_map(|row| {
            let origin = row.mcp.as_ref().filter(|origin| origin.server == name)?;
            Some(json!({
                "name": row.definition.name,
                "server_name": origin.tool,
                "read_only_hint": origin.read_only,
                "destructive_hint": origin.destructive,
            }))
        })
        .collect();
    json!({
        "toolset": name,
        "started": error.is_none(),
        "error": error,
        "tools": tools,
    })
}

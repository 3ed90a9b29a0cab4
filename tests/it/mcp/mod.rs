//! The MCP client: a server's tools as a toolset. `in_process` runs the
//! tests' own SDK server over a duplex pipe (list, call, structured
//! content, errors, content blocks, list changes, cancellation,
//! approvals, filters, a whole run); `hostile` starts small Python
//! servers that misbehave (stderr floods, `kill -9`, silence, huge
//! results, exits at startup); `interop` talks to servers nobody here
//! wrote, installed from the registries, when they are installed.

mod cli_runs;
mod hostile;
mod in_process;
mod in_run;
mod interop;
mod server;

use serde_json::Value;
use starweaver::mcp::client::McpToolset;
use starweaver::tools::DynTool;
use starweaver::{ConversationId, RunId, ToolContext, ToolError, ToolResult, Toolset};

/// The toolset's tool the model knows as `name`.
fn tool(toolset: &McpToolset, name: &str) -> DynTool {
    toolset
        .get_tools()
        .into_iter()
        .find(|tool| tool.name() == name)
        .unwrap_or_else(|| panic!("no tool `{name}`"))
}

/// Calls `name` directly, outside a registry.
async fn call(toolset: &McpToolset, name: &str, arguments: Value) -> Result<ToolResult, ToolError> {
    let tool = tool(toolset, name);
    let ctx = ToolContext::new(RunId::default(), ConversationId::default(), 0);
    tool.call(ctx, &arguments).await
}

/// The mapped names, sorted.
fn names(toolset: &McpToolset) -> Vec<String> {
    let mut names: Vec<String> = toolset
        .get_tools()
        .iter()
        .map(|tool| tool.name().to_string())
        .collect();
    names.sort();
    names
}

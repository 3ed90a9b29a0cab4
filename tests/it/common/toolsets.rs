//! Tools and lookups shared by the toolset, proxy, tool-search and
//! lifecycle tests.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};
use starweaver::context::ContextEventKind;
use starweaver::model::{ToolReturnKind, ToolReturnPart};
use starweaver::tools::DynTool;
use starweaver::{
    string_tool, AgentContext, AgentContextHandle, ToolContext, ToolError, ToolRegistry, ToolResult,
};

use super::{echo_tool, open_schema};

/// A schema that requires `{"value": string}`.
pub fn value_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"value": {"type": "string"}},
        "required": ["value"]
    })
}

/// A string tool that requires `{"value": string}` and echoes it with a tag.
pub fn tagged_echo(name: &str, description: &str, tag: &'static str) -> DynTool {
    Arc::new(string_tool(
        name,
        Some(description.to_string()),
        value_schema(),
        move |_ctx: ToolContext, args: Value| async move {
            Ok(ToolResult::new(
                json!({"from": tag, "value": args["value"]}),
            ))
        },
    ))
}

/// A tool that always fails with an unexpected execution error.
pub fn failing_tool(name: &str, runs: Arc<AtomicU32>) -> DynTool {
    Arc::new(string_tool(
        name,
        Some("Always fails unexpectedly".to_string()),
        open_schema(),
        move |_ctx: ToolContext, _args: Value| {
            let runs = runs.clone();
            async move {
                runs.fetch_add(1, Ordering::SeqCst);
                Err(ToolError::execution("backend exploded"))
            }
        },
    ))
}

/// A tool that is never available.
pub fn never_available(name: &str, description: &str) -> DynTool {
    Arc::new(echo_tool(name, description).with_availability(|_context| false))
}

/// `context` behind a handle, and a tool context holding that handle.
pub fn ambient_handle(context: AgentContext) -> (AgentContextHandle, ToolContext) {
    let handle = AgentContextHandle::new(context);
    let ctx = ToolContext::default().with_agent_context(handle.clone());
    (handle, ctx)
}

/// The names of the definitions `registry` exposes in `context`.
pub fn names_for(registry: &ToolRegistry, context: &AgentContext) -> Vec<String> {
    registry
        .definitions_for_context(context)
        .into_iter()
        .map(|definition| definition.name)
        .collect()
}

/// The payloads of the events of `kind` on `context`.
pub fn payloads(context: &AgentContext, kind: impl Into<ContextEventKind>) -> Vec<Value> {
    context
        .events
        .of_kind(kind)
        .map(|event| event.payload.clone())
        .collect()
}

/// `items` as a set of strings.
pub fn set_of(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|item| (*item).to_string()).collect()
}

/// Asserts the return is of `kind`.
pub fn assert_kind(part: &ToolReturnPart, kind: ToolReturnKind) {
    assert_eq!(part.kind, kind, "unexpected return: {part:#?}");
}

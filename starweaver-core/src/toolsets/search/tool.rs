//! The model-facing `tool_search` tool: validate the query, search the
//! index for usable tools, and record what it loaded in the context.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::shared::{is_usable, loaded_event, Shared, TOOL_SEARCH_NAME};
use crate::context::{
    ContextEvent, ContextEventKind, ToolSearchContextHandle, CONTEXT_TOOL_SEARCH_CAPABILITY,
};
use crate::tools::{
    typed_tool, DynTool, ToolContext, ToolDependencyRequirements, ToolError, ToolResult,
};

/// Longest query `tool_search` accepts, in characters.
pub(super) const MAX_QUERY_CHARS: usize = 256;

#[derive(Deserialize, JsonSchema)]
struct ToolSearchArgs {
    /// Words describing the capability you need, or an exact tool or namespace name.
    query: String,
    /// Maximum number of tools to load.
    limit: Option<usize>,
}

/// The `tool_search` tool over the shared index.
pub(super) fn search_tool(shared: Arc<Shared>) -> DynTool {
    let tool = typed_tool::<ToolSearchArgs, _, _>(
        TOOL_SEARCH_NAME,
        Some(
            "Search the tool library and load the best matching tools; loaded tools can be called \
             directly from your next turn."
                .to_string(),
        ),
        move |ctx: ToolContext, args: ToolSearchArgs| {
            let shared = shared.clone();
            async move { run_search(&shared, &ctx, &args) }
        },
    )
    .with_dependencies(
        ToolDependencyRequirements::filtered(Vec::<String>::new())
            .with_context_capability(CONTEXT_TOOL_SEARCH_CAPABILITY),
    );
    Arc::new(tool)
}

pub(super) fn validate_query(query: &str) -> Result<(), ToolError> {
    let length = query.trim().chars().count();
    if length == 0 {
        return Err(ToolError::model_retry(
            "tool_search needs a non-empty query: describe the capability you need in a few words",
        ));
    }
    if length > MAX_QUERY_CHARS {
        return Err(ToolError::model_retry(format!(
            "tool_search queries are limited to {MAX_QUERY_CHARS} characters; use a few keywords"
        )));
    }
    Ok(())
}

fn run_search(
    shared: &Shared,
    ctx: &ToolContext,
    args: &ToolSearchArgs,
) -> Result<ToolResult, ToolError> {
    let handle = ctx.dependency::<ToolSearchContextHandle>().ok_or_else(|| {
        ToolError::user_error(
            "tool_search needs the starweaver.context.tool_search capability: run it through an agent, \
             or attach the agent context with ToolContext::with_agent_context",
        )
    })?;
    if let Err(error) = validate_query(&args.query) {
        handle.emit(
            ContextEventKind::ToolSearchFailed,
            json!({"toolset": shared.name, "query": args.query, "reason": error.to_string()}),
        );
        return Err(error);
    }
    let index = shared.index();
    let limit = args
        .limit
        .unwrap_or(shared.max_results)
        .clamp(1, shared.max_results);
    let query = args.query.trim();
    let (found, namespaces) = handle.read(|context| {
        let found = index.search(query, limit, |tool| {
            is_usable(tool, context).then_some(tool)
        });
        let namespaces: Vec<String> = index
            .namespaces
            .keys()
            .filter(|namespace| namespace.eq_ignore_ascii_case(query))
            .cloned()
            .collect();
        (found, namespaces)
    });
    if found.is_empty() && namespaces.is_empty() {
        handle.emit(
            ContextEventKind::ToolSearchNoMatch,
            json!({"toolset": shared.name, "query": query}),
        );
        return Ok(ToolResult::new(json!({
            "matches": [],
            "loaded_tools": [],
            "loaded_namespaces": [],
            "message": "No tools matched. Try other keywords or a broader description.",
        })));
    }
    let matches: Vec<Value> = found
        .iter()
        .map(|tool| {
            json!({"name": tool.name, "description": tool.description, "namespace": tool.namespace})
        })
        .collect();
    let tools: Vec<String> = found.iter().map(|tool| tool.name.clone()).collect();
    handle.record_loaded(
        &tools,
        &namespaces,
        ContextEvent::new(
            ContextEventKind::ToolSearchLoaded,
            loaded_event(&shared.name, "search", Some(query), &tools, &namespaces),
        ),
    );
    Ok(ToolResult::new(json!({
        "matches": matches,
        "loaded_tools": tools,
        "loaded_namespaces": namespaces,
        "message": "The loaded tools can be called directly from your next turn.",
    })))
}

//! Typed function tools: arguments are a Rust type with a schemars schema.

use std::future::Future;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::function::ArgumentCheck;
use super::{schema_for_type, FunctionTool, ToolError, ToolResult};
use crate::model::ToolDefinition;
use crate::tools::ToolContext;

/// Builds a typed tool from an async function of `(ToolContext, A)`.
///
/// The schema comes from `A: JsonSchema`; Serde is the execution-time
/// contract, so a deserialization failure becomes
/// [`ToolError::InvalidArguments`] and the model is asked to correct it.
pub fn typed_tool<A, F, Fut>(
    name: impl Into<String>,
    description: Option<String>,
    function: F,
) -> FunctionTool<A>
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
    F: Fn(ToolContext, A) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ToolResult, ToolError>> + Send + 'static,
{
    let definition = ToolDefinition::new(name, description, schema_for_type::<A>());
    let tool_name: Arc<str> = Arc::from(definition.name.as_str());
    let function = Arc::new(function);
    FunctionTool::from_parts(
        definition,
        Arc::new(move |ctx, arguments: &Value| {
            let parsed = parse_arguments::<A>(&tool_name, arguments);
            let function = function.clone();
            Box::pin(async move { function(ctx, parsed?).await })
        }),
        ArgumentCheck::Parse(|tool, arguments| parse_arguments::<A>(tool, arguments).map(drop)),
    )
}

/// Deserializes arguments, naming the failing field (`filter.limit`).
fn parse_arguments<A: DeserializeOwned>(tool: &str, arguments: &Value) -> Result<A, ToolError> {
    // Fast path without path tracking; errors are parsed again for the path.
    if let Ok(parsed) = A::deserialize(arguments) {
        return Ok(parsed);
    }
    serde_path_to_error::deserialize(arguments).map_err(|error| {
        let path = error.path().to_string();
        let message = if path == "." {
            error.inner().to_string()
        } else {
            format!("at `{path}`: {}", error.inner())
        };
        ToolError::invalid_arguments(tool, message)
    })
}

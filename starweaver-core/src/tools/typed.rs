//! Typed function tools: arguments are a Rust type with a schemars schema.

use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::function::{ArgumentCheck, CallHandler};
use super::{schema_for_type, FunctionTool, ToolError, ToolResult};
use crate::model::ToolDefinition;
use crate::tools::ToolContext;
use crate::BoxFuture;

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
    let handler = TypedHandler {
        tool_name: Arc::from(definition.name.as_str()),
        function,
        _args: PhantomData::<fn() -> A>,
    };
    FunctionTool::from_parts(
        definition,
        Arc::new(handler),
        ArgumentCheck::Parse(|tool, arguments| parse_arguments::<A>(tool, arguments).map(drop)),
    )
}

/// A typed tool's body: parses the borrowed arguments, then boxes the
/// function's own future (no wrapper future, no copy of the function).
struct TypedHandler<A, F> {
    tool_name: Arc<str>,
    function: F,
    // `fn() -> A`: the handler never holds an `A`, so it is `Send + Sync`
    // whatever `A` is.
    _args: PhantomData<fn() -> A>,
}

impl<A, F, Fut> CallHandler for TypedHandler<A, F>
where
    A: DeserializeOwned,
    F: Fn(ToolContext, A) -> Fut + Send + Sync,
    Fut: Future<Output = Result<ToolResult, ToolError>> + Send + 'static,
{
    fn call<'a>(
        &'a self,
        ctx: ToolContext,
        arguments: &'a Value,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        match parse_arguments::<A>(&self.tool_name, arguments) {
            Ok(parsed) => Box::pin((self.function)(ctx, parsed)),
            Err(error) => Box::pin(std::future::ready(Err(error))),
        }
    }
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

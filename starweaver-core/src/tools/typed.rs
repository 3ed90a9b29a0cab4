//! Typed function tools: arguments are a Rust type with a schemars schema.

use std::future::Future;
use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::options::tool_builder_methods;
use super::{
    schema_for_type, FunctionTool, Tool, ToolError, ToolResult, ToolUserInputPreprocessResult,
};
use crate::context::AgentContext;
use crate::model::ToolDefinition;
use crate::tools::ToolContext;
use crate::BoxFuture;

/// A tool whose arguments deserialize into `A`.
///
/// The schema comes from `A: JsonSchema`; Serde is the execution-time
/// contract, so a deserialization failure becomes
/// [`ToolError::InvalidArguments`] and the model is asked to correct it.
pub struct TypedFunctionTool<A> {
    inner: FunctionTool,
    _args: PhantomData<fn() -> A>,
}

impl<A> Clone for TypedFunctionTool<A> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            _args: PhantomData,
        }
    }
}

impl<A> std::fmt::Debug for TypedFunctionTool<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("TypedFunctionTool")
            .field(&self.inner)
            .finish()
    }
}

impl<A> TypedFunctionTool<A> {
    /// Marks the tool as one that runs other tools (see
    /// [`Tool::delegates_execution`]).
    #[must_use]
    pub(crate) fn delegating(mut self) -> Self {
        self.inner.options.delegates = true;
        self
    }

    tool_builder_methods!(inner.options);
}

/// Builds a typed tool from an async function of `(ToolContext, A)`.
pub fn typed_tool<A, F, Fut>(
    name: impl Into<String>,
    description: Option<String>,
    function: F,
) -> TypedFunctionTool<A>
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
    F: Fn(ToolContext, A) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ToolResult, ToolError>> + Send + 'static,
{
    let name = name.into();
    let tool_name = name.clone();
    let function = std::sync::Arc::new(function);
    let inner = FunctionTool::from_handler(
        name,
        description,
        schema_for_type::<A>(),
        std::sync::Arc::new(move |ctx, arguments: &Value| {
            let parsed = parse_arguments::<A>(&tool_name, arguments);
            let function = function.clone();
            Box::pin(async move { function(ctx, parsed?).await })
        }),
    );
    TypedFunctionTool {
        inner,
        _args: PhantomData,
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

impl<A: DeserializeOwned> Tool for TypedFunctionTool<A> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn definition(&self) -> ToolDefinition {
        self.inner.definition()
    }

    fn call<'a>(
        &'a self,
        ctx: ToolContext,
        arguments: &'a Value,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        self.inner.call(ctx, arguments)
    }

    fn timeout_ms(&self) -> Option<u64> {
        self.inner.timeout_ms()
    }

    fn max_retries(&self) -> Option<u32> {
        self.inner.max_retries()
    }

    fn is_available(&self, context: &AgentContext) -> bool {
        self.inner.is_available(context)
    }

    fn prepare_definition(
        &self,
        context: &AgentContext,
        definition: ToolDefinition,
    ) -> Option<ToolDefinition> {
        self.inner.prepare_definition(context, definition)
    }

    fn validate_arguments(
        &self,
        ctx: &ToolContext,
        arguments: &mut Value,
    ) -> Result<(), ToolError> {
        self.inner.validate_arguments(ctx, arguments)
    }

    fn delegates_execution(&self) -> bool {
        self.inner.delegates_execution()
    }

    fn validates_arguments(&self) -> bool {
        self.inner.validates_arguments()
    }

    fn check_arguments(&self, arguments: &Value) -> Result<(), ToolError> {
        parse_arguments::<A>(self.inner.name(), arguments).map(drop)
    }

    fn preprocess_user_input(
        &self,
        ctx: ToolContext,
        user_input: Value,
    ) -> Option<BoxFuture<'_, Result<ToolUserInputPreprocessResult, ToolError>>> {
        self.inner.preprocess_user_input(ctx, user_input)
    }
}

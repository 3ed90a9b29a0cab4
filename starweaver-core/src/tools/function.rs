//! Function tools with manual JSON Schemas.

use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use super::options::{tool_builder_methods, ToolOptions};
use super::{CompiledSchema, Tool, ToolError, ToolResult, ToolUserInputPreprocessResult};
use crate::context::AgentContext;
use crate::model::ToolDefinition;
use crate::tools::ToolContext;
use crate::BoxFuture;

pub(crate) type Handler = Arc<
    dyn Fn(ToolContext, &Value) -> BoxFuture<'static, Result<ToolResult, ToolError>> + Send + Sync,
>;

/// A tool backed by an async function over raw JSON arguments.
///
/// With a manual schema ([`string_tool`], [`FunctionTool::new`]) arguments
/// are validated against that schema with the `jsonschema` crate, compiled
/// once per tool. Typed tools ([`super::typed_tool`]) skip that step:
/// Serde is their validation contract.
#[derive(Clone)]
pub struct FunctionTool {
    pub(crate) options: ToolOptions,
    handler: Handler,
    schema: Option<Arc<CompiledSchema>>,
}

impl FunctionTool {
    /// A tool whose arguments are checked against `parameters`.
    pub fn new<F, Fut>(
        name: impl Into<String>,
        description: Option<String>,
        parameters: Value,
        function: F,
    ) -> Self
    where
        F: Fn(ToolContext, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolResult, ToolError>> + Send + 'static,
    {
        // The function owns its arguments, so the registry's copy is cloned.
        let mut tool = Self::from_handler(
            name,
            description,
            parameters,
            Arc::new(move |ctx, arguments: &Value| Box::pin(function(ctx, arguments.clone()))),
        );
        tool.schema = Some(Arc::new(CompiledSchema::default()));
        tool
    }

    /// A tool over a borrowed-arguments handler that does its own
    /// validation (typed tools).
    pub(crate) fn from_handler(
        name: impl Into<String>,
        description: Option<String>,
        parameters: Value,
        handler: Handler,
    ) -> Self {
        Self {
            options: ToolOptions::new(ToolDefinition::new(name, description, parameters)),
            handler,
            schema: None,
        }
    }

    tool_builder_methods!(options);

    fn check_schema(&self, arguments: &Value) -> Result<(), ToolError> {
        match &self.schema {
            Some(schema) => schema.validate(
                &self.options.definition.name,
                &self.options.definition.parameters,
                arguments,
            ),
            None => Ok(()),
        }
    }
}

impl std::fmt::Debug for FunctionTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FunctionTool")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// A function tool over raw JSON with a manual schema (from JSON, MCP or
/// another protocol).
pub fn string_tool<F, Fut>(
    name: impl Into<String>,
    description: Option<String>,
    parameters: Value,
    function: F,
) -> FunctionTool
where
    F: Fn(ToolContext, Value) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ToolResult, ToolError>> + Send + 'static,
{
    FunctionTool::new(name, description, parameters, function)
}

impl Tool for FunctionTool {
    fn name(&self) -> &str {
        &self.options.definition.name
    }

    fn definition(&self) -> ToolDefinition {
        self.options.definition.clone()
    }

    fn call<'a>(
        &'a self,
        ctx: ToolContext,
        arguments: &'a Value,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        // The manual schema is checked here, on the borrowed arguments, so
        // the registry never copies them just to validate.
        if let Err(error) = self.check_schema(arguments) {
            return Box::pin(std::future::ready(Err(error)));
        }
        (self.handler)(ctx, arguments)
    }

    fn timeout_ms(&self) -> Option<u64> {
        self.options.timeout_ms
    }

    fn max_retries(&self) -> Option<u32> {
        self.options.max_retries
    }

    fn is_available(&self, context: &AgentContext) -> bool {
        self.options.is_available(context)
    }

    fn prepare_definition(
        &self,
        context: &AgentContext,
        definition: ToolDefinition,
    ) -> Option<ToolDefinition> {
        self.options.prepare(context, definition)
    }

    fn validate_arguments(
        &self,
        ctx: &ToolContext,
        arguments: &mut Value,
    ) -> Result<(), ToolError> {
        self.options.run_validators(ctx, arguments)
    }

    fn delegates_execution(&self) -> bool {
        self.options.delegates
    }

    fn validates_arguments(&self) -> bool {
        !self.options.validators.is_empty()
    }

    fn check_arguments(&self, arguments: &Value) -> Result<(), ToolError> {
        self.check_schema(arguments)
    }

    fn preprocess_user_input(
        &self,
        ctx: ToolContext,
        user_input: Value,
    ) -> Option<BoxFuture<'_, Result<ToolUserInputPreprocessResult, ToolError>>> {
        self.options.preprocess(ctx, user_input)
    }
}

//! Function tools: an async function behind a model-facing definition,
//! with raw JSON arguments checked against a manual schema, or typed
//! arguments parsed with Serde.

use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use serde_json::Value;

use super::options::ToolOptions;
use super::{
    CompiledSchema, Tool, ToolError, ToolFacts, ToolResult, ToolUserInputPreprocessResult,
};
use crate::context::AgentContext;
use crate::model::ToolDefinition;
use crate::tools::ToolContext;
use crate::BoxFuture;

/// A function tool's body, over the registry's borrowed arguments. Its
/// future may borrow the handler, so a call copies nothing of it.
pub(crate) trait CallHandler: Send + Sync {
    /// Starts one call.
    fn call<'a>(
        &'a self,
        ctx: ToolContext,
        arguments: &'a Value,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>>;
}

/// A shared [`CallHandler`]: clones of a tool share its body.
pub(crate) type Handler = Arc<dyn CallHandler>;

/// A function that takes its arguments by value: each call gets a copy.
struct OwnedArguments<F>(F);

impl<F, Fut> CallHandler for OwnedArguments<F>
where
    F: Fn(ToolContext, Value) -> Fut + Send + Sync,
    Fut: Future<Output = Result<ToolResult, ToolError>> + Send + 'static,
{
    fn call<'a>(
        &'a self,
        ctx: ToolContext,
        arguments: &'a Value,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        Box::pin((self.0)(ctx, arguments.clone()))
    }
}

/// How a function tool decides, without running, that it would accept
/// arguments.
#[derive(Clone)]
pub(crate) enum ArgumentCheck {
    /// Against a manual JSON Schema, compiled once per tool.
    Schema(Arc<CompiledSchema>),
    /// By deserializing into the typed tool's argument type.
    Parse(fn(&str, &Value) -> Result<(), ToolError>),
}

/// A tool backed by an async function.
///
/// `A` is the argument type: `Value` (the default) for tools with a
/// manual schema ([`string_tool`], [`FunctionTool::new`]), whose
/// arguments are validated against that schema with the `jsonschema`
/// crate; a Rust type for typed tools ([`super::typed_tool`], the
/// `#[starweaver::tool]` macro), whose schema comes from `A: JsonSchema`
/// and whose validation contract is Serde. Both share every `with_*`
/// builder.
pub struct FunctionTool<A = Value> {
    pub(crate) options: ToolOptions,
    handler: Handler,
    check: ArgumentCheck,
    _args: PhantomData<fn() -> A>,
}

/// A function tool with typed arguments: the name typed tools are known
/// by ([`super::typed_tool`] returns one).
pub type TypedFunctionTool<A> = FunctionTool<A>;

impl<A> Clone for FunctionTool<A> {
    fn clone(&self) -> Self {
        Self {
            options: self.options.clone(),
            handler: self.handler.clone(),
            check: self.check.clone(),
            _args: PhantomData,
        }
    }
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
        Self::from_parts(
            ToolDefinition::new(name, description, parameters),
            Arc::new(OwnedArguments(function)),
            ArgumentCheck::Schema(Arc::new(CompiledSchema::default())),
        )
    }
}

impl<A> FunctionTool<A> {
    /// A tool over a borrowed-arguments handler.
    pub(crate) fn from_parts(
        definition: ToolDefinition,
        handler: Handler,
        check: ArgumentCheck,
    ) -> Self {
        Self {
            options: ToolOptions::new(definition),
            handler,
            check,
            _args: PhantomData,
        }
    }

    /// Marks the tool as one that runs other tools (see
    /// [`Tool::delegates_execution`]).
    #[must_use]
    pub(crate) fn delegating(mut self) -> Self {
        self.options.delegates = true;
        self
    }

    fn check(&self, arguments: &Value) -> Result<(), ToolError> {
        let definition = &self.options.definition;
        match &self.check {
            ArgumentCheck::Schema(schema) => {
                schema.validate(&definition.name, &definition.parameters, arguments)
            }
            ArgumentCheck::Parse(parse) => parse(&definition.name, arguments),
        }
    }
}

impl<A> std::fmt::Debug for FunctionTool<A> {
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

impl<A> Tool for FunctionTool<A> {
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
        // A manual schema is checked here, on the borrowed arguments, so
        // the registry never copies them just to validate. Typed tools
        // parse inside the handler, once.
        if let ArgumentCheck::Schema(_) = self.check {
            if let Err(error) = self.check(arguments) {
                return Box::pin(std::future::ready(Err(error)));
            }
        }
        self.handler.call(ctx, arguments)
    }

    fn facts(&self) -> ToolFacts {
        self.options.facts.clone()
    }

    fn is_available(&self, context: &AgentContext) -> bool {
        self.options.is_available(context)
    }

    fn prepare_definition(
        &self,
        context: &AgentContext,
        definition: &Arc<ToolDefinition>,
    ) -> Option<Arc<ToolDefinition>> {
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
        self.check(arguments)
    }

    fn preprocess_user_input(
        &self,
        ctx: ToolContext,
        user_input: Value,
    ) -> Option<BoxFuture<'_, Result<ToolUserInputPreprocessResult, ToolError>>> {
        self.options.preprocess(ctx, user_input)
    }
}

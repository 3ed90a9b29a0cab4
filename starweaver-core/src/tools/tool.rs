//! The dyn-compatible [`Tool`] trait.

use std::sync::Arc;

use serde_json::Value;

use super::{ToolError, ToolFacts, ToolResult, ToolUserInputPreprocessResult};
use crate::context::AgentContext;
use crate::model::ToolDefinition;
use crate::tools::ToolContext;
use crate::BoxFuture;

/// A shared, type-erased tool.
pub type DynTool = Arc<dyn Tool>;

/// Something a model can call.
///
/// Most tools come from [`super::typed_tool`], [`super::string_tool`] or
/// `#[starweaver::tool]`; implement this trait directly for tools that wrap
/// another protocol. Only [`Tool::name`], [`Tool::definition`] and
/// [`Tool::call`] are required; a tool that wraps another can start from
/// the wrapped tool's [`Tool::facts`] and change what it changes.
pub trait Tool: Send + Sync {
    /// Unique tool name.
    fn name(&self) -> &str;

    /// The model-facing definition.
    fn definition(&self) -> ToolDefinition;

    /// Runs the tool. Normalising validators (`validate_arguments`) have
    /// already run; a tool with a manual schema checks it here. The
    /// arguments are borrowed, so the registry does not copy them for
    /// retries.
    fn call<'a>(
        &'a self,
        ctx: ToolContext,
        arguments: &'a Value,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>>;

    /// The typed facts the runtime decides from: kind, approval, tags,
    /// dependency profile, timeout and retries. Read once, when the tool
    /// is registered.
    ///
    /// The default reads them from [`Tool::definition`]'s metadata, the
    /// input form for tools that declare facts as metadata (see
    /// [`ToolFacts::from_metadata`]); builders carry them typed.
    fn facts(&self) -> ToolFacts {
        ToolFacts::from_metadata(&self.definition().metadata)
    }

    /// Whether the tool should be exposed in this context.
    fn is_available(&self, _context: &AgentContext) -> bool {
        true
    }

    /// Whether discovery (tool search) has loaded the tool. Unloaded tools
    /// are left out of requests silently: they are not "unavailable".
    fn is_loaded(&self, _context: &AgentContext) -> bool {
        true
    }

    /// Adjusts the definition for a request; `None` hides the tool for
    /// that request while keeping it registered.
    ///
    /// The definition is shared with the registry: a tool that keeps it
    /// as it is returns the same `Arc`, so a request copies nothing.
    fn prepare_definition(
        &self,
        _context: &AgentContext,
        definition: &Arc<ToolDefinition>,
    ) -> Option<Arc<ToolDefinition>> {
        Some(definition.clone())
    }

    /// Validates, and may normalise, raw JSON arguments before the call.
    ///
    /// # Errors
    /// Returns [`ToolError::InvalidArguments`] (or another class) to reject.
    fn validate_arguments(
        &self,
        _ctx: &ToolContext,
        _arguments: &mut Value,
    ) -> Result<(), ToolError> {
        Ok(())
    }

    /// True for tools that run other tools through a registry (the proxy's
    /// `call_tool`): those apply their own timeouts and internal retries,
    /// so this tool gets neither inherited timeouts nor internal retries.
    fn delegates_execution(&self) -> bool {
        false
    }

    /// Whether [`Tool::validate_arguments`] does anything. Returning
    /// `false` lets the registry skip it and pass the model's arguments
    /// without copying them.
    fn validates_arguments(&self) -> bool {
        true
    }

    /// Checks, without running the tool, that `call` would accept these
    /// arguments (typed tools try to deserialize them). The registry runs
    /// it before the approval gate so a human never reviews arguments the
    /// tool would reject; deferred tools run it before deferring.
    ///
    /// # Errors
    /// [`ToolError::InvalidArguments`] when the arguments would be rejected.
    fn check_arguments(&self, _arguments: &Value) -> Result<(), ToolError> {
        Ok(())
    }

    /// Turns human input supplied with an approval into replacement
    /// arguments and approval metadata. Runs for every approved call,
    /// with `null` when the user gave no input, so a tool that needs input
    /// (clarifying questions) can refuse its absence. `None` when the tool
    /// has no preprocessor.
    fn preprocess_user_input(
        &self,
        _ctx: ToolContext,
        _user_input: Value,
    ) -> Option<BoxFuture<'_, Result<ToolUserInputPreprocessResult, ToolError>>> {
        None
    }
}

//! Ordered execution middleware around tool calls.
//!
//! Global hooks run before tool-specific hooks on input; tool-specific
//! hooks run before global hooks on output. Approval and deferred outcomes
//! are shown to output hooks but cannot be replaced by them.

use serde_json::Value;

use super::{ToolError, ToolResult};
use crate::tools::ToolContext;
use crate::BoxFuture;

/// The outcome of a call as output hooks see it.
#[derive(Clone, Debug)]
pub enum ToolExecutionOutcome {
    /// The tool succeeded.
    Success(ToolResult),
    /// The tool (or validation, or a hook) failed.
    Error(ToolError),
}

impl ToolExecutionOutcome {
    /// True for the approval and deferred control-flow outcomes.
    #[must_use]
    pub fn is_control_flow(&self) -> bool {
        matches!(self, Self::Error(error) if error.kind().is_control_flow())
    }
}

impl From<Result<ToolResult, ToolError>> for ToolExecutionOutcome {
    fn from(result: Result<ToolResult, ToolError>) -> Self {
        match result {
            Ok(result) => Self::Success(result),
            Err(error) => Self::Error(error),
        }
    }
}

/// What an input hook may inspect and change.
#[derive(Debug)]
pub struct ToolHookInput<'a> {
    /// Tool being called.
    pub tool_name: &'a str,
    /// Call id.
    pub tool_call_id: &'a str,
    /// The call's context (mutable: hooks may add dependencies or metadata).
    pub context: &'a mut ToolContext,
    /// The call's arguments (mutable: hooks may rewrite them).
    pub arguments: &'a mut Value,
}

/// What an output hook may inspect and change.
#[derive(Debug)]
pub struct ToolHookOutput<'a> {
    /// Tool that was called.
    pub tool_name: &'a str,
    /// Call id.
    pub tool_call_id: &'a str,
    /// Arguments the tool ran with.
    pub arguments: &'a Value,
    /// The outcome; changes to control-flow outcomes are discarded.
    pub outcome: &'a mut ToolExecutionOutcome,
}

/// Middleware around tool execution. Both methods default to no-ops.
pub trait ToolExecutionHook: Send + Sync {
    /// Runs before validation and execution. An error stops the call and
    /// becomes its outcome (output hooks still run).
    fn before_execute<'a>(
        &'a self,
        _input: ToolHookInput<'a>,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        Box::pin(async { Ok(()) })
    }

    /// Runs after execution, before the outcome becomes a tool return.
    fn after_execute<'a>(&'a self, _output: ToolHookOutput<'a>) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
}

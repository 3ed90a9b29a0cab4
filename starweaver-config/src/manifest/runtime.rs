//! `runtime:`: how the run executes tools and what it may spend.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a batch of tool calls runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolExecution {
    /// Calls of one step run concurrently (sequential tools excepted).
    #[default]
    Parallel,
    /// One call at a time.
    Sequential,
}

/// What happens when tools are unavailable before a model request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UnavailableTools {
    /// Leave them out of the request (an event says so).
    #[default]
    Skip,
    /// Fail the run.
    FailRun,
}

/// The runtime section.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuntimeSpec {
    /// `parallel` (default) or `sequential`.
    #[serde(default)]
    pub tool_execution: ToolExecution,
    /// `skip` (default) or `fail_run`.
    #[serde(default)]
    pub unavailable_tools: UnavailableTools,
    /// Default tool time limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Default tool retry budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<u32>,
    /// Model requests one run may make (default 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<u32>,
    /// Token budget of one run: input plus output tokens over all its model responses
    /// (default: no budget). The run fails before a model request once the budget is used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
}

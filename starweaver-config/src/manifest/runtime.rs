//! `runtime:`: how the run executes tools and what it may spend.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a batch of tool calls runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolExecution {
    /// At once (a tool marked sequential still runs alone).
    #[default]
    Parallel,
    /// One after another, in the order the model gave them.
    Sequential,
}

/// What happens when tools are unavailable before a model request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UnavailableTools {
    /// Leave it out of that request (an event says so) and go on.
    #[default]
    Skip,
    /// Stop the run with an error.
    FailRun,
}

/// The runtime section.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuntimeSpec {
    /// How the tool calls of one model response run.
    #[serde(default)]
    #[schemars(example = &"sequential")]
    pub tool_execution: ToolExecution,
    /// What happens when a tool is unavailable before a model request.
    #[serde(default)]
    #[schemars(example = &"fail_run")]
    pub unavailable_tools: UnavailableTools,
    /// Time limit of each tool call, in milliseconds, for tools and
    /// toolsets that set none. Unset: no agent-wide limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = 60000)]
    pub timeout_ms: Option<u64>,
    /// Retries of a failed tool call, for tools and toolsets that set
    /// none. Unset: no agent-wide budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = 3)]
    pub max_retries: Option<u32>,
    /// Model requests one run may make before it stops. Unset: 50.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = 20)]
    pub max_steps: Option<std::num::NonZeroU32>,
    /// Token budget of one run: input plus output tokens over all its model responses. The run
    /// fails before a model request once it has used the budget. Unset: no budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = 100000)]
    pub max_tokens: Option<std::num::NonZeroU64>,
}

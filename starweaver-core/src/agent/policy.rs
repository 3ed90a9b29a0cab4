//! How a run schedules tools and how long it may go on.

use serde::{Deserialize, Serialize};

/// Scheduling of the tool calls of one model response.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolExecutionPolicy {
    /// Independent calls run concurrently (with the spec's fallbacks).
    #[default]
    Parallel,
    /// Calls always run one after another, in model order.
    Sequential,
}

/// Runtime limits of an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentRuntimePolicy {
    /// Tool scheduling.
    pub tool_execution: ToolExecutionPolicy,
    /// Most model requests in one run.
    pub max_steps: u32,
    /// Agent-level retry budget (tools, then toolsets, then registry win).
    pub max_retries: Option<u32>,
    /// Agent-level tool timeout.
    pub timeout_ms: Option<u64>,
    /// Token budget of one run: input plus output tokens summed over its
    /// model responses; `None` leaves it unbounded. Before each model
    /// request the run fails if it has used the budget, so a run that keeps
    /// calling tools cannot spend without limit (the last response may
    /// pass it: its size is known only once it arrives).
    #[serde(default)]
    pub max_tokens: Option<u64>,
}

impl Default for AgentRuntimePolicy {
    fn default() -> Self {
        Self {
            tool_execution: ToolExecutionPolicy::Parallel,
            max_steps: 50,
            max_retries: None,
            timeout_ms: None,
            max_tokens: None,
        }
    }
}

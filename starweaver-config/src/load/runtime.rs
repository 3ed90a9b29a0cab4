//! `runtime:` to the agent's policy and tool settings.

use std::num::NonZeroU32;

use starweaver_core::agent::{AgentRuntimePolicy, ToolExecutionPolicy};
use starweaver_core::context::{ToolAvailabilityPolicy, ToolConfig};

use crate::manifest::{RuntimeSpec, ToolExecution, UnavailableTools};

/// The run policy and tool settings the section declares (defaults when absent), with the
/// host's `max_steps` (`--max-steps`) over the manifest's.
pub(super) fn runtime(
    spec: Option<&RuntimeSpec>,
    max_steps: Option<NonZeroU32>,
) -> (AgentRuntimePolicy, ToolConfig) {
    let mut policy = AgentRuntimePolicy::default();
    let mut config = ToolConfig::default();
    if let Some(spec) = spec {
        policy.tool_execution = match spec.tool_execution {
            ToolExecution::Parallel => ToolExecutionPolicy::Parallel,
            ToolExecution::Sequential => ToolExecutionPolicy::Sequential,
        };
        config.unavailable_tool_policy = match spec.unavailable_tools {
            UnavailableTools::Skip => ToolAvailabilityPolicy::SkipAndReport,
            UnavailableTools::FailRun => ToolAvailabilityPolicy::FailRun,
        };
        policy.timeout_ms = spec.timeout_ms;
        policy.max_retries = spec.max_retries;
        if let Some(steps) = spec.max_steps {
            policy.max_steps = steps.get();
        }
        policy.max_tokens = spec.max_tokens.map(std::num::NonZeroU64::get);
    }
    if let Some(steps) = max_steps {
        policy.max_steps = steps.get();
    }
    (policy, config)
}

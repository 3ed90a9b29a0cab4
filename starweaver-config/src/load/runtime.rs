//! `runtime:` to the agent's policy and tool settings.

use starweaver_core::agent::{AgentRuntimePolicy, ToolExecutionPolicy};
use starweaver_core::context::{ToolAvailabilityPolicy, ToolConfig};

use super::LoadError;
use crate::manifest::{RuntimeSpec, ToolExecution, UnavailableTools};

/// The run policy and tool settings the section declares (defaults when absent).
pub(super) fn runtime(
    spec: Option<&RuntimeSpec>,
) -> Result<(AgentRuntimePolicy, ToolConfig), LoadError> {
    let mut policy = AgentRuntimePolicy::default();
    let mut config = ToolConfig::default();
    let Some(spec) = spec else {
        return Ok((policy, config));
    };
    if spec.max_tokens.is_some() {
        return Err(LoadError::Unsupported {
            field: "runtime.max_tokens".to_string(),
            reason: "the runtime has no token budget yet; bound the run with `max_steps`"
                .to_string(),
        });
    }
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
        policy.max_steps = u32::try_from(steps).map_err(|_| LoadError::Unsupported {
            field: "runtime.max_steps".to_string(),
            reason: format!("{steps} is more than {} steps", u32::MAX),
        })?;
    }
    Ok((policy, config))
}

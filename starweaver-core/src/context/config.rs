//! Tool configuration carried by the agent context.

use serde::{Deserialize, Serialize};

/// What happens when context-aware filtering hides tools before a model
/// request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolAvailabilityPolicy {
    /// Skip unavailable tools and publish a `tools_unavailable` event.
    #[default]
    SkipAndReport,
    /// Publish `tools_unavailable`, then fail the run before the request.
    FailRun,
}

/// Tool settings for a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolConfig {
    /// Policy for tools that are unavailable in the current context.
    pub unavailable_tool_policy: ToolAvailabilityPolicy,
}

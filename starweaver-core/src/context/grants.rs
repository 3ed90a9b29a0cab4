//! Per-tool capability grants for the Strict dependency profile.

use serde::{Deserialize, Serialize};

/// Mutable context capability: set a handoff for the next agent.
pub const CONTEXT_HANDOFF_CAPABILITY: &str = "starweaver.context.handoff";
/// Mutable context capability: read and update the run's task list.
pub const CONTEXT_TASKS_CAPABILITY: &str = "starweaver.context.tasks";
/// Mutable context capability: read and record usage.
pub const CONTEXT_USAGE_CAPABILITY: &str = "starweaver.context.usage";
/// Mutable context capability: record tools loaded by tool search.
pub const CONTEXT_TOOL_SEARCH_CAPABILITY: &str = "starweaver.context.tool_search";

/// Authority a host grants one tool. Strict tools receive the
/// intersection of what they request and what this grant allows; without
/// a grant they receive nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCapabilityGrant {
    /// Host capability names (named dependencies) the tool may see.
    #[serde(default)]
    pub host_capabilities: Vec<String>,
    /// Whether the tool may see the shell environment snapshot.
    #[serde(default)]
    pub shell_environment: bool,
    /// Mutable context capability names (`starweaver.context.*`).
    #[serde(default)]
    pub context_capabilities: Vec<String>,
}

impl ToolCapabilityGrant {
    /// An empty grant.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Allows host capabilities by name.
    #[must_use]
    pub fn with_host_capabilities<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.host_capabilities
            .extend(names.into_iter().map(Into::into));
        self
    }

    /// Allows the shell environment snapshot.
    #[must_use]
    pub fn with_shell_environment(mut self, allowed: bool) -> Self {
        self.shell_environment = allowed;
        self
    }

    /// Allows mutable context capabilities by name. Unknown names are
    /// kept but never match a handle, so they grant nothing.
    #[must_use]
    pub fn with_context_capabilities<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.context_capabilities
            .extend(names.into_iter().map(Into::into));
        self
    }
}

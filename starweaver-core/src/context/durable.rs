//! The serializable part of an agent context, for durable sessions.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::ToolConfig;
use super::{
    AgentContext, ContextHandoff, ContextTask, Notes, ShellEnvironmentSnapshot, ToolSearchState,
};
use crate::model::Usage;
use crate::JsonMap;

/// What survives an export: notes, metadata, loaded tool-search state,
/// tasks, usage, a pending handoff, shell settings, unavailable toolsets
/// and the tool config. Dependencies, grants and events
/// belong to the host process and are attached again after a restore.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentContextState {
    /// Notes.
    #[serde(default)]
    pub notes: Notes,
    /// Host metadata.
    #[serde(default)]
    pub metadata: JsonMap,
    /// Tool-search loaded state.
    #[serde(default)]
    pub tool_search: ToolSearchState,
    /// Task list.
    #[serde(default)]
    pub tasks: Vec<ContextTask>,
    /// Usage counters.
    #[serde(default)]
    pub usage: Usage,
    /// Pending handoff.
    #[serde(default)]
    pub handoff: Option<ContextHandoff>,
    /// Shell settings.
    #[serde(default)]
    pub shell_environment: Option<ShellEnvironmentSnapshot>,
    /// Toolsets left unavailable by lifecycle setup.
    #[serde(default)]
    pub unavailable_toolsets: BTreeSet<String>,
    /// Tool settings, such as a fail-closed unavailable-tool policy.
    #[serde(default)]
    pub tool_config: ToolConfig,
}

impl AgentContext {
    /// The serializable part of this context.
    #[must_use]
    pub fn to_state(&self) -> AgentContextState {
        AgentContextState {
            notes: self.notes.clone(),
            metadata: self.metadata.clone(),
            tool_search: self.tool_search.clone(),
            tasks: self.tasks.clone(),
            usage: self.usage,
            handoff: self.handoff.clone(),
            shell_environment: self.shell_environment.clone(),
            unavailable_toolsets: self.unavailable_toolsets.clone(),
            tool_config: self.tool_config.clone(),
        }
    }

    /// Replaces the serializable part of this context with `state`,
    /// keeping dependencies, grants and events.
    pub fn apply_state(&mut self, state: AgentContextState) {
        self.notes = state.notes;
        self.metadata = state.metadata;
        self.tool_search = state.tool_search;
        self.tasks = state.tasks;
        self.usage = state.usage;
        self.handoff = state.handoff;
        self.shell_environment = state.shell_environment;
        self.unavailable_toolsets = state.unavailable_toolsets;
        self.tool_config = state.tool_config;
    }
}

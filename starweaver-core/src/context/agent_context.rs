//! The agent context: the state one conversation carries across tool
//! calls and model turns.

use std::any::Any;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::{
    ContextEventKind, ContextEvents, ContextHandoff, ContextTask, Dependencies, Notes,
    ShellEnvironmentSnapshot, ToolCapabilityGrant, ToolConfig, ToolSearchState,
};
use crate::model::Usage;
use crate::JsonMap;

/// State shared by an agent, its runtime and its tools.
#[derive(Clone, Debug, Default)]
pub struct AgentContext {
    /// Free-form notes.
    pub notes: Notes,
    /// Host metadata, read by availability and prepare-definition callbacks.
    pub metadata: JsonMap,
    /// Events published for the host.
    pub events: ContextEvents,
    /// Dependencies attached by the host.
    pub dependencies: Dependencies,
    /// Tool settings for the run.
    pub tool_config: ToolConfig,
    /// Tools and namespaces loaded by tool search.
    pub tool_search: ToolSearchState,
    /// The run's task list.
    pub tasks: Vec<ContextTask>,
    /// Usage counters.
    pub usage: Usage,
    /// Pending handoff, if a tool requested one.
    pub handoff: Option<ContextHandoff>,
    /// Shell settings the host configured, if any.
    pub shell_environment: Option<ShellEnvironmentSnapshot>,
    /// Toolsets whose lifecycle setup failed or that reported themselves
    /// unavailable; their tools are hidden.
    pub unavailable_toolsets: BTreeSet<String>,
    grants: BTreeMap<String, ToolCapabilityGrant>,
}

impl AgentContext {
    /// Creates an empty context.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Attaches a typed dependency (also reachable by its Rust type name,
    /// which is a convenience, not a stable capability name).
    pub fn insert_dependency<T: Any + Send + Sync>(&mut self, value: T) {
        self.dependencies.insert(value);
    }

    /// Attaches a host capability under a stable name, for dependency
    /// profiles to request.
    pub fn insert_named_dependency<T: Any + Send + Sync>(
        &mut self,
        name: impl Into<String>,
        value: T,
    ) {
        self.dependencies.insert_named(name, value);
    }

    /// Installs the authority a Strict tool may receive.
    pub fn grant_tool_capabilities(&mut self, tool: impl Into<String>, grant: ToolCapabilityGrant) {
        self.grants.insert(tool.into(), grant);
    }

    /// The grant installed for a tool, if any.
    #[must_use]
    pub fn tool_capability_grant(&self, tool: &str) -> Option<&ToolCapabilityGrant> {
        self.grants.get(tool)
    }

    /// Records tools and namespaces as loaded by tool search. Publishes no
    /// event; [`crate::toolsets::ToolSearchToolset`] does that for model-driven and
    /// host preloads.
    pub fn record_tool_search_loaded<T, N>(&mut self, tools: T, namespaces: N)
    where
        T: IntoIterator,
        T::Item: Into<String>,
        N: IntoIterator,
        N::Item: Into<String>,
    {
        self.tool_search
            .loaded_tools
            .extend(tools.into_iter().map(Into::into));
        self.tool_search
            .loaded_namespaces
            .extend(namespaces.into_iter().map(Into::into));
    }

    /// Publishes an event.
    pub fn emit(&mut self, kind: impl Into<ContextEventKind>, payload: Value) {
        self.events.emit(kind, payload);
    }
}

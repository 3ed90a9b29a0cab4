//! Small pieces of run state that tools may change through narrow handles.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// Tools and namespaces that tool search has loaded for later turns.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolSearchState {
    /// Loaded tool names.
    pub loaded_tools: BTreeSet<String>,
    /// Loaded namespaces (toolset ids); all their tools are visible.
    pub loaded_namespaces: BTreeSet<String>,
}

impl ToolSearchState {
    /// True when the tool, or its namespace, is loaded.
    #[must_use]
    pub fn is_loaded(&self, tool: &str, namespace: Option<&str>) -> bool {
        self.loaded_tools.contains(tool)
            || namespace.is_some_and(|namespace| self.loaded_namespaces.contains(namespace))
    }

    /// True when nothing is loaded.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.loaded_tools.is_empty() && self.loaded_namespaces.is_empty()
    }
}

/// One entry of the run's task list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextTask {
    /// Task id, unique in the list.
    pub id: String,
    /// What the task is.
    pub title: String,
    /// Free-form status, such as `pending`, `in_progress`, `done`.
    pub status: String,
}

/// A request to hand the conversation to another agent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextHandoff {
    /// Target agent name.
    pub target: String,
    /// Message for the target agent.
    pub message: String,
}

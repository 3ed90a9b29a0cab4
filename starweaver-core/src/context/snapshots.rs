//! Read-only projections of the context that the runtime hands to tools.

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::Dependencies;

/// Shell settings a tool may read: only tools that request it (Filtered)
/// or are granted it (Strict) receive this.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShellEnvironmentSnapshot {
    /// Whether commands may run at all.
    pub allow_execute: bool,
    /// Programs allowed by exact name; empty means any.
    pub allowed_programs: Vec<String>,
    /// Default command timeout.
    pub timeout_ms: Option<u64>,
    /// Per-stream output bound.
    pub max_output_bytes: Option<u64>,
    /// Working directory, relative to the environment root.
    pub working_directory: Option<String>,
    /// Extra environment variables.
    pub env: BTreeMap<String, String>,
}

/// Limits of the current call, given to every tool that runs with an
/// ambient agent context (not to delegating tools such as `call_tool`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolRuntimeSnapshot {
    /// Name of the tool being called.
    pub tool_name: String,
    /// Effective retry budget.
    pub max_retries: u32,
    /// Effective timeout.
    pub timeout_ms: Option<u64>,
    /// Shell settings; present only for the Legacy profile.
    pub shell: Option<ShellEnvironmentSnapshot>,
}

/// The host integrations a tool may reach, by stable name.
#[derive(Clone, Debug, Default)]
pub struct HostCapabilities {
    entries: Dependencies,
}

impl HostCapabilities {
    pub(crate) fn from_dependencies(entries: Dependencies) -> Self {
        Self { entries }
    }

    /// Looks a capability up by name, checking its type.
    #[must_use]
    pub fn get<T: Any + Send + Sync>(&self, name: &str) -> Option<Arc<T>> {
        self.entries.get_named(name)
    }

    /// True when the capability is visible to this tool.
    #[must_use]
    pub fn contains(&self, name: &str) -> bool {
        self.entries.contains_named(name)
    }

    /// Visible capability names, sorted.
    #[must_use]
    pub fn names(&self) -> Vec<String> {
        self.entries.names()
    }
}

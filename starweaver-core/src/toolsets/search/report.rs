//! Reports a search toolset publishes about its inventory and state.

use serde::{Deserialize, Serialize};

/// Inventory and loaded state of one search toolset.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolSearchReport {
    /// Search toolset name.
    pub toolset: String,
    /// Number of indexed tools.
    pub indexed_tools: usize,
    /// Known namespaces.
    pub namespaces: Vec<String>,
    /// Indexed tools available in the context.
    pub available_tools: usize,
    /// Indexed tools unavailable in the context.
    pub unavailable_tools: usize,
    /// Loaded tools that belong to this toolset.
    pub loaded_tools: Vec<String>,
    /// Loaded namespaces that belong to this toolset.
    pub loaded_namespaces: Vec<String>,
    /// Most matches one search returns.
    pub max_results: usize,
    /// Longest accepted query, in characters.
    pub max_query_chars: usize,
}

/// What a refresh or invalidation changed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolSearchRefreshReport {
    /// Search toolset name.
    pub toolset: String,
    /// Loaded tools removed (stale or unavailable).
    pub removed_tools: Vec<String>,
    /// Loaded namespaces removed.
    pub removed_namespaces: Vec<String>,
    /// Loaded tools kept.
    pub loaded_tools: Vec<String>,
    /// Loaded namespaces kept.
    pub loaded_namespaces: Vec<String>,
    /// Number of indexed tools after the refresh.
    pub indexed_tools: usize,
    /// True when a [`super::ToolSearchRefreshBinding`] scheduled it.
    pub refresh_scheduled: bool,
    /// Why a scheduled refresh ran.
    pub refresh_reason: Option<String>,
    /// How long the refresh took, in milliseconds.
    pub refresh_ms: u64,
    /// Host inventory version the refresh saw.
    pub inventory_version: Option<String>,
}

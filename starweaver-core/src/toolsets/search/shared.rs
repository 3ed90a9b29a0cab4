//! What the tool search toolset and its model-facing `tool_search` tool
//! share: the index behind one lock, the tool's name, which tools a search
//! may offer, and the payload of the event a load publishes.

use std::sync::{Arc, PoisonError, RwLock};

use serde_json::{json, Value};

use super::index::{IndexedTool, SearchIndex};
use crate::context::AgentContext;
use crate::tools::{is_usable_in, DynToolset};

/// Name of the model-facing search tool.
pub(super) const TOOL_SEARCH_NAME: &str = "tool_search";

/// What the toolset and its `tool_search` tool share.
pub(super) struct Shared {
    pub(super) name: String,
    pub(super) toolsets: Vec<DynToolset>,
    pub(super) index: RwLock<Arc<SearchIndex>>,
    pub(super) max_results: usize,
}

impl Shared {
    /// The current index; a refresh swaps in a new one behind the lock.
    pub(super) fn index(&self) -> Arc<SearchIndex> {
        self.index
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// The `tool_search_loaded` payload, for searches and preloads alike.
pub(super) fn loaded_event(
    toolset: &str,
    source: &str,
    query: Option<&str>,
    tools: &[String],
    namespaces: &[String],
) -> Value {
    json!({
        "toolset": toolset,
        "source": source,
        "query": query,
        "tools": tools,
        "namespaces": namespaces,
    })
}

/// Whether a search may offer the tool: its toolset is up and it is
/// available, with the registry's guard (a panicking check means no).
pub(super) fn is_usable(tool: &IndexedTool, context: &AgentContext) -> bool {
    is_usable_in(&*tool.tool, Some(&tool.toolset), context)
}

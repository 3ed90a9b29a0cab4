//! Tool search: the model sees only `tool_search` until a search loads
//! matching tools (or whole namespaces) into the agent context.

mod events;
mod index;
mod refresh;
mod report;
mod shared;
mod tool;
mod toolset;

pub use events::{
    TOOL_SEARCH_FAILED_EVENT_KIND, TOOL_SEARCH_INITIALIZED_EVENT_KIND,
    TOOL_SEARCH_INVALIDATED_EVENT_KIND, TOOL_SEARCH_LOADED_EVENT_KIND,
    TOOL_SEARCH_NO_MATCH_EVENT_KIND, TOOL_SEARCH_REFRESHED_EVENT_KIND,
};
pub(crate) use index::{IndexedTool, SearchIndex};
pub use refresh::{ToolSearchRefreshBinding, ToolSearchRefreshDecision, ToolSearchRefreshReason};
pub use report::{ToolSearchRefreshReport, ToolSearchReport};
pub use toolset::{tool_search_toolset, ToolSearchToolset};

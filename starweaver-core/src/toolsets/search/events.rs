//! Context event kinds published by tool search.

/// Tools or namespaces were loaded (by a search or a host preload).
pub const TOOL_SEARCH_LOADED_EVENT_KIND: &str = "tool_search_loaded";
/// The initialization report.
pub const TOOL_SEARCH_INITIALIZED_EVENT_KIND: &str = "tool_search_initialized";
/// A refresh report, or a refresh of loaded state.
pub const TOOL_SEARCH_REFRESHED_EVENT_KIND: &str = "tool_search_refreshed";
/// All loaded state of a search toolset was cleared.
pub const TOOL_SEARCH_INVALIDATED_EVENT_KIND: &str = "tool_search_invalidated";
/// A query was invalid.
pub const TOOL_SEARCH_FAILED_EVENT_KIND: &str = "tool_search_failed";
/// A valid query matched nothing.
pub const TOOL_SEARCH_NO_MATCH_EVENT_KIND: &str = "tool_search_no_match";

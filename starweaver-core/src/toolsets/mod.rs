//! Toolsets: groups of tools with shared instructions and defaults, and
//! the combinators that prefix, gate, defer, proxy and search them.

mod approval;
mod deferred;
mod forward;
mod lifecycle;
mod prefixed;
mod proxy;
mod search;
mod static_toolset;
mod toolset;

pub use approval::ApprovalRequiredToolset;
pub use deferred::DeferredToolset;
pub use lifecycle::{
    ToolsetLifecyclePolicy, ToolsetLifecycleReport, ToolsetLifecycleStatus,
    TOOLSET_CLOSED_EVENT_KIND, TOOLSET_FAILED_EVENT_KIND, TOOLSET_INITIALIZED_EVENT_KIND,
    TOOLSET_UNAVAILABLE_EVENT_KIND,
};
pub use prefixed::PrefixedToolset;
pub use proxy::{tool_proxy_toolset, ToolProxyToolset};
pub use search::{
    tool_search_toolset, ToolSearchRefreshBinding, ToolSearchRefreshDecision,
    ToolSearchRefreshReason, ToolSearchRefreshReport, ToolSearchReport, ToolSearchToolset,
    TOOL_SEARCH_FAILED_EVENT_KIND, TOOL_SEARCH_INITIALIZED_EVENT_KIND,
    TOOL_SEARCH_INVALIDATED_EVENT_KIND, TOOL_SEARCH_LOADED_EVENT_KIND,
    TOOL_SEARCH_NO_MATCH_EVENT_KIND, TOOL_SEARCH_REFRESHED_EVENT_KIND,
};
pub use static_toolset::StaticToolset;
pub use toolset::{DynToolset, IntoDynToolset, Toolset};

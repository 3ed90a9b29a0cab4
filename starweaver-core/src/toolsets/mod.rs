//! Toolsets: the static toolset and the combinators that prefix, gate,
//! defer, proxy and search other toolsets. (The `Toolset` trait itself
//! and its lifecycle belong to the tool layer, since the registry takes
//! toolsets.)

mod approval;
mod deferred;
mod prefixed;
mod proxy;
mod search;
mod static_toolset;
mod wrapping;

pub use approval::ApprovalRequiredToolset;
pub use deferred::DeferredToolset;
pub use prefixed::PrefixedToolset;
pub use proxy::{tool_proxy_toolset, ToolProxyToolset};
pub use search::{
    tool_search_toolset, ToolSearchRefreshBinding, ToolSearchRefreshReport, ToolSearchReport,
    ToolSearchToolset,
};
pub use static_toolset::StaticToolset;

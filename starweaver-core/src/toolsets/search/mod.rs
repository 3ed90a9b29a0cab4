//! Tool search: the model sees only `tool_search` until a search loads
//! matching tools (or whole namespaces) into the agent context.

mod index;
mod refresh;
mod report;
mod shared;
mod tool;
mod toolset;

pub(crate) use index::{IndexedTool, SearchIndex};
pub use refresh::ToolSearchRefreshBinding;
pub use report::{ToolSearchRefreshReport, ToolSearchReport};
pub use toolset::{tool_search_toolset, ToolSearchToolset};

//! Loading a manifest into the runtime: [`read`] turns a file's bytes into a
//! [`crate::manifest::Manifest`] (refusing what the checker refuses), and [`load()`] assembles
//! the agent it declares.

mod agent;
mod environment;
mod error;
mod instructions;
mod model;
mod options;
mod read;
mod runtime;
mod summary;
mod toolsets;

pub use agent::{load, LoadedAgent};
pub use environment::{policy as shell_policy, sandbox_policy};
pub use error::LoadError;
pub use options::{LoadOptions, ToolResolver};
pub use read::{read, read_with_context, read_with_warnings};
pub use summary::{Reach, ToolSummary, ToolsetSummary};
pub use toolsets::first_party_tool;
pub use toolsets::READ_ONLY_FILESYSTEM_TOOLS;

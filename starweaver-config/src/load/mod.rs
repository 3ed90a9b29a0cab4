//! Loading a checked manifest into the runtime: [`load()`] takes a
//! [`crate::validate::Checked`], which only the checker produces
//! ([`crate::validate::check_manifest`]), and assembles the agent it declares. Every manifest
//! rule is the checker's; a [`LoadError`] is only what loading itself can meet (the build, the
//! host, the file system now, the run's values).
//!
//! [`load_file`] does both in one call for a manifest file: read once, check, load.

mod agent;
mod environment;
mod error;
mod file;
mod instructions;
mod mcp;
mod model;
mod options;
mod runtime;
mod sub_agent;
mod summary;
mod toolsets;

pub use agent::{load, LoadedAgent, LoadedSubAgent};
pub use environment::{sandbox_policy, sandbox_policy_of, shell_policy};
pub use error::LoadError;
pub use file::{load_file, LoadFileError};
pub use mcp::{host_values, mcp_toolset, McpBuilder};
pub use options::{LoadOptions, ToolResolver};
pub use summary::{Reach, ToolSummary, ToolsetSummary};
pub use toolsets::first_party_tool;
pub use toolsets::READ_ONLY_FILESYSTEM_TOOLS;

#[cfg(test)]
mod tests;

//! Starweaver: a declarative, config-driven agent framework.
//!
//! This facade carries the whole product. Its root holds the agent and
//! tool runtime: agents, sessions, context, tools, toolsets, bundles and
//! skills. [`tools`], [`environment`] and [`model`] each hold their whole
//! layer. An item has at most two paths: the root and its layer module
//! (the committed list in `tests/public_api.txt` shows them all).
//!
//! ```
//! use std::sync::Arc;
//! use starweaver::{string_tool, ToolContext, ToolRegistry, ToolResult};
//!
//! let echo = string_tool(
//!     "echo",
//!     Some("Echo a JSON value".to_string()),
//!     serde_json::json!({"type": "object", "properties": {}}),
//!     |_ctx: ToolContext, args: serde_json::Value| async move { Ok(ToolResult::new(args)) },
//! );
//! let registry = ToolRegistry::new().with_tool(Arc::new(echo));
//! assert_eq!(registry.names(), vec!["echo"]);
//! ```

pub use starweaver_core::agent::*;
pub use starweaver_core::bundles::*;
pub use starweaver_core::context::*;
pub use starweaver_core::environment::{attach_environment, attach_process_shell};
pub use starweaver_core::model::{
    DynModel, FunctionModel, Model, ModelError, ModelSettings, TestModel, ToolCallArguments,
    ToolCallPart, ToolDefinition, ToolReturnKind, ToolReturnPart, Usage,
};
pub use starweaver_core::schedule::{RefreshDecision, RefreshReason, RefreshSchedule};
pub use starweaver_core::skills::*;
pub use starweaver_core::tools::*;
pub use starweaver_core::toolsets::*;
pub use starweaver_core::{BoxFuture, JsonMap};

/// The tool layer: tools, their context, results and errors, the
/// registry, hooks, dependency profiles, the `Toolset` trait and the
/// toolset combinators. Everything here is also at the crate root.
pub mod tools {
    pub use starweaver_core::tools::*;
    pub use starweaver_core::toolsets::*;
}

/// Environments: the provider trait, the in-memory provider, the path
/// space, search, commands, the shell policy and background processes.
/// `attach_environment` and `attach_process_shell` are also at the crate
/// root.
pub mod environment {
    pub use starweaver_core::environment::*;
}

/// The model layer: provider-neutral messages and parts, tool
/// definitions, the `Model` trait and the test models. The test models,
/// call and return parts and `ToolDefinition` are also at the crate root.
/// With the `openai` and `anthropic` features it also holds the HTTP
/// clients (from `starweaver-providers`): `model::openai`,
/// `model::anthropic` and what they share, `model::http`.
pub mod model {
    pub use starweaver_core::model::*;
    #[cfg(feature = "anthropic")]
    pub use starweaver_providers::anthropic;
    #[cfg(any(feature = "openai", feature = "anthropic"))]
    pub use starweaver_providers::http;
    #[cfg(feature = "openai")]
    pub use starweaver_providers::openai;
}

/// The process-wide tool catalog: every `#[starweaver::tool]` registers
/// itself here by name, and manifests name tools from it.
pub mod catalog {
    pub use starweaver_core::catalog::*;
}

/// Turns an annotated function into a tool: keeps the function, adds
/// `NAME_tool()` and registers it in [`catalog`] (every parameter rule,
/// attribute and compile error is in `docs/tool-macro.md`).
pub use starweaver_macros::tool;

/// What the `#[starweaver::tool]` expansion reaches through the facade, so
/// a user needs neither serde, schemars nor inventory in their own
/// `Cargo.toml`. Not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use inventory;
    pub use schemars;
    pub use serde;
    pub use serde_json;
    pub use starweaver_core::catalog::CatalogEntry;
    pub use starweaver_core::macro_support::*;
}

/// Agent manifests: the format's types, the position-keeping YAML
/// reader, the checker (`validate`) and loading into the runtime
/// (`load`); with the `cli` feature, `check_main` too, so an
/// application's own checker binary is one line.
pub mod config {
    /// `starweaver check` as a whole program, with the tools linked into
    /// the application as the catalog (from the command-line library).
    #[cfg(feature = "cli")]
    pub use starweaver_cli::check_main;
    pub use starweaver_config::*;
}

/// The command line as a library (`cli` feature): every command of the
/// `starweaver` binary, the terminal UI, the check's report formats and
/// secret masking ([`cli::mask`]), for hosts that show runs or checks
/// their own way.
#[cfg(feature = "cli")]
pub use starweaver_cli as cli;

/// MCP (`mcp` feature), on the official Rust SDK: any MCP server's tools as a toolset
/// ([`mcp::client::McpToolset`]), and a manifest's toolsets served to MCP clients
/// ([`mcp::server::McpServer`]).
#[cfg(feature = "mcp")]
pub use starweaver_mcp as mcp;

/// The README's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The tool macro guide's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/tool-macro.md")]
pub struct ToolMacroDoctests;

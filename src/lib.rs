//! Starweaver: a declarative, config-driven agent framework.
//!
//! This facade carries the whole product, one module per layer:
//! [`agent`] (agents, sessions, runs, approvals), [`context`] (the state a
//! run carries and its ids), [`tools`] (tools, the registry, toolsets),
//! [`bundles`] (the first-party filesystem, shell and user-input tools),
//! [`skills`], [`environment`], [`model`], [`schedule`], [`catalog`] and
//! [`config`] (manifests). Every item is in its layer module. The root
//! holds, besides, the few names a program types first: building, running
//! and registering tools, an agent and its session, the context, the
//! first-party bundles, the test model and the skill registry. So an item
//! has at most two paths, its layer module and perhaps the root (the
//! committed list in `tests/public_api.txt` shows them all).
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

pub use starweaver_core::agent::{
    AgentBuilder, AgentError, AgentRunOptions, AgentSession, AgentStreamEvent, SubAgent,
};
pub use starweaver_core::bundles::{filesystem_tools, shell_tools};
pub use starweaver_core::context::{
    AgentContext, AgentContextHandle, ConversationId, RunId, ToolAvailabilityPolicy, ToolConfig,
};
pub use starweaver_core::environment::{attach_environment, attach_process_shell};
pub use starweaver_core::model::TestModel;
pub use starweaver_core::skills::{
    SkillError, SkillRegistry, SkillReloadChangeKind, SkillScanDiagnosticKind, SkillSourceScope,
    SKILL_RELOAD_EVENT_KIND, SKILL_SCAN_EVENT_KIND,
};
pub use starweaver_core::tools::{
    string_tool, tool_metadata_hidden_by_tags, tool_metadata_kind, tool_metadata_tags, typed_tool,
    DynToolset, Tool, ToolContext, ToolError, ToolInstruction, ToolKind, ToolRegistry, ToolResult,
    ToolUserInputPreprocessResult, Toolset,
};
pub use starweaver_core::toolsets::{
    tool_proxy_toolset, tool_search_toolset, PrefixedToolset, StaticToolset,
};

/// Agents: the builder, the agent and the app, sessions, run options and
/// results, stream events, the runtime policy and human-in-the-loop
/// requests and answers.
pub mod agent {
    pub use starweaver_core::agent::*;
}

/// The state a run carries: [`context::AgentContext`] with its notes,
/// events, dependencies and grants, the capability handles tools ask
/// for, the runtime snapshots and the run and conversation ids.
pub mod context {
    pub use starweaver_core::context::*;
}

/// The tool layer: tools, their context, results and errors, the
/// registry, hooks, dependency profiles and typed facts, the `Toolset`
/// trait and the toolset combinators (prefix, approval, deferral, proxy,
/// search), and the two types the dyn-compatible traits share
/// ([`tools::BoxFuture`], [`tools::JsonMap`]).
pub mod tools {
    pub use starweaver_core::tools::*;
    pub use starweaver_core::toolsets::*;
    pub use starweaver_core::{BoxFuture, JsonMap};
}

/// The first-party tool bundles: the filesystem tools, the shell tools and
/// the user-input tool, with their argument types, tool names and limits.
pub mod bundles {
    pub use starweaver_core::bundles::*;
}

/// Skills: the registry, its sources and scopes, scan and reload reports,
/// the reload binding and the skills toolset.
pub mod skills {
    pub use starweaver_core::skills::*;
}

/// Deterministic scheduling from host-supplied clock readings, shared by
/// the tool-search refresh and skill reload bindings: the decision and
/// the reason a refresh or reload is due.
pub mod schedule {
    pub use starweaver_core::schedule::*;
}

/// Durable runs: the [`runs::RunStore`] contract (runs, leases, the journal of each step),
/// the run records it keeps, and the in-memory store.
pub mod runs {
    pub use starweaver_core::runs::*;
}

/// Run stores on a database: [`store::SqliteRunStore`] (runs in one SQLite file),
/// [`store::PgRunStore`] (on a PostgreSQL server many workers share) and
/// [`store::StoreUrl`], which opens either from `sqlite:PATH` or `postgres://...`.
#[cfg(feature = "store")]
pub mod store {
    pub use starweaver_store::*;
}

/// Environments: the provider trait, the in-memory provider, the path
/// space, search, commands, the shell policy and background processes.
pub mod environment {
    pub use starweaver_core::environment::*;
}

/// The model layer: provider-neutral messages and parts, tool
/// definitions, the `Model` trait and the test models. With the `openai`
/// and `anthropic` features it also holds the HTTP clients (from
/// `starweaver-providers`): `model::openai`, `model::anthropic` and what
/// they share, `model::http`.
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

/// The filesystem guide's examples run as doctests, like every guide's
/// Rust examples, so they keep to the facade's paths.
#[cfg(doctest)]
#[doc = include_str!("../docs/filesystem-tools.md")]
pub struct FilesystemToolsDoctests;

/// The shell guide's examples.
#[cfg(doctest)]
#[doc = include_str!("../docs/shell.md")]
pub struct ShellDoctests;

/// The skills guide's examples.
#[cfg(doctest)]
#[doc = include_str!("../docs/skills.md")]
pub struct SkillsDoctests;

/// The check guide's example: a checker binary (the `cli` feature).
#[cfg(all(doctest, feature = "cli"))]
#[doc = include_str!("../docs/check.md")]
pub struct CheckDoctests;

/// The MCP guide's examples (the `mcp` feature).
#[cfg(all(doctest, feature = "mcp"))]
#[doc = include_str!("../docs/mcp.md")]
pub struct McpDoctests;

/// The durable runs guide's library example (the `store` feature).
#[cfg(all(doctest, feature = "store"))]
#[doc = include_str!("../docs/runs.md")]
pub struct RunsDoctests;

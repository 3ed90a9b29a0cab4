//! Starweaver: a declarative, config-driven agent framework.
//!
//! This facade carries the whole product. Its root re-exports the agent
//! and tool runtime (what the Tools chapter imports from
//! `starweaver_agent`); [`tools`] and [`model`] hold the tool layer and the
//! model layer (messages, the `Model` trait, test doubles) under their own
//! paths.
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
pub use starweaver_core::environment::attach_environment;
pub use starweaver_core::model::{
    DynModel, FunctionModel, Model, ModelError, ModelSettings, TestModel, ToolDefinition, Usage,
};
pub use starweaver_core::skills::*;
pub use starweaver_core::tools::*;
pub use starweaver_core::toolsets::*;
pub use starweaver_core::{BoxFuture, JsonMap, RefreshDecision, RefreshReason, RefreshSchedule};

/// The tool layer: tools, definitions, results, errors, the registry,
/// hooks and dependency profiles.
pub mod tools {
    pub use starweaver_core::context::{
        AgentContext, AgentContextHandle, ContextHandoffHandle, ConversationId, Dependencies,
        HostCapabilities, RunId, ShellEnvironmentSnapshot, TaskContextHandle, ToolCapabilityGrant,
        ToolRuntimeSnapshot, ToolSearchContextHandle, UsageContextHandle,
    };
    pub use starweaver_core::tools::*;
    pub use starweaver_core::toolsets::*;
}

/// Environments: the provider trait and the in-memory provider.
pub mod environment {
    pub use starweaver_core::environment::*;
}

/// Provider-neutral message parts.
pub mod model {
    pub use starweaver_core::model::*;
}

/// Manifest types, loading and checks (arrives with the manifest
/// milestone; the crate is a placeholder today).
pub use starweaver_config as config;

/// The README's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

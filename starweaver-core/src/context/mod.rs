//! The state a run carries: [`AgentContext`], with its notes, events,
//! dependencies, grants and durable form. (One tool call's view of it,
//! `ToolContext`, belongs to the tool layer.)

mod agent_context;
mod config;
mod dependencies;
mod durable;
mod event_kind;
mod events;
mod grants;
mod handles;
mod id_source;
mod ids;
mod notes;
mod snapshots;
mod state;

pub use agent_context::AgentContext;
pub use config::{ToolAvailabilityPolicy, ToolConfig};
pub use dependencies::Dependencies;
pub use durable::AgentContextState;
pub use event_kind::ContextEventKind;
pub use events::{ContextEvent, ContextEvents};
pub use grants::{
    ToolCapabilityGrant, CONTEXT_HANDOFF_CAPABILITY, CONTEXT_TASKS_CAPABILITY,
    CONTEXT_TOOL_SEARCH_CAPABILITY, CONTEXT_USAGE_CAPABILITY,
};
pub use handles::{
    AgentContextHandle, ContextHandoffHandle, TaskContextHandle, ToolSearchContextHandle,
    UsageContextHandle,
};
pub use ids::{Conversation, ConversationId, Id, IdKind, Run, RunId};
pub use notes::Notes;
pub use snapshots::{HostCapabilities, ShellEnvironmentSnapshot, ToolRuntimeSnapshot};
pub use state::{ContextHandoff, ContextTask, ToolSearchState};

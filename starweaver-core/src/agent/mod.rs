//! Agents: a model proposes tool calls, the runtime executes them by the
//! rules of the tool layer, and hosts can pause for people or workers.

#[allow(clippy::module_inception)]
mod agent;
mod app;
mod builder;
mod conversation;
mod deep_arguments;
mod error;
mod hitl;
mod journal;
mod options;
mod output;
mod policy;
mod result;
mod run_loop;
mod scheduling;
mod session;
mod state;
mod stream;
mod sub_agent;

pub use agent::Agent;
pub use app::AgentApp;
pub use builder::AgentBuilder;
pub use error::AgentError;
pub use hitl::{
    AgentHitlRequest, AgentHitlRequestKind, AgentHitlResults, AgentHitlUserInteraction,
};
pub use journal::{DynRunJournal, JournalError, RunJournal};
pub use options::AgentRunOptions;
pub use output::{OutputSpec, DEFAULT_OUTPUT_RETRIES, OUTPUT_TOOL_NAME};
pub use policy::{AgentRuntimePolicy, ToolExecutionPolicy};
pub use result::{AgentRunResult, AgentRunStatus};
pub use session::AgentSession;
pub use state::{AgentSessionState, FailedRun};
pub use stream::{AgentEventSink, AgentStream, AgentStreamEvent, AgentStreamRecord};
pub use sub_agent::SubAgent;

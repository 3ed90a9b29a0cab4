//! Why an agent run failed.

use crate::model::ModelError;
use crate::tools::ToolsUnavailableError;

/// A run that could not finish. Tool failures are not here: they go back
/// to the model as tool returns.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The model request failed.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// Tools were unavailable under the FailRun policy.
    #[error(transparent)]
    ToolsUnavailable(#[from] ToolsUnavailableError),
    /// The model cannot take these tools (their schemas break the provider's rules) and the
    /// unavailable-tool policy is FailRun.
    #[error(
        "model `{model}` cannot take tool(s) {}: {reason}; fix the tool schema (`starweaver check` shows where), or let the run leave such tools out (`runtime.unavailable_tools: skip`)",
        tools.join(", ")
    )]
    ToolsRefusedByModel {
        /// The model.
        model: String,
        /// The tools it cannot take.
        tools: Vec<String>,
        /// Why, for the first of them.
        reason: String,
    },
    /// A registered tool has a name model providers reject.
    #[error("{problem}; the run did not start")]
    InvalidToolName {
        /// The tool.
        name: String,
        /// What is wrong and how to fix it.
        problem: String,
    },
    /// The run's cancellation token fired; no further model request was
    /// made.
    #[error("the run was cancelled")]
    Cancelled,
    /// The run used all its model steps without a final answer.
    #[error(
        "the run stopped after {max_steps} model steps without a final answer; \
         raise AgentRuntimePolicy::max_steps if the task needs more, or check for a tool loop"
    )]
    MaxStepsExceeded {
        /// The step limit.
        max_steps: u32,
    },
    /// The run used its token budget before a final answer.
    #[error(
        "the run used {used} tokens, reaching its budget of {max_tokens} before the next model request; \
         raise AgentRuntimePolicy::max_tokens if the task needs more, or shorten the instructions and tool results"
    )]
    TokenBudgetExceeded {
        /// The budget.
        max_tokens: u64,
        /// Input plus output tokens used so far.
        used: u64,
    },
    /// A tool kept receiving bad calls after its model retry budget.
    #[error(
        "tool `{tool}` exceeded its model retry budget of {max_retries}: {message}; \
         clarify the tool's description or schema, or raise its max_retries"
    )]
    ToolRetriesExhausted {
        /// The tool.
        tool: String,
        /// Its budget.
        max_retries: u32,
        /// The last problem.
        message: String,
    },
    /// The model's answers did not match the agent's output schema after its retries (or it
    /// kept answering in text without calling the output tool); no further model request was
    /// made.
    #[error(
        "the answer did not match the output schema after {attempts} attempt(s): {message}; \
         the model must call `{tool}` with arguments the schema accepts: make the schema or the \
         instructions clearer, or raise `output.retries`"
    )]
    OutputInvalid {
        /// The output tool.
        tool: String,
        /// Answers given, valid or not (retries plus one).
        attempts: u32,
        /// The last answer's problems: each schema error with the place it occurs
        /// (``at `/field`: ...``), or that no output tool was called.
        message: String,
    },
    /// A tool of the agent or of the run has the output tool's name; nothing ran.
    #[error(
        "tool `{tool}` has the name of the output tool of an agent with an output schema, so one \
         would hide the other; rename the tool (or give its toolset a `prefix`); the run did not start"
    )]
    OutputToolClash {
        /// The name both have.
        tool: String,
    },
    /// A run asked for a typed answer whose validated value does not deserialize into the type.
    #[error("the answer matched the output schema but is not a `{type_name}`: {message}")]
    OutputType {
        /// The type asked for.
        type_name: String,
        /// The deserializer's error.
        message: String,
    },
    /// The session waits for human or deferred results; resume it first.
    #[error("the session is waiting for {pending} tool result(s); call resume_after_hitl with them first")]
    SessionWaiting {
        /// Pending requests.
        pending: usize,
    },
    /// `resume_after_hitl` was called on a session that is not waiting.
    #[error("the session is not waiting for tool results; nothing to resume")]
    NotWaiting,
    /// A pending call got no result.
    #[error("no approval or deferred result was given for pending tool call `{tool_call_id}`")]
    MissingHitlResult {
        /// The call.
        tool_call_id: String,
    },
    /// A result named a call that is not pending.
    #[error("tool call `{tool_call_id}` is not pending; pending calls: {pending}")]
    UnknownHitlResult {
        /// The call.
        tool_call_id: String,
        /// Pending call ids.
        pending: String,
    },
    /// The user input given with an approval was rejected by the tool's
    /// preprocessor; nothing ran and the session still waits.
    #[error("the input for tool call `{tool_call_id}` ({tool}) was rejected: {message}; ask the user again and resume")]
    InvalidHitlInput {
        /// The call.
        tool_call_id: String,
        /// The tool.
        tool: String,
        /// What is wrong with the input.
        message: String,
    },
    /// A pending call's tool is not registered on the agent the session
    /// runs on (for example after a restore on a differently built
    /// agent); nothing ran and the session still waits.
    #[error(
        "pending tool call `{tool_call_id}` needs tool `{tool}`, which this agent does not have; \
         resume on an agent built with the same tools"
    )]
    MissingTool {
        /// The call.
        tool_call_id: String,
        /// The missing tool.
        tool: String,
    },
    /// The run's journal could not be written (a lost database, or a worker that lost its
    /// claim on the run); the run stopped before its next step.
    #[error("the run stopped because its journal could not be written: {0}")]
    Journal(#[from] super::JournalError),
    /// Durable session state could not be read.
    #[error("invalid session state: {0}")]
    State(String),
}

//! Serializable run progress and the state of a waiting run.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::AgentHitlRequest;
use crate::context::{AgentContextState, ConversationId, RunId};
use crate::model::{ModelMessage, ToolCallPart, ToolReturnPart, Usage};

/// Counters of one run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct RunProgress {
    pub(crate) run_id: RunId,
    pub(crate) step: u32,
    pub(crate) model_retries: BTreeMap<String, u32>,
    pub(crate) usage: Usage,
    /// Calls a human approved; the approval holds for later resumes.
    #[serde(default)]
    pub(crate) approved_calls: std::collections::BTreeSet<String>,
    /// Sequence number of the run's next stream record.
    #[serde(default)]
    pub(crate) next_sequence: u64,
    /// Model requests the run's sub-agents made: they count against the run's step limit.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) delegated_requests: u64,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// A run paused on approvals or deferred results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct WaitingState {
    pub(crate) progress: RunProgress,
    /// The calls of the paused model response, in model order.
    pub(crate) calls: Vec<ToolCallPart>,
    /// Returns aligned with `calls`; `None` for calls that wait.
    pub(crate) returns: Vec<Option<ToolReturnPart>>,
    /// What the run waits for, as the host answers it: the calls of the run that wait, and
    /// those of its waiting sub-agents (with their agent path).
    pub(crate) pending: Vec<AgentHitlRequest>,
    /// The run's calls whose sub-agents wait, each with the sub-agent's saved session: their
    /// answers are among `pending`, and resuming hands them on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) delegated: Vec<AgentHitlRequest>,
    /// Message count before the paused run began: where a resume that
    /// fails marks the failed run as starting.
    #[serde(default)]
    pub(crate) message_checkpoint: usize,
}

/// A session's last run, which failed. Its messages stay in the history
/// (from [`FailedRun::first_message`] on), so a host can see what the
/// tools already did before it retries, continues or discards them with
/// [`super::AgentSession::discard_failed_run`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FailedRun {
    /// The run that failed.
    pub run_id: RunId,
    /// Why it failed: the error's message.
    pub error: String,
    /// Index in the session's messages of the run's first message (its
    /// prompt; for a failed resume, the prompt of the paused run).
    pub first_message: usize,
}

/// Everything a session needs to continue in another process: export it
/// with [`super::AgentSession::export_state`], restore it with
/// [`super::AgentSession::restore`] on an agent built the same way.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentSessionState {
    /// Format version (currently 1).
    pub version: u32,
    /// The conversation.
    pub conversation_id: ConversationId,
    /// Messages so far.
    pub messages: Vec<ModelMessage>,
    /// Serializable context.
    pub context: AgentContextState,
    /// The paused run, if the session waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) waiting: Option<WaitingState>,
    /// The last run, if it failed; absent in states exported before
    /// failed runs were kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) failed_run: Option<FailedRun>,
}

impl AgentSessionState {
    /// Current format version.
    pub const VERSION: u32 = 1;

    /// Calls the session waits for (empty when not waiting).
    #[must_use]
    pub fn pending(&self) -> &[AgentHitlRequest] {
        self.waiting
            .as_ref()
            .map_or(&[], |waiting| waiting.pending.as_slice())
    }

    /// The session's last run, if it failed.
    #[must_use]
    pub fn failed_run(&self) -> Option<&FailedRun> {
        self.failed_run.as_ref()
    }

    /// JSON form.
    ///
    /// # Errors
    /// When a value cannot be serialized (never for states built here).
    pub fn to_json(&self) -> Result<String, super::AgentError> {
        serde_json::to_string(self).map_err(|error| super::AgentError::State(error.to_string()))
    }

    /// Reads the JSON form.
    ///
    /// # Errors
    /// [`super::AgentError::State`] for malformed JSON or an unknown
    /// version.
    pub fn from_json(json: &str) -> Result<Self, super::AgentError> {
        let value: serde_json::Value = serde_json::from_str(json)
            .map_err(|error| super::AgentError::State(format!("not JSON: {error}")))?;
        // The version first: a newer layout must be reported as such.
        match value.get("version").and_then(serde_json::Value::as_u64) {
            Some(version) if version == u64::from(Self::VERSION) => {}
            Some(version) => {
                return Err(super::AgentError::State(format!(
                    "unsupported session state version {version} (this build reads version {})",
                    Self::VERSION
                )))
            }
            None => {
                return Err(super::AgentError::State(
                    "not a session state: no numeric `version` field".to_string(),
                ))
            }
        }
        serde_json::from_value(value)
            .map_err(|error| super::AgentError::State(format!("not a session state: {error}")))
    }
}

//! The result of a run.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::AgentHitlRequest;
use crate::context::RunId;
use crate::model::{ModelMessage, Usage};

/// Whether a run finished or waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentRunStatus {
    /// The model gave its final answer.
    Completed,
    /// Approvals or deferred results are needed; see `pending`.
    Waiting,
}

/// What a run produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentRunResult {
    /// The run.
    pub run_id: RunId,
    /// Final text (empty while waiting).
    pub output: String,
    /// The answer the output tool accepted, validated against the output schema; `None`
    /// without one, or while waiting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
    /// The whole conversation so far.
    pub messages: Vec<ModelMessage>,
    /// Usage of this run.
    pub usage: Usage,
    /// Completed or waiting.
    pub status: AgentRunStatus,
    /// Calls waiting for approval or deferred results.
    pub pending: Vec<AgentHitlRequest>,
}

impl AgentRunResult {
    /// True when the run waits for approvals or deferred results.
    #[must_use]
    pub fn is_waiting(&self) -> bool {
        self.status == AgentRunStatus::Waiting
    }
}

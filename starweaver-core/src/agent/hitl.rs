//! Human-in-the-loop: approval requests, clarifying questions and
//! deferred calls that make a run wait, and the results that resume it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::{ToolReturnKind, ToolReturnPart};
use crate::tools::{DEFERRED_CALL_REQUEST_KIND, TOOL_APPROVAL_REQUEST_KIND};
use crate::JsonMap;

/// What a pending call waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentHitlRequestKind {
    /// A human must approve (or deny) the call.
    Approval,
    /// An external worker must supply the result.
    Deferred,
}

/// One call a waiting run needs an answer for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentHitlRequest {
    /// The call id; answers name it.
    pub tool_call_id: String,
    /// The tool.
    pub tool_name: String,
    /// The call's (validated) arguments.
    pub arguments: Value,
    /// Approval or deferred.
    pub kind: AgentHitlRequestKind,
    /// Request details (`request.kind` is `tool_approval`,
    /// `clarifying_questions` or `deferred_call`).
    pub metadata: JsonMap,
    /// The sub-agents the call was made in, outermost first; empty for a call of the agent
    /// itself. A sub-agent's call is answered like any other, by its `tool_call_id` (the
    /// calling call's id, `/`, the sub-agent's own id).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agent: Vec<String>,
}

impl AgentHitlRequest {
    pub(crate) fn from_return(part: &ToolReturnPart) -> Option<Self> {
        let kind = match part.kind {
            ToolReturnKind::ApprovalRequired => AgentHitlRequestKind::Approval,
            ToolReturnKind::Deferred => AgentHitlRequestKind::Deferred,
            _ => return None,
        };
        Some(Self {
            tool_call_id: part.tool_call_id.to_string(),
            tool_name: part.tool_name.to_string(),
            arguments: part
                .metadata
                .get("arguments")
                .cloned()
                .unwrap_or(Value::Null),
            kind,
            metadata: part.metadata.clone(),
            agent: Vec::new(),
        })
    }

    /// The request kind: `tool_approval`, `clarifying_questions` or
    /// `deferred_call`.
    #[must_use]
    pub fn request_kind(&self) -> &str {
        self.metadata
            .get("request")
            .and_then(|request| request.get("kind"))
            .and_then(Value::as_str)
            .unwrap_or(match self.kind {
                AgentHitlRequestKind::Approval => TOOL_APPROVAL_REQUEST_KIND,
                AgentHitlRequestKind::Deferred => DEFERRED_CALL_REQUEST_KIND,
            })
    }
}

/// A human's answer to an approval request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentHitlUserInteraction {
    /// The call answered.
    pub tool_call_id: String,
    /// Approved or denied.
    pub approved: bool,
    /// Free-form input (answers to clarifying questions, edits).
    pub user_input: Option<Value>,
    /// Why it was denied, shown to the model.
    pub reason: Option<String>,
    /// Arguments the human edited before approving: the call runs with
    /// these instead of the model's. Checked against the tool's schema on
    /// resume; a mismatch is [`AgentError::InvalidHitlInput`] and leaves
    /// the session waiting.
    ///
    /// [`AgentError::InvalidHitlInput`]: crate::agent::AgentError::InvalidHitlInput
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
}

impl AgentHitlUserInteraction {
    /// Approves a call.
    pub fn approved(tool_call_id: impl Into<String>) -> Self {
        Self {
            tool_call_id: tool_call_id.into(),
            approved: true,
            user_input: None,
            reason: None,
            arguments: None,
        }
    }

    /// Approves a call with arguments the human edited, so a reviewer can
    /// fix a call instead of denying it and hoping the model retries.
    pub fn approved_with_arguments(tool_call_id: impl Into<String>, arguments: Value) -> Self {
        Self {
            arguments: Some(arguments),
            ..Self::approved(tool_call_id)
        }
    }

    /// Denies a call.
    pub fn denied(tool_call_id: impl Into<String>) -> Self {
        Self {
            tool_call_id: tool_call_id.into(),
            approved: false,
            user_input: None,
            reason: None,
            arguments: None,
        }
    }

    /// Attaches user input, given to the tool's user-input preprocessor.
    #[must_use]
    pub fn with_user_input(mut self, user_input: impl Into<Value>) -> Self {
        self.user_input = Some(user_input.into());
        self
    }

    /// Attaches the reason for a denial.
    #[must_use]
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }
}

/// Answers for the pending calls of a waiting session.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentHitlResults {
    /// Approval answers by call id.
    pub interactions: BTreeMap<String, AgentHitlUserInteraction>,
    /// Deferred results by call id.
    pub deferred_results: BTreeMap<String, Value>,
}

impl AgentHitlResults {
    /// No answers yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Answers with one deferred result.
    pub fn deferred_result(tool_call_id: impl Into<String>, result: Value) -> Self {
        Self::new().with_deferred_result(tool_call_id, result)
    }

    /// Answers with one approval interaction.
    #[must_use]
    pub fn interaction(interaction: AgentHitlUserInteraction) -> Self {
        Self::new().with_interaction(interaction)
    }

    /// Adds an approval interaction.
    #[must_use]
    pub fn with_interaction(mut self, interaction: AgentHitlUserInteraction) -> Self {
        self.interactions
            .insert(interaction.tool_call_id.clone(), interaction);
        self
    }

    /// Adds a deferred result.
    #[must_use]
    pub fn with_deferred_result(mut self, tool_call_id: impl Into<String>, result: Value) -> Self {
        self.deferred_results.insert(tool_call_id.into(), result);
        self
    }
}

impl From<AgentHitlUserInteraction> for AgentHitlResults {
    fn from(interaction: AgentHitlUserInteraction) -> Self {
        Self::interaction(interaction)
    }
}

impl From<Vec<AgentHitlUserInteraction>> for AgentHitlResults {
    fn from(interactions: Vec<AgentHitlUserInteraction>) -> Self {
        interactions
            .into_iter()
            .fold(Self::new(), Self::with_interaction)
    }
}

//! The journal: what a run did, step by step, so a run that resumes elsewhere replays it
//! instead of doing it again.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What one journal entry records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JournalKind {
    /// The model's response of a step (no call id).
    ModelResponse,
    /// A tool call's return (keyed by the call's id).
    ToolReturn,
}

impl JournalKind {
    /// The name stores use.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ModelResponse => "model_response",
            Self::ToolReturn => "tool_return",
        }
    }

    /// The kind named `name`, as [`Self::as_str`] writes it.
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        [Self::ModelResponse, Self::ToolReturn]
            .into_iter()
            .find(|kind| kind.as_str() == name)
    }
}

/// One thing a run did: a step's model response, or a call's return. Its key is
/// `(step, call_id)` within its run; a model response has an empty call id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct JournalEntry {
    /// The step (model request) it belongs to, from 1.
    pub step: u32,
    /// The call's id, empty for a model response.
    pub call_id: String,
    /// What it records.
    pub kind: JournalKind,
    /// The record itself: a `ModelResponse` or a `ToolReturnPart` as JSON.
    pub payload: Value,
}

impl JournalEntry {
    /// Step `step`'s model response.
    #[must_use]
    pub fn model_response(step: u32, payload: Value) -> Self {
        Self {
            step,
            call_id: String::new(),
            kind: JournalKind::ModelResponse,
            payload,
        }
    }

    /// The return of call `call_id` in step `step`.
    #[must_use]
    pub fn tool_return(step: u32, call_id: impl Into<String>, payload: Value) -> Self {
        Self {
            step,
            call_id: call_id.into(),
            kind: JournalKind::ToolReturn,
            payload,
        }
    }

    /// The entry's key within its run.
    #[must_use]
    pub fn key(&self) -> (u32, &str) {
        (self.step, &self.call_id)
    }
}

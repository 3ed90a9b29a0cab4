//! [`RunJournal`]: where a run writes down each step as it happens and reads back what an
//! earlier attempt of the same run already did, so a run that lost its process resumes
//! without asking the model again or running a finished call twice.

use std::sync::Arc;

use crate::context::RunId;
use crate::model::{ModelResponse, ToolReturnPart};
use crate::BoxFuture;

/// Why a journal write failed. The run stops at once: a run whose steps cannot be written
/// down is not durable, and a worker that lost its claim on the run must not go on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct JournalError {
    /// What failed, for people.
    pub message: String,
}

impl JournalError {
    /// A failure saying `message`.
    #[must_use]
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// A run's journal, given to a run with [`super::AgentRunOptions::journal`].
///
/// Keys are `(step, call id)`: step `n` is the run's `n`-th model request, and its calls are
/// named by their ids (made unique within the response by the runtime, so the same ids come
/// back from the journal). The run:
///
/// - before step `n` asks the model, takes [`Self::recorded_response`] when there is one;
///   otherwise it asks, and [`Self::record_response`] before any of the step's calls run;
/// - before it runs a call, takes [`Self::recorded_return`] when there is one; otherwise it
///   runs the call and [`Self::record_return`] as the call returns, before the next step;
/// - never journals a call that stops to wait (approvals, deferred calls) or that was cut off
///   by cancellation: those run again when the run continues.
///
/// A call that was running when an earlier attempt died has no return and runs again: calls
/// run at least once. A tool declared at most once ([`crate::tools::ToolFacts::at_most_once`])
/// instead waits for a person to approve running it again.
pub trait RunJournal: Send + Sync {
    /// The id of the run this journal keeps; a new run takes it as its own, so records and
    /// the journal name the same run.
    fn run_id(&self) -> Option<RunId> {
        None
    }

    /// Step `step`'s model response from an earlier attempt.
    fn recorded_response(&self, step: u32) -> Option<ModelResponse>;

    /// The return of call `call_id` of step `step` from an earlier attempt.
    fn recorded_return(&self, step: u32, call_id: &str) -> Option<ToolReturnPart>;

    /// Writes step `step`'s model response down.
    fn record_response<'a>(
        &'a self,
        step: u32,
        response: &'a ModelResponse,
    ) -> BoxFuture<'a, Result<(), JournalError>>;

    /// Writes the return of one of step `step`'s calls down.
    fn record_return<'a>(
        &'a self,
        step: u32,
        part: &'a ToolReturnPart,
    ) -> BoxFuture<'a, Result<(), JournalError>>;
}

/// A journal as runs hold it.
pub type DynRunJournal = Arc<dyn RunJournal>;

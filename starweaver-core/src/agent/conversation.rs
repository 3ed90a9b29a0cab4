//! One run segment over a conversation: the shared core of `Agent` and
//! `AgentSession`.

use std::collections::{HashMap, HashSet};

use serde_json::json;

use tracing::Instrument;

use super::run_loop::{AgentConfig, Run, RunEnd, RunStart};
use super::spans;
use super::state::{FailedRun, RunProgress, WaitingState};
use super::stream::{AgentEventSink, AgentStreamRecord, Recorder};
use super::{AgentError, AgentRunOptions, AgentRunResult, AgentRunStatus};
use crate::context::{AgentContext, AgentContextHandle, ConversationId, RunId};
use crate::model::{
    ModelMessage, ModelRequest, RequestPart, ToolCallPart, ToolReturnKind, ToolReturnPart,
};

/// What a segment produced.
pub(crate) struct SegmentOutput {
    pub(crate) result: AgentRunResult,
    pub(crate) records: Vec<AgentStreamRecord>,
    pub(crate) waiting: Option<WaitingState>,
}

/// Where a segment reports to.
pub(crate) struct Reporting<'s> {
    pub(crate) keep_records: bool,
    pub(crate) sink: Option<AgentEventSink<'s>>,
}

impl<'s> Reporting<'s> {
    /// Nothing kept, nothing sent: the caller wants the result only.
    pub(crate) fn quiet() -> Self {
        Self {
            keep_records: false,
            sink: None,
        }
    }

    /// Every record kept, for a stream returned with the result.
    pub(crate) fn recording() -> Self {
        Self {
            keep_records: true,
            sink: None,
        }
    }

    /// Each record handed to `sink` as it happens.
    pub(crate) fn to_sink(sink: AgentEventSink<'s>) -> Self {
        Self {
            keep_records: false,
            sink: Some(sink),
        }
    }
}

/// A conversation's messages and the marker of its last run, if that
/// failed. `Agent::run*` lend a throwaway one.
pub(crate) struct History<'h> {
    pub(crate) messages: &'h mut Vec<ModelMessage>,
    pub(crate) failed_run: &'h mut Option<FailedRun>,
    /// The caller keeps the conversation (a session): the result gets a
    /// copy. Otherwise the result takes the messages themselves.
    pub(crate) kept: bool,
}

/// What a run stopped half-way (its future dropped) is recorded as.
const DROPPED_RUN: &str = "the run was stopped before it finished (its future was dropped)";

/// Runs one segment. The context is shared with tools through a handle
/// for the duration and handed back afterwards; run params are visible
/// in `context.metadata` only while the segment runs. A run that fails
/// keeps its messages, every tool call answered, and is recorded in
/// `history.failed_run`; errors that ran nothing change nothing. A new
/// run clears the marker.
pub(crate) async fn run_segment(
    config: &AgentConfig,
    options: &AgentRunOptions,
    context: &mut AgentContext,
    conversation_id: &ConversationId,
    history: History<'_>,
    start: RunStart,
    reporting: Reporting<'_>,
) -> (Result<SegmentOutput, AgentError>, u64) {
    let (progress, checkpoint) = match &start {
        // The default progress carries a fresh run id.
        RunStart::Prompt(_) => {
            let mut progress = RunProgress::default();
            // A journaled run is the run its journal keeps.
            if let Some(run_id) = options
                .journal
                .as_ref()
                .and_then(|journal| journal.run_id())
            {
                progress.run_id = run_id;
            }
            (progress, history.messages.len())
        }
        RunStart::Resume(waiting, _) => (waiting.progress.clone(), waiting.message_checkpoint),
    };
    let run_id = progress.run_id.clone();
    let lent = LentHistory::new(history, &start, checkpoint, run_id.clone());
    let mut lease = ContextLease::new(context, lent, &options.params);
    let first_sequence = progress.next_sequence;
    let mut recorder = Recorder::new(
        run_id.clone(),
        reporting.keep_records,
        reporting.sink,
        first_sequence,
    );
    let span = spans::invoke_agent(config.name.as_deref(), &config.model, conversation_id);
    let end = Run::new(
        config,
        options,
        &lease.handle,
        conversation_id,
        &mut recorder,
    )
    .execute(lease.history.messages, start, progress)
    .instrument(span.clone())
    .await;
    match &end {
        Ok(RunEnd::Completed { progress, .. }) => {
            spans::run_ended(
                &span,
                run_id.as_str(),
                Some(&progress.usage),
                Ok("completed"),
            );
        }
        Ok(RunEnd::Waiting(waiting)) => spans::run_ended(
            &span,
            run_id.as_str(),
            Some(&waiting.progress.usage),
            Ok("waiting"),
        ),
        Err(error) => spans::run_ended(&span, run_id.as_str(), None, Err(error)),
    }
    lease.settled = true;
    let next_sequence = recorder.next_sequence();
    let records = recorder.into_records();
    let history = &mut lease.history;
    let result = match end {
        // Nothing ran (rejected HITL input, an invalid tool name): the
        // conversation, a paused run and an earlier failure stay as they were.
        Err(error) if ran_nothing(&error) => {
            *history.failed_run = history.previous_failure.take();
            Err(error)
        }
        Err(error) => {
            history.fail(&error.to_string());
            Err(error)
        }
        Ok(RunEnd::Completed {
            output,
            structured_output,
            progress,
        }) => Ok(SegmentOutput {
            result: AgentRunResult {
                run_id,
                output,
                structured_output,
                messages: history.result_messages(),
                usage: progress.usage,
                status: AgentRunStatus::Completed,
                pending: Vec::new(),
            },
            records,
            waiting: None,
        }),
        Ok(RunEnd::Waiting(mut waiting)) => {
            waiting.message_checkpoint = checkpoint;
            waiting.progress.next_sequence = next_sequence;
            Ok(SegmentOutput {
                result: AgentRunResult {
                    run_id,
                    output: String::new(),
                    structured_output: None,
                    messages: history.result_messages(),
                    usage: waiting.progress.usage,
                    status: AgentRunStatus::Waiting,
                    pending: waiting.pending.clone(),
                },
                records,
                waiting: Some(waiting),
            })
        }
    };
    (result, next_sequence)
}

/// Errors raised before anything ran: they leave the session as it was.
/// (`SessionWaiting`, `NotWaiting`, `MissingHitlResult`,
/// `UnknownHitlResult` and `MissingTool` never reach a segment.)
pub(crate) fn ran_nothing(error: &AgentError) -> bool {
    matches!(
        error,
        AgentError::InvalidHitlInput { .. }
            | AgentError::InvalidToolName { .. }
            | AgentError::OutputToolClash { .. }
    )
}

/// The conversation while a segment has it.
struct LentHistory<'a> {
    messages: &'a mut Vec<ModelMessage>,
    failed_run: &'a mut Option<FailedRun>,
    /// Where the run's messages begin (for a resume, the paused run's).
    first_message: usize,
    /// The caller keeps the messages (see [`History::kept`]).
    kept: bool,
    /// The message count when the segment started.
    start_len: usize,
    run_id: RunId,
    resume: bool,
    /// The marker a new run cleared; back if the run ran nothing.
    previous_failure: Option<FailedRun>,
}

impl<'a> LentHistory<'a> {
    fn new(history: History<'a>, start: &RunStart, first_message: usize, run_id: RunId) -> Self {
        let resume = matches!(start, RunStart::Resume(..));
        // The host continued the conversation: an earlier failure is history.
        let previous_failure = if resume {
            None
        } else {
            history.failed_run.take()
        };
        Self {
            start_len: history.messages.len(),
            messages: history.messages,
            failed_run: history.failed_run,
            kept: history.kept,
            first_message,
            run_id,
            resume,
            previous_failure,
        }
    }

    /// The messages a finished segment's result carries.
    fn result_messages(&mut self) -> Vec<ModelMessage> {
        if self.kept {
            self.messages.clone()
        } else {
            std::mem::take(self.messages)
        }
    }

    /// Keeps the failed run's messages, answers its open tool calls, and
    /// marks it failed.
    fn fail(&mut self, error: &str) {
        let first_message = self.first_message.min(self.messages.len());
        let reason = format!("the run failed before this call ran: {error}");
        answer_open_calls(self.messages, first_message, &self.run_id, &reason);
        *self.failed_run = Some(FailedRun {
            run_id: self.run_id.clone(),
            error: error.to_string(),
            first_message,
        });
    }

    /// The run future was dropped half-way. A new run keeps what it added,
    /// marked failed; a resume rolls back to where it started, so the
    /// session still waits and can be resumed again.
    fn interrupted(&mut self) {
        if self.resume {
            self.messages.truncate(self.start_len);
        } else if self.messages.len() > self.start_len {
            let first_message = self.start_len;
            let reason =
                format!("{DROPPED_RUN}; this call may have run, but its result was not recorded");
            answer_open_calls(self.messages, first_message, &self.run_id, &reason);
            *self.failed_run = Some(FailedRun {
                run_id: self.run_id.clone(),
                error: DROPPED_RUN.to_string(),
                first_message,
            });
        } else {
            *self.failed_run = self.previous_failure.take();
        }
    }
}

/// Gives every tool call of the run's last response that has no return
/// (or retry prompt) a `cancelled` return saying why, so the next model
/// request never carries a call without its result. The returns go into
/// the request that follows the response, in call order, or into a new
/// request when none follows.
fn answer_open_calls(messages: &mut Vec<ModelMessage>, from: usize, run_id: &RunId, reason: &str) {
    let Some(position) = messages
        .iter()
        .rposition(|message| matches!(message, ModelMessage::Response(_)))
        .filter(|position| *position >= from)
    else {
        return;
    };
    let calls: Vec<ToolCallPart> = match &messages[position] {
        ModelMessage::Response(response) => response.calls().cloned().collect(),
        ModelMessage::Request(_) => Vec::new(),
    };
    if calls.is_empty() {
        return;
    }
    let existing = match messages.get_mut(position + 1) {
        Some(ModelMessage::Request(request)) => std::mem::take(&mut request.parts),
        _ => {
            messages.insert(position + 1, ModelMessage::Request(ModelRequest::default()));
            Vec::new()
        }
    };
    // The answers in the calls' order; parts answering no call of this
    // response (there are none today) keep their order after them.
    let ids: HashSet<&str> = calls.iter().map(|call| call.id.as_str()).collect();
    let mut answers: HashMap<String, Vec<RequestPart>> = HashMap::new();
    let mut others = Vec::new();
    for part in existing {
        match answered_call(&part).filter(|id| ids.contains(id)) {
            Some(id) => answers.entry(id.to_string()).or_default().push(part),
            None => others.push(part),
        }
    }
    let mut parts = Vec::with_capacity(calls.len() + others.len());
    for call in &calls {
        match answers.remove(&call.id) {
            Some(found) => parts.extend(found),
            None => parts.push(RequestPart::ToolReturn(not_run(call, run_id, reason))),
        }
    }
    parts.extend(others);
    if let Some(ModelMessage::Request(request)) = messages.get_mut(position + 1) {
        request.parts = parts;
    }
}

/// The tool call a request part answers, if any.
fn answered_call(part: &RequestPart) -> Option<&str> {
    match part {
        RequestPart::ToolReturn(part) => Some(part.tool_call_id.as_str()),
        RequestPart::RetryPrompt(part) => part.tool_call_id.as_deref(),
        RequestPart::UserPrompt(_) | RequestPart::Instructions(_) => None,
    }
}

/// The return of a call that never ran because its run failed: shaped like
/// the registry's `cancelled` returns, marked `metadata.run_failed`.
fn not_run(call: &ToolCallPart, run_id: &RunId, reason: &str) -> ToolReturnPart {
    let kind = ToolReturnKind::Cancelled;
    let mut metadata = crate::JsonMap::new();
    metadata.insert("run_failed".to_string(), json!({"run_id": run_id}));
    ToolReturnPart {
        tool_call_id: call.id.as_str().into(),
        tool_name: call.name.as_str().into(),
        content: json!({
            "success": false,
            "is_error": true,
            "error_kind": kind.as_str(),
            "message": format!("Tool `{}` did not return: {reason}.", call.name),
        }),
        kind,
        metadata,
        private_metadata: crate::JsonMap::new(),
    }
}

/// Lends the host's context to a run through a shared handle. Dropping it
/// writes the context back and removes the run params, even when the run
/// future is dropped half-way (a host timeout); an unsettled lease also
/// records the interruption in the conversation (see
/// [`LentHistory::interrupted`]).
struct ContextLease<'a> {
    context: &'a mut AgentContext,
    history: LentHistory<'a>,
    handle: AgentContextHandle,
    previous_params: Vec<(String, Option<serde_json::Value>)>,
    /// The run finished (well or badly); set before the outcome is applied.
    settled: bool,
}

impl<'a> ContextLease<'a> {
    fn new(
        context: &'a mut AgentContext,
        history: LentHistory<'a>,
        params: &crate::JsonMap,
    ) -> Self {
        let previous_params = params
            .iter()
            .map(|(key, value)| {
                (
                    key.clone(),
                    context.metadata.insert(key.clone(), value.clone()),
                )
            })
            .collect();
        let handle = AgentContextHandle::new(std::mem::take(context));
        Self {
            context,
            history,
            handle,
            previous_params,
            settled: false,
        }
    }
}

impl Drop for ContextLease<'_> {
    fn drop(&mut self) {
        *self.context = self.handle.replace(AgentContext::default());
        for (key, value) in std::mem::take(&mut self.previous_params) {
            match value {
                Some(value) => self.context.metadata.insert(key, value),
                None => self.context.metadata.remove(&key),
            };
        }
        if !self.settled {
            self.history.interrupted();
        }
    }
}

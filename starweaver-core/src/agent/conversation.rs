//! One run segment over a conversation: the shared core of `Agent` and
//! `AgentSession`.

use super::run_loop::{AgentConfig, Run, RunEnd, RunStart};
use super::state::{RunProgress, WaitingState};
use super::stream::{AgentEventSink, AgentStreamRecord, Recorder};
use super::{AgentError, AgentRunOptions, AgentRunResult, AgentRunStatus};
use crate::model::ModelMessage;
use crate::{AgentContext, AgentContextHandle, ConversationId};

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

/// Runs one segment. The context is shared with tools through a handle
/// for the duration and handed back afterwards; run params are visible
/// in `context.metadata` only while the segment runs. On error the
/// conversation is rolled back to where the segment started.
pub(crate) async fn run_segment(
    config: &AgentConfig,
    options: &AgentRunOptions,
    context: &mut AgentContext,
    conversation_id: &ConversationId,
    messages: &mut Vec<ModelMessage>,
    start: RunStart,
    reporting: Reporting<'_>,
) -> (Result<SegmentOutput, AgentError>, u64) {
    let (progress, checkpoint) = match &start {
        // The default progress carries a fresh run id.
        RunStart::Prompt(_) => (RunProgress::default(), messages.len()),
        RunStart::Resume(waiting, _) => (waiting.progress.clone(), waiting.message_checkpoint),
    };
    let run_id = progress.run_id.clone();
    let mut lease = ContextLease::new(context, messages, &options.params);
    let first_sequence = progress.next_sequence;
    let mut recorder = Recorder::new(
        run_id.clone(),
        reporting.keep_records,
        reporting.sink,
        first_sequence,
    );
    let end = Run::new(
        config,
        options,
        &lease.handle,
        conversation_id,
        &mut recorder,
    )
    .execute(lease.messages, start, progress)
    .await;
    lease.settle();
    drop(lease);
    let next_sequence = recorder.next_sequence();
    let records = recorder.into_records();
    let result = match end {
        // Rejected HITL input ran nothing: the paused run stays intact.
        Err(error @ AgentError::InvalidHitlInput { .. }) => Err(error),
        Err(error) => {
            messages.truncate(checkpoint);
            Err(error)
        }
        Ok(RunEnd::Completed { output, progress }) => Ok(SegmentOutput {
            result: AgentRunResult {
                run_id,
                output,
                messages: messages.clone(),
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
                    messages: messages.clone(),
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

/// Lends the host's context to a run through a shared handle. Dropping it
/// writes the context back and removes the run params, even when the run
/// future is dropped half-way (a host timeout); an unsettled lease also
/// restores the conversation to where the segment started.
struct ContextLease<'a> {
    context: &'a mut AgentContext,
    messages: &'a mut Vec<ModelMessage>,
    handle: AgentContextHandle,
    previous_params: Vec<(String, Option<serde_json::Value>)>,
    start_len: usize,
    settled: bool,
}

impl<'a> ContextLease<'a> {
    fn new(
        context: &'a mut AgentContext,
        messages: &'a mut Vec<ModelMessage>,
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
        let start_len = messages.len();
        Self {
            context,
            messages,
            handle,
            previous_params,
            start_len,
            settled: false,
        }
    }

    /// The run finished (well or badly): keep the conversation as it is.
    fn settle(&mut self) {
        self.settled = true;
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
            self.messages.truncate(self.start_len);
        }
    }
}

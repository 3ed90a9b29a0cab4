//! One run segment over a conversation: the shared core of `Agent` and
//! `AgentSession`.

use super::run_loop::{AgentConfig, Run, RunEnd, RunStart};
use super::state::{RunProgress, WaitingState};
use super::stream::{AgentEventSink, AgentStreamRecord, Recorder};
use super::{AgentError, AgentRunOptions, AgentRunResult, AgentRunStatus};
use crate::model::ModelMessage;
use crate::{AgentContext, AgentContextHandle, ConversationId, RunId};

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
) -> Result<SegmentOutput, AgentError> {
    let (progress, checkpoint) = match &start {
        RunStart::Prompt(_) => (
            RunProgress {
                run_id: RunId::default(),
                ..RunProgress::default()
            },
            messages.len(),
        ),
        RunStart::Resume(waiting, _) => (waiting.progress.clone(), waiting.message_checkpoint),
    };
    let run_id = progress.run_id.clone();
    let previous: Vec<(String, Option<serde_json::Value>)> = options
        .params
        .iter()
        .map(|(key, value)| {
            (
                key.clone(),
                context.metadata.insert(key.clone(), value.clone()),
            )
        })
        .collect();
    let handle = AgentContextHandle::new(std::mem::take(context));
    let mut recorder = Recorder::new(run_id.clone(), reporting.keep_records, reporting.sink);
    let end = Run::new(config, options, &handle, conversation_id, &mut recorder)
        .execute(messages, start, progress)
        .await;
    *context = handle.replace(AgentContext::default());
    for (key, value) in previous {
        match value {
            Some(value) => context.metadata.insert(key, value),
            None => context.metadata.remove(&key),
        };
    }
    let records = recorder.into_records();
    match end {
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
    }
}

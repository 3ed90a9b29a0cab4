//! Whether the calls of one response run concurrently or in model order,
//! and running them.

use std::collections::HashSet;

use std::future::Future;

use std::task::{Context, Poll};

use futures::StreamExt;
use tokio::sync::mpsc::{Receiver, UnboundedReceiver};
use tracing::Instrument;

mod batch;

use batch::{Batch, SlottedCall};

use super::{AgentRuntimePolicy, JournalError, RunJournal, ToolExecutionPolicy};
use crate::model::{ToolCallPart, ToolReturnKind, ToolReturnPart};
use crate::tools::{NestedRecord, ToolContext, ToolProgressReport};
use crate::tools::{ToolDependencyProfile, ToolEntry, ToolRegistry};

/// Why a batch runs sequentially, or `None` for concurrent execution.
pub(crate) fn sequential_reason(
    policy: &AgentRuntimePolicy,
    registry: &ToolRegistry,
    calls: &[&ToolCallPart],
) -> Option<&'static str> {
    if policy.tool_execution == ToolExecutionPolicy::Sequential {
        return Some("policy");
    }
    if calls.len() < 2 {
        return None;
    }
    // One lookup per call; calls of unknown tools have no facts to weigh.
    let entries: Vec<&ToolEntry> = calls
        .iter()
        .filter_map(|call| registry.entry(&call.name))
        .collect();
    if entries.iter().any(|entry| entry.definition.is_sequential()) {
        return Some("sequential_tool");
    }
    // A proxy's `call_tool` may run any tool: its needs are unknown here.
    if entries.iter().any(|entry| entry.delegates) {
        return Some("delegating_tool");
    }
    if repeats_a_tool(calls) {
        return Some("repeated_tool");
    }
    let legacy = entries
        .iter()
        .any(|entry| entry.requirements.profile == ToolDependencyProfile::Legacy);
    let narrowed = entries
        .iter()
        .any(|entry| entry.requirements.profile != ToolDependencyProfile::Legacy);
    if legacy && narrowed {
        return Some("mixed_dependency_profiles");
    }
    if entries
        .iter()
        .any(|entry| entry.requirements.requests_mutable_context())
    {
        return Some("mutable_context");
    }
    None
}

/// True when two calls name one tool. A response's few calls are compared
/// pairwise, which allocates nothing; many go through a set.
fn repeats_a_tool(calls: &[&ToolCallPart]) -> bool {
    const PAIRWISE_UP_TO: usize = 16;
    if calls.len() <= PAIRWISE_UP_TO {
        return calls.iter().enumerate().any(|(index, call)| {
            calls[..index]
                .iter()
                .any(|earlier| earlier.name == call.name)
        });
    }
    let mut names =
        HashSet::with_capacity_and_hasher(calls.len(), foldhash::fast::RandomState::default());
    !calls.iter().all(|call| names.insert(call.name.as_str()))
}

/// What a batch reports while it runs.
pub(crate) enum BatchEvent<'a> {
    /// A running call reported something.
    Report(CallReport),
    /// A call returned.
    Returned(&'a ToolReturnPart),
}

/// What a running call reports before it returns.
pub(crate) enum CallReport {
    /// How far it is.
    Progress(Box<ToolProgressReport>),
    /// A record of the run it runs (a sub-agent's).
    Nested(NestedRecord),
}

/// Where the reports of running calls arrive: progress, and the records of nested runs when
/// someone listens to the run. Nested records are never dropped (a sub-agent's run is bounded
/// by its own limits); progress past a backlog is (it is advice, and the next update
/// supersedes it).
pub(crate) struct CallReports {
    /// Boxed: the channel allocates room for a block of reports when it is made, once per
    /// run, and a block of reports themselves is a few KB that the allocator serves slowly;
    /// a report is rare, a run is not.
    pub(crate) progress: Receiver<Box<ToolProgressReport>>,
    pub(crate) nested: Option<UnboundedReceiver<NestedRecord>>,
}

impl CallReports {
    /// A report that has arrived, else pending (with the waker registered); a channel with
    /// no sender left stays pending.
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<CallReport> {
        if let Poll::Ready(Some(report)) = self.progress.poll_recv(cx) {
            return Poll::Ready(CallReport::Progress(report));
        }
        if let Some(nested) = self.nested.as_mut() {
            if let Poll::Ready(Some(record)) = nested.poll_recv(cx) {
                return Poll::Ready(CallReport::Nested(record));
            }
        }
        Poll::Pending
    }

    /// Drops every report that already arrived: sent by calls that have returned.
    pub(crate) fn discard(&mut self) {
        while self.try_next().is_some() {}
    }

    /// A report that already arrived, if any.
    fn try_next(&mut self) -> Option<CallReport> {
        if let Ok(report) = self.progress.try_recv() {
            return Some(CallReport::Progress(report));
        }
        self.nested
            .as_mut()
            .and_then(|nested| nested.try_recv().ok())
            .map(CallReport::Nested)
    }
}

/// Where a batch writes its returns down as they arrive: the run's journal and the step.
pub(crate) type BatchJournal<'a> = Option<(&'a dyn RunJournal, u32)>;

/// Runs the calls. `on_event` hears each progress report as it arrives and each call as it
/// finishes (in completion order); a call's progress always comes
/// before its return. Each finished return is written to `journal` before the batch goes on
/// (a call that waits or was cancelled is not: it runs again when the run continues); a write
/// that fails stops the batch, dropping the calls still running. The result has one slot per
/// call, in model order, each holding its call's return.
///
/// Each call writes its return into its own slot, and the batch hands on references: a return
/// is 272 bytes, and passing it out through the call's future, the stream and the report loop
/// copied it at every step.
pub(crate) async fn execute_batch(
    registry: &ToolRegistry,
    calls: &[&ToolCallPart],
    mut context: impl FnMut(&ToolCallPart) -> ToolContext,
    sequential: bool,
    reports: &mut CallReports,
    journal: BatchJournal<'_>,
    mut on_event: impl FnMut(BatchEvent<'_>),
) -> Result<Vec<Option<ToolReturnPart>>, JournalError> {
    // Not `vec![None; n]`, which clones the 272-byte `None` into place.
    let mut slots: Vec<Option<ToolReturnPart>> = Vec::with_capacity(calls.len());
    slots.resize_with(calls.len(), || None);
    {
        // Each call's context is made where its future is, and goes straight in (the future
        // runs nothing until it is polled).
        let runs = calls.iter().zip(slots.iter_mut()).map(|(call, slot)| {
            let running = registry
                .execute_call(context(call), call)
                .instrument(super::spans::execute_tool(call));
            SlottedCall::new(running, slot)
        });
        let mut running = Batch::new(runs, sequential);
        while let Some(part) = reporting(running.next(), reports, |report| {
            on_event(BatchEvent::Report(report));
        })
        .await
        {
            on_event(BatchEvent::Returned(part));
            record(journal, part).await?;
        }
    }
    Ok(slots)
}

/// Writes a finished return to the journal; calls that wait or were cancelled are not
/// finished.
pub(crate) async fn record(
    journal: BatchJournal<'_>,
    part: &ToolReturnPart,
) -> Result<(), JournalError> {
    let Some((journal, step)) = journal else {
        return Ok(());
    };
    if part.kind.is_control_flow() || part.kind == ToolReturnKind::Cancelled {
        return Ok(());
    }
    journal.record_return(step, part).await
}

/// Drives `work` to its end, handing each report to `on_report` as it arrives. Reports sent
/// before `work` finished are all handed on before this returns, so a call's progress and its
/// sub-agent's records never trail its return.
///
/// `work` is polled first: when it ends on that poll (most calls do), the reports are drained
/// without registering a waker on their channels.
pub(crate) async fn reporting<T>(
    work: impl Future<Output = T>,
    reports: &mut CallReports,
    mut on_report: impl FnMut(CallReport),
) -> T {
    let mut work = std::pin::pin!(work);
    let done = std::future::poll_fn(|cx| {
        if let Poll::Ready(done) = work.as_mut().poll(cx) {
            return Poll::Ready(done);
        }
        // `work` is pending with the waker registered; hand on what has arrived meanwhile.
        while let Poll::Ready(report) = reports.poll_next(cx) {
            on_report(report);
        }
        Poll::Pending
    })
    .await;
    while let Some(report) = reports.try_next() {
        on_report(report);
    }
    done
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::repeats_a_tool;
    use crate::model::ToolCallPart;

    fn calls(names: &[String]) -> Vec<ToolCallPart> {
        names
            .iter()
            .enumerate()
            .map(|(index, name)| ToolCallPart::new(format!("call_{index}"), name, json!({})))
            .collect()
    }

    #[test]
    fn a_repeated_tool_is_found_in_few_calls_and_in_many() {
        for count in [2, 16, 17, 40] {
            let distinct: Vec<String> = (0..count).map(|index| format!("tool_{index}")).collect();
            let parts = calls(&distinct);
            let refs: Vec<&ToolCallPart> = parts.iter().collect();
            assert!(!repeats_a_tool(&refs), "{count} distinct calls");
            let mut repeated = distinct.clone();
            repeated[count - 1] = distinct[0].clone();
            let parts = calls(&repeated);
            let refs: Vec<&ToolCallPart> = parts.iter().collect();
            assert!(repeats_a_tool(&refs), "{count} calls, the first tool twice");
        }
    }
}

//! Run records: what a run reports while it goes.

use serde::{Deserialize, Serialize};

use super::{AgentHitlRequest, AgentRunResult};
use crate::context::{ContextEvent, RunId};
use crate::model::{ToolCallPart, ToolReturnPart};
use crate::tools::ToolProgress;

/// One thing that happened in a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum AgentStreamEvent {
    /// The run started.
    RunStarted {
        /// Run id.
        run_id: RunId,
    },
    /// A model request is about to be sent.
    ModelRequest {
        /// 1-based step.
        step: u32,
        /// Tools exposed.
        tools: Vec<String>,
    },
    /// Streamed text.
    TextDelta {
        /// The new text.
        delta: String,
    },
    /// A batch of tool calls is scheduled.
    ToolBatch {
        /// `parallel` or `sequential`.
        mode: String,
        /// Why the batch runs sequentially, if it does.
        reason: Option<String>,
        /// Calls in the batch.
        calls: usize,
    },
    /// A tool call starts.
    ToolCall {
        /// The call.
        call: ToolCallPart,
    },
    /// A running tool call reported how far it is (an MCP server's progress notification,
    /// or [`crate::tools::ToolContext::report_progress`]); always before that call's return.
    ToolProgress {
        /// The id of the call.
        tool_call_id: String,
        /// The tool.
        tool_name: String,
        /// The update.
        update: ToolProgress,
    },
    /// A tool call returned.
    ToolReturn {
        /// The return.
        part: ToolReturnPart,
    },
    /// A context event (tools_unavailable, skills_scanned, tool search,
    /// toolset lifecycle ...).
    Custom {
        /// The event.
        event: ContextEvent,
    },
    /// The run waits for approvals or deferred results.
    Waiting {
        /// Pending requests.
        requests: Vec<AgentHitlRequest>,
    },
    /// Something happened in a sub-agent's run, inside one of this run's calls: the
    /// sub-agent's own record, with the path of agents it happened in.
    SubAgent {
        /// The sub-agents, outermost first: `["reviewer"]` for a record of the `reviewer`
        /// agent this run called, `["reviewer", "linter"]` for one of an agent `reviewer`
        /// called in turn.
        agent: Vec<String>,
        /// The id of this run's call that runs the outermost sub-agent.
        tool_call_id: String,
        /// What happened there.
        event: Box<AgentStreamEvent>,
    },
    /// The run finished with output.
    RunCompleted {
        /// Final text.
        output: String,
        /// The answer the output tool accepted, validated against the agent's output schema
        /// ([`AgentRunResult::structured_output`]); absent for a text answer, and in records
        /// written before it existed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        structured_output: Option<serde_json::Value>,
    },
}

/// A numbered run event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentStreamRecord {
    /// 0-based position in the run.
    pub sequence: u64,
    /// The run.
    pub run_id: RunId,
    /// What happened.
    pub event: AgentStreamEvent,
}

/// The records of a finished streamed run, and its result.
#[derive(Clone, Debug)]
pub struct AgentStream {
    records: Vec<AgentStreamRecord>,
    result: AgentRunResult,
}

impl AgentStream {
    pub(crate) fn new(records: Vec<AgentStreamRecord>, result: AgentRunResult) -> Self {
        Self { records, result }
    }

    /// Every record, in order.
    #[must_use]
    pub fn events(&self) -> &[AgentStreamRecord] {
        &self.records
    }

    /// The run result.
    #[must_use]
    pub fn result(&self) -> &AgentRunResult {
        &self.result
    }

    /// Splits into records and result.
    #[must_use]
    pub fn into_parts(self) -> (Vec<AgentStreamRecord>, AgentRunResult) {
        (self.records, self.result)
    }
}

/// A live observer of run records.
pub type AgentEventSink<'a> = &'a mut (dyn FnMut(&AgentStreamRecord) + Send + Sync);

/// Collects records and forwards them to an optional live observer.
pub(crate) struct Recorder<'a> {
    run_id: RunId,
    keep: bool,
    records: Vec<AgentStreamRecord>,
    sink: Option<AgentEventSink<'a>>,
    sequence: u64,
}

impl<'a> Recorder<'a> {
    pub(crate) fn new(
        run_id: RunId,
        keep: bool,
        sink: Option<AgentEventSink<'a>>,
        first_sequence: u64,
    ) -> Self {
        Self {
            run_id,
            keep,
            records: Vec::new(),
            sink,
            sequence: first_sequence,
        }
    }

    /// The sequence number the next record gets.
    pub(crate) fn next_sequence(&self) -> u64 {
        self.sequence
    }

    pub(crate) fn is_active(&self) -> bool {
        self.keep || self.sink.is_some()
    }

    /// Records one event. The event is built only when someone listens
    /// (a sink, or kept records): a run nobody watches copies no call,
    /// return or event for the stream. The sequence advances either way,
    /// so numbering does not depend on who listens.
    pub(crate) fn emit(&mut self, event: impl FnOnce() -> AgentStreamEvent) {
        if !self.is_active() {
            self.skip(1);
            return;
        }
        let record = AgentStreamRecord {
            sequence: self.sequence,
            run_id: self.run_id.clone(),
            event: event(),
        };
        self.sequence = self.sequence.saturating_add(1);
        if let Some(sink) = self.sink.as_mut() {
            sink(&record);
        }
        if self.keep {
            self.records.push(record);
        }
    }

    /// Advances the sequence past `count` events nobody listens to.
    pub(crate) fn skip(&mut self, count: u64) {
        self.sequence = self.sequence.saturating_add(count);
    }

    pub(crate) fn into_records(self) -> Vec<AgentStreamRecord> {
        self.records
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::AgentStreamEvent;

    #[test]
    fn a_run_completed_record_written_before_structured_output_still_loads() {
        let old = json!({"type": "run_completed", "output": "done"});
        let event: AgentStreamEvent = serde_json::from_value(old.clone()).unwrap();
        assert_eq!(
            event,
            AgentStreamEvent::RunCompleted {
                output: "done".into(),
                structured_output: None,
            }
        );
        // And a text answer writes the same record as before.
        assert_eq!(serde_json::to_value(&event).unwrap(), old);
    }

    #[test]
    fn a_structured_answer_round_trips_in_the_record() {
        let event = AgentStreamEvent::RunCompleted {
            output: String::new(),
            structured_output: Some(json!({"severity": "high"})),
        };
        let value = serde_json::to_value(&event).unwrap();
        assert_eq!(value["structured_output"], json!({"severity": "high"}));
        let back: AgentStreamEvent = serde_json::from_value(value).unwrap();
        assert_eq!(back, event);
    }
}

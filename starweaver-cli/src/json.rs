//! The JSON UI (`--json`): one JSON object per line, for machines. Each run record as it
//! happens (`{"sequence", "run_id", "event": {"type": ...}}`), then one `run_finished` record:
//! `{"type": "run_finished", "status": "completed" | "waiting" | "failed" | "cancelled", ...,
//! "exit_code": N}`; a completed run's `output` is its answer, the validated object for an agent
//! with an output schema (its text then in `text`). Secret variable values are masked. Nobody is asked: approvals and
//! questions are denied (or left pending with `--save`), as in the plain UI.

use std::io::Write;

use serde_json::{json, Value};
use starweaver_core::agent::{AgentHitlRequest, AgentStreamRecord};

use crate::plain::PlainUi;
use crate::run::{exit_code, UiSettings};
use crate::ui::{toolset_problem, Answers, RunOutcome, RunUi};

/// JSON lines on a writer (standard output).
pub struct JsonUi {
    out: Box<dyn Write + Send + Sync>,
    settings: UiSettings,
    /// Answers like the plain UI, its lines going nowhere.
    answers: PlainUi,
    /// The first failed write to `out`.
    failed: Option<String>,
}

impl JsonUi {
    /// Writes JSON lines to `out`.
    #[must_use]
    pub fn new(out: Box<dyn Write + Send + Sync>, settings: UiSettings) -> Self {
        let answers = PlainUi::new(
            Box::new(std::io::sink()),
            Box::new(std::io::sink()),
            settings.clone(),
        );
        Self {
            out,
            settings,
            answers,
            failed: None,
        }
    }

    fn emit(&mut self, mut value: Value) {
        self.settings.redactor.json(&mut value);
        if let Err(error) = writeln!(self.out, "{value}").and_then(|()| self.out.flush()) {
            // The reader went away: nobody sees what the run does, so it stops.
            if error.kind() == std::io::ErrorKind::BrokenPipe {
                self.settings.interrupt.cancel();
            }
            self.failed.get_or_insert_with(|| error.to_string());
        }
    }
}

impl RunUi for JsonUi {
    fn record(&mut self, record: &AgentStreamRecord) {
        if let Some(problem) = toolset_problem(&record.event) {
            let problem = self.settings.redactor.text(&problem);
            let _ = writeln!(
                std::io::stderr(),
                "{}",
                crate::terminal::text::clean(&problem)
            );
        }
        let value = serde_json::to_value(record).unwrap_or_else(|error| {
            json!({"type": "record_unavailable", "sequence": record.sequence, "error": error.to_string()})
        });
        self.emit(value);
    }

    fn answer(&mut self, pending: &[AgentHitlRequest]) -> Answers {
        self.answers.answer(pending)
    }

    fn output_failed(&self) -> Option<String> {
        self.failed.clone()
    }

    fn finished(&mut self, outcome: &RunOutcome) {
        let value = finished_record(outcome);
        self.emit(value);
        if let RunOutcome::Failed { message } = outcome {
            let message = self.settings.redactor.text(message);
            let _ = writeln!(std::io::stderr(), "error: {message}");
        }
    }
}

/// The `run_finished` record of an outcome.
#[must_use]
pub fn finished_record(outcome: &RunOutcome) -> Value {
    let code = exit_code(outcome);
    match outcome {
        RunOutcome::Completed {
            output,
            structured_output: None,
            usage,
        } => json!({
            "type": "run_finished", "status": "completed", "output": output,
            "usage": usage, "exit_code": code,
        }),
        // The validated object is the output; the model's text beside it is `text`.
        RunOutcome::Completed {
            output,
            structured_output: Some(structured),
            usage,
        } => json!({
            "type": "run_finished", "status": "completed", "output": structured,
            "text": output, "usage": usage, "exit_code": code,
        }),
        RunOutcome::Waiting {
            pending,
            saved_to,
            usage,
            answered,
        } => {
            let pending: Vec<Value> = pending.iter().map(pending_call).collect();
            json!({
                "type": "run_finished", "status": "waiting", "pending": pending,
                "answered": answered, "saved_to": saved_to, "usage": usage, "exit_code": code,
            })
        }
        RunOutcome::Failed { message } => json!({
            "type": "run_finished", "status": "failed", "error": message, "exit_code": code,
        }),
        RunOutcome::Cancelled { saved_to } => json!({
            "type": "run_finished", "status": "cancelled", "saved_to": saved_to,
            "exit_code": code,
        }),
    }
}

/// A call a waiting run waits for, as JSON output shows it: `tool_call_id`, `tool_name`,
/// `kind` (`approval` or `deferred`), `request_kind` (`tool_approval`, `clarifying_questions`,
/// `interrupted_call` or `deferred_call`) and `arguments`; a call a sub-agent made also has
/// `agent`, the path of agents it was made in, outermost first.
#[must_use]
pub fn pending_call(request: &starweaver_core::agent::AgentHitlRequest) -> Value {
    let mut call = json!({
        "tool_call_id": request.tool_call_id, "tool_name": request.tool_name,
        "kind": request.kind, "request_kind": request.request_kind(),
        "arguments": request.arguments,
    });
    if !request.agent.is_empty() {
        call["agent"] = json!(request.agent);
    }
    call
}

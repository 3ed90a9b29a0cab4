//! The plain UI, for runs whose output is not a terminal: one readable line per model step,
//! tool call and result, the final answer last and the usage after it. Nobody can be asked, so
//! approvals and questions are denied with a reason the model sees (or, with `--save`, left
//! pending to be answered with `--resume`).

use std::io::Write;

use serde_json::Value;
use starweaver_core::agent::{
    AgentHitlRequest, AgentHitlRequestKind, AgentHitlUserInteraction, AgentStreamEvent,
    AgentStreamRecord,
};
use starweaver_core::model::ToolCallArguments;
use starweaver_core::model::Usage;

use crate::run::{is_question, UiSettings};
use crate::terminal::events::progress_line;
use crate::terminal::text::{clean, shorten};
use crate::ui::{toolset_problem, Answers, RunOutcome, RunUi};
use crate::waits::{agent_path, requested_tool, Waits};

/// How many characters of arguments and results a line shows.
const SHOWN_CHARS: usize = 80;

/// Lines of text on a writer (standard output) and problems on another (standard error).
pub struct PlainUi {
    out: Box<dyn Write + Send + Sync>,
    err: Box<dyn Write + Send + Sync>,
    settings: UiSettings,
    /// The first failed write to `out`.
    failed: Option<String>,
    /// What each line starts with: empty for the lead's records, the indent and agent path
    /// for a sub-agent's.
    prefix: String,
}

impl PlainUi {
    /// Writes to `out` and `err`.
    #[must_use]
    pub fn new(
        out: Box<dyn Write + Send + Sync>,
        err: Box<dyn Write + Send + Sync>,
        settings: UiSettings,
    ) -> Self {
        Self {
            out,
            err,
            settings,
            failed: None,
            prefix: String::new(),
        }
    }

    /// Writes to the process's standard output and error.
    #[must_use]
    pub fn stdout(settings: UiSettings) -> Self {
        Self::new(
            Box::new(std::io::stdout()),
            Box::new(std::io::stderr()),
            settings,
        )
    }

    /// One line of output: secrets masked, control characters (terminal escapes included)
    /// shown as `?`. A failed write is remembered for the exit status; a reader that went away
    /// (a closed pipe) stops the run, since nobody sees what it does.
    fn line(&mut self, text: &str) {
        let text = clean(&self.settings.redactor.text(text));
        let prefix = clean(&self.settings.redactor.text(&self.prefix));
        let written = writeln!(self.out, "{prefix}{text}").and_then(|()| self.out.flush());
        self.written(written);
    }

    fn problem(&mut self, text: &str) {
        let text = clean(&self.settings.redactor.text(text));
        let _ = writeln!(self.err, "{text}");
        let _ = self.err.flush();
    }

    fn written(&mut self, result: std::io::Result<()>) {
        if let Err(error) = result {
            if error.kind() == std::io::ErrorKind::BrokenPipe {
                self.settings.interrupt.cancel();
            }
            self.failed.get_or_insert_with(|| error.to_string());
        }
    }
}

impl RunUi for PlainUi {
    fn record(&mut self, record: &AgentStreamRecord) {
        match &record.event {
            AgentStreamEvent::ModelRequest { step, tools } => {
                self.line(&format!(
                    "step {step}: asking the model ({} tools)",
                    tools.len()
                ));
            }
            AgentStreamEvent::ToolCall { call } => {
                let arguments = match &call.arguments {
                    ToolCallArguments::Json(value) => value.to_string(),
                    ToolCallArguments::Raw(text) => text.clone(),
                };
                // Masked before shortening, so a cut never leaves part of a secret.
                let arguments = self.settings.redactor.text(&arguments);
                self.line(&format!(
                    "  → {} {}",
                    call.name,
                    shorten(&arguments, SHOWN_CHARS)
                ));
            }
            AgentStreamEvent::ToolProgress {
                tool_name, update, ..
            } => {
                let line = self
                    .settings
                    .redactor
                    .text(&progress_line(tool_name, update));
                self.line(&format!("  {}", shorten(&line, SHOWN_CHARS)));
            }
            AgentStreamEvent::ToolReturn { part } => {
                // A call that waits has no result yet: its content only repeats the status.
                if let Some(waits) = Waits::of_return(part) {
                    self.line(&format!("  ← {} {}", part.tool_name, waits.words()));
                    return;
                }
                let content = match &part.content {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                let content = self.settings.redactor.text(&content);
                let content = shorten(&content.replace('\n', " "), SHOWN_CHARS);
                self.line(&format!(
                    "  ← {} {}: {content}",
                    part.tool_name,
                    part.kind.as_str()
                ));
            }
            AgentStreamEvent::Custom { event } => {
                if let Some(problem) = toolset_problem(&record.event) {
                    self.problem(&problem);
                }
                let payload = self.settings.redactor.text(&event.payload.to_string());
                let payload = shorten(&payload, SHOWN_CHARS);
                self.line(&format!("  · {} {payload}", event.kind));
            }
            AgentStreamEvent::SubAgent { agent, event, .. } => self.sub_agent(record, agent, event),
            AgentStreamEvent::Waiting { requests } => {
                for request in requests {
                    self.line(&format!(
                        "  ? {} {} (call {})",
                        requested_tool(request),
                        Waits::of(request).words(),
                        request.tool_call_id
                    ));
                }
            }
            _ => {}
        }
    }

    fn answer(&mut self, pending: &[AgentHitlRequest]) -> Answers {
        let mut answers = Answers::default();
        for request in pending {
            let id = request.tool_call_id.clone();
            if request.kind == AgentHitlRequestKind::Deferred {
                let why = format!(
                    "deferred to an external worker: give its result with --resume FILE \
                     --result {id}=JSON"
                );
                self.line(&format!(
                    "  … {} stays pending ({why})",
                    requested_tool(request)
                ));
                answers.left_pending.push((id, why));
                continue;
            }
            if self.settings.keep_pending {
                let why = format!(
                    "{}; answer it with --resume FILE {}",
                    no_terminal(request, self.settings.yes),
                    Waits::of(request).flag(&id)
                );
                self.line(&format!(
                    "  … {} stays pending: {why}",
                    requested_tool(request)
                ));
                answers.left_pending.push((id, why));
            } else {
                let why = refusal(request, self.settings.yes);
                self.line(&format!("  ✗ {} denied: {why}", requested_tool(request)));
                answers
                    .interactions
                    .push(AgentHitlUserInteraction::denied(id).with_reason(why));
            }
        }
        answers
    }

    fn output_failed(&self) -> Option<String> {
        self.failed.clone()
    }

    fn finished(&mut self, outcome: &RunOutcome) {
        match outcome {
            RunOutcome::Completed {
                output,
                structured_output,
                usage,
            } => {
                self.line("");
                self.line(&crate::ui::answer_text(output, structured_output.as_ref()));
                self.line("");
                self.line(&usage_line(usage));
            }
            RunOutcome::Waiting {
                pending,
                saved_to,
                usage,
                answered,
            } => {
                let ids: Vec<&str> = pending.iter().map(|r| r.tool_call_id.as_str()).collect();
                self.line(&format!(
                    "waiting for {} call(s): {}",
                    ids.len(),
                    ids.join(", ")
                ));
                for request in pending {
                    let id = &request.tool_call_id;
                    let waits = Waits::of(request);
                    let how = if answered.contains(id) {
                        "answered; runs with the rest".to_string()
                    } else {
                        waits.flag(id)
                    };
                    self.line(&format!(
                        "  {id}: {} {} ({how})",
                        requested_tool(request),
                        waits.words()
                    ));
                }
                if !answered.is_empty() {
                    self.line(&format!(
                        "nothing ran: the calls of a step run together once every one is \
                         answered, so {} did not run yet; resume with all the answers at once",
                        answered.join(", ")
                    ));
                }
                let kept = if answered.is_empty() {
                    ""
                } else {
                    ", with the answers given so far,"
                };
                match saved_to {
                    Some(path) => self.line(&format!(
                        "saved to {}{kept}; continue with `starweaver run --resume {}`",
                        path.display(),
                        path.display()
                    )),
                    None => self.line("not saved: run again with --save FILE to continue later"),
                }
                self.line(&usage_line(usage));
            }
            RunOutcome::Failed { message } => self.problem(&format!("error: {message}")),
            RunOutcome::Cancelled { saved_to } => {
                let saved = saved_to.as_ref().map_or(String::new(), |path| {
                    format!("; saved to {}", path.display())
                });
                self.problem(&format!("cancelled: the run was stopped (Ctrl-C){saved}"));
            }
        }
    }
}

impl PlainUi {
    /// A sub-agent's record, as the lead's own records show, indented two columns per level
    /// under its agent path; and its answer. What it waits for is listed by the lead's run.
    fn sub_agent(
        &mut self,
        record: &AgentStreamRecord,
        agent: &[String],
        event: &AgentStreamEvent,
    ) {
        let outer = std::mem::replace(
            &mut self.prefix,
            format!("{}[{}] ", "  ".repeat(agent.len()), agent_path(agent)),
        );
        match event {
            AgentStreamEvent::RunCompleted {
                output,
                structured_output,
            } => {
                let answer = match structured_output {
                    Some(value) => value.to_string(),
                    None => output.replace('\n', " "),
                };
                let answer = self.settings.redactor.text(&answer);
                self.line(&format!("answered: {}", shorten(&answer, SHOWN_CHARS)));
            }
            AgentStreamEvent::Waiting { .. } => {}
            inner => self.record(&AgentStreamRecord {
                sequence: record.sequence,
                run_id: record.run_id.clone(),
                event: inner.clone(),
            }),
        }
        self.prefix = outer;
    }
}

/// Why nobody answers a request here.
fn no_terminal(request: &AgentHitlRequest, yes: bool) -> &'static str {
    match (is_question(request), yes) {
        (true, true) => "--yes approves tool calls but does not answer questions",
        (true, false) => "no terminal to ask the question",
        (false, _) => "no terminal to ask for approval",
    }
}

/// Why a request nobody can answer here is refused (the model reads it too).
fn refusal(request: &AgentHitlRequest, yes: bool) -> String {
    match (is_question(request), yes) {
        (true, true) => "--yes approves tool calls but does not answer questions; run at a \
                         terminal to answer them"
            .to_string(),
        (true, false) => {
            "no terminal to ask the question; run at a terminal to answer it".to_string()
        }
        (false, _) => {
            "no terminal to ask for approval; run with --yes to approve tool calls".to_string()
        }
    }
}

/// The usage summary line.
#[must_use]
pub fn usage_line(usage: &Usage) -> String {
    format!(
        "usage: {} model request(s), {} input + {} output tokens, {} tool call(s)",
        usage.requests, usage.input_tokens, usage.output_tokens, usage.tool_calls
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::mask::Redactor;

    /// A writer whose bytes the test reads back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_secret_cut_by_the_line_length_is_masked_before_the_cut() {
        let secret = "sk-live-0123456789abcdef";
        let vars = std::collections::BTreeMap::from([("api_key".to_string(), secret.to_string())]);
        let settings = UiSettings {
            redactor: Redactor::for_vars(&vars),
            ..UiSettings::default()
        };
        let out = Shared::default();
        let mut ui = PlainUi::new(Box::new(out.clone()), Box::new(std::io::sink()), settings);
        // The secret starts a few characters before the 80th, so a cut keeps only its head.
        let text = format!("{}{secret}", "x".repeat(SHOWN_CHARS - 18));
        let call = starweaver_core::model::ToolCallPart::new(
            "c1",
            "fetch",
            serde_json::json!({"t": text}),
        );
        ui.record(&AgentStreamRecord {
            sequence: 0,
            run_id: starweaver_core::context::RunId::default(),
            event: AgentStreamEvent::ToolCall { call },
        });
        let shown = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        assert!(!shown.contains("sk-live"), "{shown}");
        assert!(shown.contains(MASK_SHOWN), "{shown}");
    }

    #[test]
    fn a_sub_agents_records_are_indented_under_its_path_and_its_requests_name_it() {
        let out = Shared::default();
        let mut ui = PlainUi::new(
            Box::new(out.clone()),
            Box::new(std::io::sink()),
            UiSettings::default(),
        );
        let record = |event| AgentStreamRecord {
            sequence: 0,
            run_id: starweaver_core::context::RunId::default(),
            event,
        };
        let nested = |event| AgentStreamEvent::SubAgent {
            agent: vec!["release".into(), "deployer".into()],
            tool_call_id: "l2".into(),
            event: Box::new(event),
        };
        let call = starweaver_core::model::ToolCallPart::new("d1", "deploy", serde_json::json!({}));
        ui.record(&record(nested(AgentStreamEvent::ToolCall { call })));
        ui.record(&record(nested(AgentStreamEvent::RunCompleted {
            output: "Deployed.".into(),
            structured_output: None,
        })));
        let request = AgentHitlRequest {
            tool_call_id: "l2/r1/d1".into(),
            tool_name: "deploy".into(),
            arguments: serde_json::json!({}),
            kind: AgentHitlRequestKind::Approval,
            metadata: Default::default(),
            agent: vec!["release".into(), "deployer".into()],
        };
        ui.record(&record(AgentStreamEvent::Waiting {
            requests: vec![request],
        }));
        let shown = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            shown,
            "    [release › deployer]   → deploy {}\n    [release › deployer] answered: Deployed.\n  ? deploy (in release › deployer) waits for approval (call l2/r1/d1)\n"
        );
    }

    /// What a masked value shows as.
    const MASK_SHOWN: &str = "***";
}

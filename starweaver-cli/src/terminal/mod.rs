//! The terminal UI of `starweaver run`: live lines for each model step
//! and tool call, a spinner while something works, prompts for approvals
//! and clarifying questions, and the final answer with the run's usage.
//!
//! Formatting (`events`, `outcome`, `text`) is pure and tested without a
//! terminal; this module only prints and asks.

mod approval;
pub mod events;
mod outcome;
mod questions;
mod spinner;
mod style;
/// Text made safe and short for one line (shared with the plain UI).
pub mod text;

use console::Term;
use dialoguer::theme::{ColorfulTheme, SimpleTheme, Theme};
use starweaver_core::agent::{AgentHitlRequest, AgentHitlRequestKind, AgentHitlUserInteraction};
use starweaver_core::agent::{AgentStreamEvent, AgentStreamRecord};
use starweaver_core::bundles::CLARIFYING_QUESTIONS_REQUEST_KIND;
use tokio_util::sync::CancellationToken;

use crate::mask::Redactor;
use crate::ui::{Answers, RunOutcome, RunUi};
use crate::waits::requested_tool;
use spinner::Spinner;
use style::Paint;
use text::shorten;

/// Why a deferred call is left pending at a terminal.
pub const DEFERRED_REASON: &str =
    "handed to an external worker; save the run with --save and resume it with the worker's result";

/// Streamed text kept per step (only its first line-worth is shown).
const SAID_BYTES: usize = 4_096;

/// How the terminal UI behaves; the run command decides from its flags and
/// the terminal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TerminalOptions {
    /// Colours in the output and prompts (see [`color_enabled`]).
    pub color: bool,
    /// `--yes`: approve every approval without asking (clarifying
    /// questions are still asked: only a person can answer them).
    pub yes: bool,
}

/// Whether output may be coloured: stdout is a terminal that takes colour
/// (`CLICOLOR`, `CLICOLOR_FORCE` honoured) and `NO_COLOR` is not set to a
/// non-empty value.
#[must_use]
pub fn color_enabled() -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
    !no_color && console::colors_enabled()
}

/// A person at a terminal watching and answering a run.
pub struct TerminalUi {
    options: TerminalOptions,
    /// Masks secret variable values in every line and prompt shown.
    redactor: Redactor,
    /// Fired by Ctrl-C at a prompt (raw mode reads it as a key, so no signal is sent).
    interrupt: Option<CancellationToken>,
    paint: Paint,
    out: Out,
    prompts: Term,
    spinner: Spinner,
    /// Text the model streamed in this step, shown before its tool calls.
    said: String,
}

impl TerminalUi {
    /// A UI printing to stdout and asking on stderr. Sets `console`'s
    /// colour switches to `options.color`, so prompts and spinner follow
    /// the same decision as the lines.
    #[must_use]
    pub fn new(options: TerminalOptions) -> Self {
        console::set_colors_enabled(options.color);
        console::set_colors_enabled_stderr(options.color);
        Self {
            options,
            redactor: Redactor::default(),
            interrupt: None,
            paint: Paint {
                color: options.color,
            },
            out: Out::Term(Term::stdout()),
            prompts: Term::stderr(),
            spinner: Spinner::default(),
            said: String::new(),
        }
    }

    /// Masks the secret values `redactor` knows in everything this UI shows: lines, the
    /// spinner, approval and question prompts (the answers keep the values the model sent).
    #[must_use]
    pub fn with_redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = redactor;
        self
    }

    /// Ctrl-C at a prompt cancels the run through `interrupt`, as Ctrl-C does anywhere else.
    #[must_use]
    pub fn with_interrupt(mut self, interrupt: CancellationToken) -> Self {
        self.interrupt = Some(interrupt);
        self
    }

    /// A prompt that failed: the cursor the prompt hid is shown again, and Ctrl-C (read as
    /// `Interrupted`) cancels the run.
    fn prompt_failed(&self, error: &std::io::Error) -> Left {
        let _ = self.prompts.show_cursor();
        if error.kind() == std::io::ErrorKind::Interrupted {
            if let Some(interrupt) = &self.interrupt {
                interrupt.cancel();
            }
        }
        Left::prompt_failed(error)
    }

    fn theme(&self) -> Box<dyn Theme> {
        if self.options.color {
            Box::new(ColorfulTheme::default())
        } else {
            Box::new(SimpleTheme)
        }
    }

    /// Prints one line, secret values masked.
    fn print(&mut self, line: &str) {
        let line = self.redactor.text(line);
        match &mut self.out {
            Out::Term(out) => {
                // A closed stdout cannot be reported anywhere better; the run goes on.
                let _ = self.spinner.suspend(|| out.write_line(&line));
            }
            #[cfg(test)]
            Out::Lines(lines) => lines.push(line),
        }
    }

    /// One answer for one call, or why it stays pending.
    fn answer_one(&mut self, request: &AgentHitlRequest) -> Result<AgentHitlUserInteraction, Left> {
        if request.kind == AgentHitlRequestKind::Deferred {
            return Err(Left::because(DEFERRED_REASON));
        }
        let theme = self.theme();
        if request.request_kind() == CLARIFYING_QUESTIONS_REQUEST_KIND {
            let questions = questions::questions(request).map_err(Left::because)?;
            let (term, paint, redactor) = (&self.prompts, self.paint, &self.redactor);
            return match questions::ask(term, theme.as_ref(), &questions, paint, redactor) {
                Ok(Some(answers)) => Ok(AgentHitlUserInteraction::approved(
                    request.tool_call_id.clone(),
                )
                .with_user_input(answers)),
                Ok(None) => Err(Left::stopped("the questions were left without an answer")),
                Err(error) => Err(self.prompt_failed(&error)),
            };
        }
        if self.options.yes {
            self.print(&format!(
                "  {} {} (--yes)",
                self.paint.green("approved"),
                shorten(&self.redactor.text(&requested_tool(request)), 60)
            ));
            return Ok(AgentHitlUserInteraction::approved(
                request.tool_call_id.clone(),
            ));
        }
        let (term, paint, redactor) = (&self.prompts, self.paint, &self.redactor);
        match approval::ask(term, theme.as_ref(), request, paint, redactor) {
            Ok(Some(decision)) => Ok(decision),
            Ok(None) => Err(Left::stopped(
                "the approval prompt was left without an answer",
            )),
            Err(error) => Err(self.prompt_failed(&error)),
        }
    }

    /// Shows what the model wrote before its tool calls, once.
    fn flush_said(&mut self) {
        let said = std::mem::take(&mut self.said);
        if let Some(line) = events::said_line(&said, self.paint, &self.redactor) {
            self.print(&line);
        }
    }
}

/// Where the UI's lines go.
enum Out {
    /// The terminal (standard output).
    Term(Term),
    /// Kept, for tests to read.
    #[cfg(test)]
    Lines(Vec<String>),
}

/// Why a call stays pending, and whether to stop asking about the rest
/// (the person left a prompt, or the terminal failed).
struct Left {
    reason: String,
    stop_asking: bool,
}

impl Left {
    fn because(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            stop_asking: false,
        }
    }

    fn stopped(reason: &str) -> Self {
        Self {
            reason: reason.to_string(),
            stop_asking: true,
        }
    }

    fn prompt_failed(error: &std::io::Error) -> Self {
        Self {
            reason: match error.kind() {
                std::io::ErrorKind::Interrupted => "the prompt was interrupted".to_string(),
                _ => format!("the terminal prompt failed: {error}"),
            },
            stop_asking: true,
        }
    }
}

impl RunUi for TerminalUi {
    fn record(&mut self, record: &AgentStreamRecord) {
        match &record.event {
            AgentStreamEvent::TextDelta { delta } => {
                let room = SAID_BYTES.saturating_sub(self.said.len());
                self.said.extend(delta.chars().take(room));
                return;
            }
            AgentStreamEvent::RunCompleted { .. } => self.said.clear(),
            _ => self.flush_said(),
        }
        if let Some(line) = events::event_line(&record.event, self.paint, &self.redactor) {
            self.print(&line);
        }
        if let Some(problem) = crate::ui::toolset_problem(&record.event) {
            // The whole reason, a server's last words included, within a few lines.
            let problem = shorten(&self.redactor.text(&problem), 4 * text::LINE_CHARS);
            self.print(&self.paint.yellow(&format!("  ! {problem}")));
        }
        match &record.event {
            AgentStreamEvent::ModelRequest { step, .. } => {
                self.spinner
                    .start(format!("step {step}: waiting for the model"));
            }
            AgentStreamEvent::ToolCall { call } => {
                let name = self.redactor.text(&call.name);
                self.spinner
                    .start(format!("running {}", shorten(&name, 40)));
            }
            _ => self.spinner.stop(),
        }
    }

    fn answer(&mut self, pending: &[AgentHitlRequest]) -> Answers {
        self.spinner.stop();
        self.flush_said();
        let mut answers = Answers::default();
        let mut stopped = false;
        for request in pending {
            let id = request.tool_call_id.clone();
            if stopped && request.kind != AgentHitlRequestKind::Deferred {
                answers
                    .left_pending
                    .push((id, "not asked: an earlier prompt was left".to_string()));
                continue;
            }
            match self.answer_one(request) {
                Ok(interaction) => answers.interactions.push(interaction),
                Err(left) => {
                    stopped |= left.stop_asking;
                    answers.left_pending.push((id, left.reason));
                }
            }
        }
        answers
    }

    fn finished(&mut self, outcome: &RunOutcome) {
        self.spinner.stop();
        for line in outcome::outcome_lines(outcome, self.paint) {
            self.print(&line);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    /// What a masked value shows as.
    const MASK: &str = "***";
    use serde_json::json;

    fn request(kind: AgentHitlRequestKind, request_kind: &str) -> AgentHitlRequest {
        let mut metadata = starweaver_core::JsonMap::new();
        metadata.insert("request".into(), json!({"kind": request_kind}));
        AgentHitlRequest {
            tool_call_id: "c1".into(),
            tool_name: "render".into(),
            arguments: json!({}),
            kind,
            metadata,
            agent: Vec::new(),
        }
    }

    /// A UI that keeps its lines, masking `sk-live-42`.
    fn capturing(yes: bool) -> TerminalUi {
        let vars =
            std::collections::BTreeMap::from([("api_key".to_string(), "sk-live-42".to_string())]);
        let mut ui = TerminalUi::new(TerminalOptions { color: false, yes })
            .with_redactor(Redactor::for_vars(&vars));
        ui.out = Out::Lines(Vec::new());
        ui
    }

    fn lines(ui: &TerminalUi) -> &[String] {
        match &ui.out {
            Out::Lines(lines) => lines,
            Out::Term(_) => &[],
        }
    }

    fn record(event: AgentStreamEvent) -> AgentStreamRecord {
        AgentStreamRecord {
            sequence: 0,
            run_id: starweaver_core::context::RunId::default(),
            event,
        }
    }

    #[test]
    fn secret_values_are_masked_in_every_line() {
        let secret = "sk-live-42";
        let mut ui = capturing(true);
        ui.record(&record(AgentStreamEvent::ModelRequest {
            step: 1,
            tools: vec!["fetch".into()],
        }));
        ui.record(&record(AgentStreamEvent::TextDelta {
            delta: format!("I will use {secret} now"),
        }));
        let call =
            starweaver_core::model::ToolCallPart::new("c1", "fetch", json!({"token": secret}));
        ui.record(&record(AgentStreamEvent::ToolCall { call }));
        let part = starweaver_core::model::ToolReturnPart {
            tool_call_id: "c1".into(),
            tool_name: "fetch".into(),
            content: json!({"echo": format!("key={secret}")}),
            kind: starweaver_core::model::ToolReturnKind::Success,
            metadata: starweaver_core::JsonMap::new(),
            private_metadata: starweaver_core::JsonMap::new(),
        };
        ui.record(&record(AgentStreamEvent::ToolReturn { part }));
        let mut pending = request(AgentHitlRequestKind::Approval, "tool_approval");
        pending.tool_name = format!("tool-{secret}");
        ui.answer(&[pending]);
        ui.finished(&RunOutcome::Completed {
            structured_output: None,
            output: format!("The key is {secret}."),
            usage: starweaver_core::model::Usage::default(),
        });
        ui.finished(&RunOutcome::Failed {
            message: format!("failed near {secret}"),
        });
        let shown = lines(&ui).join("\n");
        assert!(!shown.contains(secret), "{shown}");
        // Each of the said text, the call, its return, the approval, the answer and the failure.
        assert!(shown.matches(MASK).count() >= 6, "{shown}");
        assert!(shown.contains("The key is ***."), "{shown}");
    }

    #[test]
    fn prompts_mask_secret_values_but_answers_keep_what_the_model_wrote() {
        let secret = "sk-live-42";
        let ui = capturing(false);
        let mut pending = request(AgentHitlRequestKind::Approval, "tool_approval");
        pending.arguments = json!({"header": secret});
        let text = approval::request_text(&pending, Paint::PLAIN, &ui.redactor);
        assert!(!text.contains(secret) && text.contains(MASK), "{text}");
        // Offered for editing it would show the secret, or replace it with the mask.
        assert_eq!(approval::editable_text(&pending, &ui.redactor), None);
        pending.arguments = json!({"plain": "x"});
        assert!(approval::editable_text(&pending, &ui.redactor).is_some());

        pending.arguments = json!({"questions": [{
            "question": format!("Use {secret}?"), "header": "Key",
            "options": [{"label": secret, "description": format!("the {secret} one")},
                        {"label": "no"}]
        }]});
        let asked = questions::questions(&pending).unwrap();
        let line = questions::question_line(&asked[0], Paint::PLAIN, &ui.redactor);
        assert_eq!(line, "[Key] Use ***?");
        let items = questions::option_items(&asked[0], &ui.redactor);
        assert_eq!(items, ["***: the *** one", "no"]);
        // The questions themselves are untouched: answers are keyed by them.
        assert_eq!(asked[0].question, format!("Use {secret}?"));
    }

    #[test]
    fn a_secret_written_json_escaped_is_masked_and_not_offered_for_editing() {
        let secret = "p\"w\\x9z";
        let vars = std::collections::BTreeMap::from([("db_password".to_string(), secret.into())]);
        let redactor = Redactor::for_vars(&vars);
        let mut pending = request(AgentHitlRequestKind::Approval, "tool_approval");
        pending.arguments = json!({"sql": format!("login {secret}"), secret: true});
        assert_eq!(approval::editable_text(&pending, &redactor), None);
        let text = approval::request_text(&pending, Paint::PLAIN, &redactor);
        assert!(!text.contains("9z"), "{text}");
        // The long line of the call is masked before it is cut.
        let long = format!("{}{secret}", "y".repeat(60));
        let call = starweaver_core::model::ToolCallPart::new("c1", "sql", json!({"q": long}));
        let line = events::call_line(&call, Paint::PLAIN, &redactor);
        assert!(!line.contains("p\\\"w") && line.contains(MASK), "{line}");
    }

    #[test]
    fn deferred_calls_are_left_pending_with_the_reason() {
        let mut ui = TerminalUi::new(TerminalOptions::default());
        let answers = ui.answer(&[request(AgentHitlRequestKind::Deferred, "deferred_call")]);
        assert!(answers.interactions.is_empty());
        assert_eq!(
            answers.left_pending,
            vec![("c1".to_string(), DEFERRED_REASON.to_string())]
        );
    }

    #[test]
    fn yes_approves_without_asking() {
        let mut ui = TerminalUi::new(TerminalOptions {
            color: false,
            yes: true,
        });
        let answers = ui.answer(&[request(AgentHitlRequestKind::Approval, "tool_approval")]);
        assert_eq!(
            answers.interactions,
            vec![AgentHitlUserInteraction::approved("c1")]
        );
        assert!(answers.left_pending.is_empty());
    }
}

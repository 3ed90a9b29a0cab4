// The run command is being built on this UI; remove once it is used.
#![allow(dead_code)]

//! The terminal UI of `starweaver run`: live lines for each model step
//! and tool call, a spinner while something works, prompts for approvals
//! and clarifying questions, and the final answer with the run's usage.
//!
//! Formatting (`events`, `outcome`, `text`) is pure and tested without a
//! terminal; this module only prints and asks.

mod approval;
mod events;
mod outcome;
mod questions;
mod spinner;
mod style;
mod text;

use console::Term;
use dialoguer::theme::{ColorfulTheme, SimpleTheme, Theme};
use starweaver::{AgentHitlRequest, AgentHitlRequestKind, AgentHitlUserInteraction};
use starweaver::{AgentStreamEvent, AgentStreamRecord, CLARIFYING_QUESTIONS_REQUEST_KIND};

use crate::cli::ui::{Answers, RunOutcome, RunUi};
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
    paint: Paint,
    out: Term,
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
            paint: Paint {
                color: options.color,
            },
            out: Term::stdout(),
            prompts: Term::stderr(),
            spinner: Spinner::default(),
            said: String::new(),
        }
    }

    fn theme(&self) -> Box<dyn Theme> {
        if self.options.color {
            Box::new(ColorfulTheme::default())
        } else {
            Box::new(SimpleTheme)
        }
    }

    fn print(&self, line: &str) {
        let out = &self.out;
        // A closed stdout cannot be reported anywhere better; the run goes on.
        let _ = self.spinner.suspend(|| out.write_line(line));
    }

    /// One answer for one call, or why it stays pending.
    fn answer_one(&mut self, request: &AgentHitlRequest) -> Result<AgentHitlUserInteraction, Left> {
        if request.kind == AgentHitlRequestKind::Deferred {
            return Err(Left::because(DEFERRED_REASON));
        }
        let theme = self.theme();
        if request.request_kind() == CLARIFYING_QUESTIONS_REQUEST_KIND {
            let questions = questions::questions(request).map_err(Left::because)?;
            return match questions::ask(&self.prompts, theme.as_ref(), &questions, self.paint) {
                Ok(Some(answers)) => Ok(AgentHitlUserInteraction::approved(
                    request.tool_call_id.clone(),
                )
                .with_user_input(answers)),
                Ok(None) => Err(Left::stopped("the questions were left without an answer")),
                Err(error) => Err(Left::prompt_failed(&error)),
            };
        }
        if self.options.yes {
            self.print(&format!(
                "  {} {} (--yes)",
                self.paint.green("approved"),
                shorten(&request.tool_name, 40)
            ));
            return Ok(AgentHitlUserInteraction::approved(
                request.tool_call_id.clone(),
            ));
        }
        match approval::ask(&self.prompts, theme.as_ref(), request, self.paint) {
            Ok(Some(decision)) => Ok(decision),
            Ok(None) => Err(Left::stopped(
                "the approval prompt was left without an answer",
            )),
            Err(error) => Err(Left::prompt_failed(&error)),
        }
    }

    /// Shows what the model wrote before its tool calls, once.
    fn flush_said(&mut self) {
        let said = std::mem::take(&mut self.said);
        if let Some(line) = events::said_line(&said, self.paint) {
            self.print(&line);
        }
    }
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
        if let Some(line) = events::event_line(&record.event, self.paint) {
            self.print(&line);
        }
        match &record.event {
            AgentStreamEvent::ModelRequest { step, .. } => {
                self.spinner
                    .start(format!("step {step}: waiting for the model"));
            }
            AgentStreamEvent::ToolCall { call } => {
                self.spinner
                    .start(format!("running {}", shorten(&call.name, 40)));
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
    use super::*;
    use serde_json::json;

    fn request(kind: AgentHitlRequestKind, request_kind: &str) -> AgentHitlRequest {
        let mut metadata = starweaver::JsonMap::new();
        metadata.insert("request".into(), json!({"kind": request_kind}));
        AgentHitlRequest {
            tool_call_id: "c1".into(),
            tool_name: "render".into(),
            arguments: json!({}),
            kind,
            metadata,
        }
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

//! The last words of a run: the final answer, then what the run used; or
//! why it stopped and how to go on.

use starweaver_core::agent::AgentHitlRequest;

use super::events::usage_line;
use super::style::Paint;
use super::text::{clean, shorten};
use crate::ui::RunOutcome;
use crate::waits::{requested_tool, Waits};

/// The lines `finished` prints, in order (the answer may span lines).
pub fn outcome_lines(outcome: &RunOutcome, paint: Paint) -> Vec<String> {
    match outcome {
        RunOutcome::Completed {
            output,
            structured_output,
            usage,
        } => {
            vec![
                String::new(),
                clean(&crate::ui::answer_text(output, structured_output.as_ref())),
                String::new(),
                usage_line(usage, paint),
            ]
        }
        RunOutcome::Waiting {
            pending,
            saved_to,
            usage,
            answered,
        } => {
            let mut lines = vec![paint.yellow(&format!(
                "The run is waiting on {} call{}:",
                pending.len(),
                if pending.len() == 1 { "" } else { "s" }
            ))];
            lines.extend(
                pending
                    .iter()
                    .map(|request| pending_line(request, answered)),
            );
            if !answered.is_empty() {
                lines.push(format!(
                    "Nothing ran: the calls of a step run together once every one is answered \
                     ({} did not run yet).",
                    answered.join(", ")
                ));
            }
            let kept = if answered.is_empty() {
                ""
            } else {
                " with the answers given so far"
            };
            lines.push(match saved_to {
                Some(path) => format!("Saved to {}{kept}; resume it from there.", path.display()),
                None => "Not saved: run again with --save to keep a waiting run.".to_string(),
            });
            lines.push(usage_line(usage, paint));
            lines
        }
        RunOutcome::Failed { message } => {
            vec![format!("{} {}", paint.red("error:"), clean(message))]
        }
        RunOutcome::Cancelled { saved_to } => {
            let mut lines = vec![paint.yellow("Cancelled; the run's processes were stopped.")];
            if let Some(path) = saved_to {
                lines.push(format!("Saved to {}.", path.display()));
            }
            lines
        }
    }
}

/// `  NAME ID waits for approval (--yes)`: what the call waits for, in the words every UI uses,
/// and the flag that answers it when the run is resumed.
fn pending_line(request: &AgentHitlRequest, answered: &[String]) -> String {
    let waits = Waits::of(request);
    let id = &request.tool_call_id;
    let how = if answered.contains(id) {
        "answered; runs with the rest".to_string()
    } else {
        waits.flag(id)
    };
    format!(
        "  {} {} {} ({})",
        shorten(&requested_tool(request), 60),
        shorten(id, 40),
        waits.words(),
        shorten(&how, 80)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use starweaver_core::model::Usage;

    #[test]
    fn the_answer_comes_before_the_usage() {
        let outcome = RunOutcome::Completed {
            structured_output: None,
            output: "All done.\nBye".into(),
            usage: Usage::default(),
        };
        let lines = outcome_lines(&outcome, Paint::PLAIN);
        assert_eq!(lines[1], "All done.\nBye");
        assert!(lines[3].starts_with("requests 0"), "{lines:?}");
    }

    #[test]
    fn a_waiting_run_says_how_to_go_on() {
        let outcome = RunOutcome::Waiting {
            pending: Vec::new(),
            saved_to: None,
            usage: Usage::default(),
            answered: Vec::new(),
        };
        let text = outcome_lines(&outcome, Paint::PLAIN).join("\n");
        assert!(text.contains("--save"), "{text}");
    }
}

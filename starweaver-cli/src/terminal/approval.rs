//! Asking a person to approve a call: the tool and its arguments, then
//! approve, deny with a reason, or edit the arguments (the call then runs
//! with the edited ones, once the tool's schema accepts them).

use console::Term;
use dialoguer::theme::Theme;
use dialoguer::{Input, Select};
use serde_json::Value;
use starweaver_core::agent::{AgentHitlRequest, AgentHitlUserInteraction};

use super::style::Paint;
use super::text::{pretty_json, shorten};
use crate::mask::Redactor;
use crate::waits::requested_tool;

/// Lines of pretty arguments shown before the choice.
const ARGUMENT_LINES: usize = 24;
/// Longest argument text offered for editing in place.
const EDITABLE_CHARS: usize = 4_000;

/// The choices, in the order shown.
pub const CHOICES: [&str; 3] = ["Approve", "Deny (give a reason)", "Edit the arguments"];

/// What the person chose, or `None` when they left the prompt (Esc).
pub type Decision = Option<AgentHitlUserInteraction>;

/// The block shown above the choice: tool name and bounded pretty
/// arguments, secret values masked.
pub fn request_text(request: &AgentHitlRequest, paint: Paint, redactor: &Redactor) -> String {
    let mut arguments = request.arguments.clone();
    // Keys too: this is only shown. Masked before the lines are bounded and shortened.
    redactor.shown_json(&mut arguments);
    format!(
        "{} {} wants to run with:\n{}",
        paint.yellow("approval:"),
        paint.bold(&shorten(&redactor.text(&requested_tool(request)), 80)),
        pretty_json(&arguments, ARGUMENT_LINES)
    )
}

/// The arguments offered for editing in place: none when they are long, or when they hold a
/// secret value (it would be shown, or, masked, replace the value in the call).
pub fn editable_text(request: &AgentHitlRequest, redactor: &Redactor) -> Option<String> {
    let current = request.arguments.to_string();
    // `finds` sees a secret JSON-escaped in the text too (`p\"w` for `p"w`).
    (current.len() <= EDITABLE_CHARS && !redactor.finds(&current)).then_some(current)
}

/// Reads edited arguments: a JSON object, or why not.
///
/// # Errors
/// The parse error, or a note that arguments are an object.
pub fn parse_edited(text: &str) -> Result<Value, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err("arguments are a JSON object: {\"name\": value, ...}".to_string()),
        Err(error) => Err(format!("not JSON: {error}")),
    }
}

/// Asks on `term`. Errors are the terminal's (closed, interrupted).
pub fn ask(
    term: &Term,
    theme: &dyn Theme,
    request: &AgentHitlRequest,
    paint: Paint,
    redactor: &Redactor,
) -> std::io::Result<Decision> {
    term.write_line(&request_text(request, paint, redactor))?;
    let id = request.tool_call_id.clone();
    let choice = Select::with_theme(theme)
        .with_prompt(format!(
            "Run {}?",
            shorten(&redactor.text(&requested_tool(request)), 60)
        ))
        .items(CHOICES)
        .default(0)
        .interact_on_opt(term)
        .map_err(into_io)?;
    Ok(match choice {
        None => None,
        Some(0) => Some(AgentHitlUserInteraction::approved(id)),
        Some(1) => {
            let reason: String = Input::with_theme(theme)
                .with_prompt("Reason (shown to the model)")
                .allow_empty(true)
                .interact_text_on(term)
                .map_err(into_io)?;
            let denied = AgentHitlUserInteraction::denied(id);
            Some(match reason.trim() {
                "" => denied,
                reason => denied.with_reason(reason),
            })
        }
        Some(_) => {
            let mut input = Input::<String>::with_theme(theme)
                .with_prompt("Arguments (JSON)")
                .validate_with(|text: &String| parse_edited(text).map(|_| ()));
            if let Some(current) = editable_text(request, redactor) {
                input = input.with_initial_text(current);
            }
            let text = input.interact_text_on(term).map_err(into_io)?;
            match parse_edited(&text) {
                Ok(arguments) => Some(AgentHitlUserInteraction::approved_with_arguments(
                    id, arguments,
                )),
                Err(_) => None,
            }
        }
    })
}

/// dialoguer's error as the I/O error it wraps.
pub fn into_io(error: dialoguer::Error) -> std::io::Error {
    match error {
        dialoguer::Error::IO(error) => error,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;
    use starweaver_core::agent::AgentHitlRequestKind;

    #[test]
    fn edited_arguments_must_be_a_json_object() {
        assert_eq!(parse_edited("{\"a\": 1}"), Ok(json!({"a": 1})));
        assert!(parse_edited("[1]").unwrap_err().contains("object"));
        assert!(parse_edited("{oops").unwrap_err().starts_with("not JSON"));
    }

    #[test]
    fn the_request_shows_tool_and_bounded_arguments() {
        let request = AgentHitlRequest {
            tool_call_id: "d1".into(),
            tool_name: "deploy".into(),
            arguments: json!({"list": (0..200).collect::<Vec<_>>()}),
            kind: AgentHitlRequestKind::Approval,
            metadata: Default::default(),
            agent: Vec::new(),
        };
        let text = request_text(&request, Paint::PLAIN, &Redactor::default());
        assert!(
            text.starts_with("approval: deploy wants to run with:\n{"),
            "{text}"
        );
        assert!(text.lines().count() <= ARGUMENT_LINES + 2, "{text}");
    }
}

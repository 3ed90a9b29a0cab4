//! One line per run record, as a person follows a run: each model step,
//! each tool call with its arguments, and each result or error. Pure
//! functions of the record, so they are tested without a terminal.

use serde_json::Value;
use starweaver_core::agent::AgentStreamEvent;
use starweaver_core::context::ContextEventKind;
use starweaver_core::model::{
    RequestNotice, RequestNoticeKind, ToolCallPart, ToolReturnKind, ToolReturnPart, Usage,
};
use starweaver_core::tools::ToolProgress;

use super::style::Paint;
use super::text::{inline_json, shorten, LINE_CHARS};
use crate::mask::Redactor;
use crate::waits::{agent_path, Waits};

/// What a model adjusted in its request, one line per notice: a tool or setting left out, a
/// schema rewritten.
fn adjusted_lines(payload: &Value, redactor: &Redactor) -> Option<String> {
    let notices: Vec<RequestNotice> =
        serde_json::from_value(payload.get("notices")?.clone()).ok()?;
    let lines: Vec<String> = notices
        .iter()
        .map(|notice| notice_line(notice, redactor))
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// One notice as `  ! tool left out `NAME`: REASON`, masked, then bounded.
pub fn notice_line(notice: &RequestNotice, redactor: &Redactor) -> String {
    let what = match notice.kind {
        RequestNoticeKind::ToolLeftOut => "tool left out",
        RequestNoticeKind::ToolSchemaAdapted => "tool schema adapted",
        RequestNoticeKind::SettingLeftOut => "setting left out",
    };
    let text = redactor.text(&format!("{what} `{}`: {}", notice.subject, notice.reason));
    // A reason is what the user acts on: longer than a record line, still bounded.
    format!("  ! {}", shorten(&text, 4 * LINE_CHARS))
}

/// The line a record shows, or `None` for records a person need not see
/// (the run's start, streamed text, the final answer shown at the end). Secret values are
/// masked before any text is shortened, so a cut never leaves part of one.
pub fn event_line(event: &AgentStreamEvent, paint: Paint, redactor: &Redactor) -> Option<String> {
    match event {
        AgentStreamEvent::ModelRequest { step, tools } => Some(format!(
            "{} {}",
            paint.bold(&format!("step {step}")),
            paint.dim(&format!("· model request ({} tools)", tools.len()))
        )),
        AgentStreamEvent::ToolBatch { mode, calls, .. } if *calls > 1 => {
            Some(paint.dim(&format!("  {calls} calls, {}", shorten(mode, 20))))
        }
        AgentStreamEvent::ToolCall { call } => Some(call_line(call, paint, redactor)),
        AgentStreamEvent::ToolReturn { part } => Some(return_line(part, paint, redactor)),
        AgentStreamEvent::ToolProgress {
            tool_name, update, ..
        } => Some(paint.dim(&format!(
            "  {}",
            shorten(
                &redactor.text(&progress_line(tool_name, update)),
                LINE_CHARS - 2
            )
        ))),
        AgentStreamEvent::Custom { event }
            if event.kind == ContextEventKind::ModelRequestAdjusted =>
        {
            adjusted_lines(&event.payload, redactor).map(|text| paint.yellow(&text))
        }
        AgentStreamEvent::Custom { event } => Some(paint.dim(&format!(
            "  · {}",
            shorten(&redactor.text(event.kind.as_str()), LINE_CHARS - 4)
        ))),
        AgentStreamEvent::Waiting { requests } => Some(paint.yellow(&format!(
            "  waiting for {} answer{}",
            requests.len(),
            plural(requests.len())
        ))),
        AgentStreamEvent::SubAgent { agent, event, .. } => {
            sub_agent_line(agent, event, paint, redactor)
        }
        _ => None,
    }
}

/// A sub-agent's record, indented two columns per level under its agent path: its steps,
/// calls and results as the lead's own are shown, and its answer. What it waits for is not
/// shown here: the lead's run lists it, named by the same path.
fn sub_agent_line(
    agent: &[String],
    event: &AgentStreamEvent,
    paint: Paint,
    redactor: &Redactor,
) -> Option<String> {
    let line = match event {
        AgentStreamEvent::RunCompleted {
            output,
            structured_output,
        } => {
            let answer = match structured_output {
                Some(value) => inline_json(value),
                None => output.replace('\n', " "),
            };
            format!(
                "  {} {}",
                paint.green("answered"),
                shorten(&redactor.text(&answer), LINE_CHARS - 12)
            )
        }
        AgentStreamEvent::Waiting { .. } => return None,
        other => event_line(other, paint, redactor)?,
    };
    let indent = "  ".repeat(agent.len());
    let label = paint.dim(&format!(
        "[{}]",
        shorten(&redactor.text(&agent_path(agent)), 40)
    ));
    Some(
        line.lines()
            .map(|line| format!("{indent}{label}{line}"))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// `… tool 2/3 message`: how far a running call is, as the tool reported it (not yet masked
/// or shortened).
pub(crate) fn progress_line(tool_name: &str, update: &ToolProgress) -> String {
    let mut line = format!("… {tool_name} {}", update.progress);
    if let Some(total) = update.total {
        line.push_str(&format!("/{total}"));
    }
    if let Some(message) = &update.message {
        line.push(' ');
        line.push_str(message);
    }
    line
}

fn plural(count: usize) -> &'static str {
    if count == 1 {
        ""
    } else {
        "s"
    }
}

/// What the model wrote before its tool calls, on one line: `  │ text`;
/// `None` when it wrote nothing.
pub fn said_line(text: &str, paint: Paint, redactor: &Redactor) -> Option<String> {
    let line = shorten(&redactor.text(text), LINE_CHARS - 4);
    (!line.is_empty()).then(|| format!("  {} {}", paint.dim("│"), line))
}

/// `  → name {arguments}` on one line of about [`LINE_CHARS`].
pub fn call_line(call: &ToolCallPart, paint: Paint, redactor: &Redactor) -> String {
    let name = shorten(&redactor.text(&call.name), 40);
    let arguments = match call.arguments.as_json() {
        Some(value) => inline_json(value),
        None => call.arguments.to_json().map_or_else(
            |_| "(arguments are not JSON)".to_string(),
            |value| inline_json(&value),
        ),
    };
    let arguments = redactor.text(&arguments);
    let room = LINE_CHARS.saturating_sub(name.chars().count() + 5).max(10);
    format!(
        "  {} {} {}",
        paint.cyan("→"),
        paint.bold(&name),
        paint.dim(&shorten(&arguments, room))
    )
}

/// What a return says in one line: the content of a success, the message
/// of an error, or the state of a call that waits.
pub fn return_line(part: &ToolReturnPart, paint: Paint, redactor: &Redactor) -> String {
    let name = shorten(&redactor.text(&part.tool_name), 40);
    let room = LINE_CHARS.saturating_sub(name.chars().count() + 8).max(10);
    let content = shorten(&redactor.text(&content_text(&part.content)), room);
    match part.kind {
        ToolReturnKind::Success => {
            format!("  {} {name}: {}", paint.green("✓"), paint.dim(&content))
        }
        ToolReturnKind::ApprovalRequired => {
            let words = Waits::of_return(part).map_or("waits for approval", Waits::words);
            format!("  {} {name} {words}", paint.yellow("?"))
        }
        ToolReturnKind::Deferred => {
            format!(
                "  {} {name} handed to an external worker",
                paint.yellow("…")
            )
        }
        ToolReturnKind::Feedback => format!("  {} {name}: {content}", paint.yellow("!")),
        _ => format!(
            "  {} {name} ({}): {content}",
            paint.red("✗"),
            kind_name(part.kind)
        ),
    }
}

fn kind_name(kind: ToolReturnKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|value| value.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{kind:?}"))
}

/// The readable part of a return's content: its text, or the `message` /
/// `error` text of an error object, or compact JSON.
fn content_text(content: &Value) -> String {
    for key in ["message", "error"] {
        if let Some(text) = content.get(key).and_then(Value::as_str) {
            return text.to_string();
        }
    }
    inline_json(content)
}

/// `requests 2 · tokens 120 in / 30 out · tool calls 3`.
pub fn usage_line(usage: &Usage, paint: Paint) -> String {
    paint.dim(&format!(
        "requests {} · tokens {} in / {} out · tool calls {}",
        usage.requests, usage.input_tokens, usage.output_tokens, usage.tool_calls
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use starweaver_core::model::ToolCallArguments;

    fn none() -> Redactor {
        Redactor::default()
    }

    fn part(kind: ToolReturnKind, content: Value) -> ToolReturnPart {
        ToolReturnPart {
            tool_call_id: "c1".into(),
            tool_name: "deploy".into(),
            content,
            kind,
            metadata: Default::default(),
            private_metadata: Default::default(),
        }
    }

    #[test]
    fn a_sub_agents_records_are_indented_under_its_path_and_its_wait_is_left_to_the_lead() {
        let nested = |agent: &[&str], event: AgentStreamEvent| AgentStreamEvent::SubAgent {
            agent: agent.iter().map(|name| name.to_string()).collect(),
            tool_call_id: "l2".into(),
            event: Box::new(event),
        };
        let call = ToolCallPart::new("d1", "deploy", json!({"env": "prod"}));
        let line = event_line(
            &nested(
                &["release", "deployer"],
                AgentStreamEvent::ToolCall { call },
            ),
            Paint::PLAIN,
            &none(),
        );
        assert_eq!(
            line.as_deref(),
            Some("    [release › deployer]  → deploy {\"env\":\"prod\"}")
        );
        let answered = event_line(
            &nested(
                &["release"],
                AgentStreamEvent::RunCompleted {
                    output: "Released.".into(),
                    structured_output: None,
                },
            ),
            Paint::PLAIN,
            &none(),
        );
        assert_eq!(answered.as_deref(), Some("  [release]  answered Released."));
        let waiting = nested(&["release"], AgentStreamEvent::Waiting { requests: vec![] });
        assert_eq!(event_line(&waiting, Paint::PLAIN, &none()), None);
    }

    #[test]
    fn a_model_adjustment_shows_each_notice_with_its_reason() {
        let event = AgentStreamEvent::Custom {
            event: starweaver_core::context::ContextEvent::new(
                ContextEventKind::ModelRequestAdjusted,
                serde_json::json!({"model": "openai:o3", "notices": [
                    {"kind": "setting_left_out", "subject": "temperature", "reason": "reasoning models accept only their default sampling"},
                    {"kind": "tool_left_out", "subject": "grab", "reason": "bad schema"},
                ]}),
            ),
        };
        let text = event_line(&event, Paint::PLAIN, &none()).unwrap_or_default();
        assert_eq!(
            text,
            "  ! setting left out `temperature`: reasoning models accept only their default sampling\n  ! tool left out `grab`: bad schema"
        );
    }

    #[test]
    fn a_call_is_one_short_line_with_its_arguments() {
        let call = ToolCallPart::new(
            "c1",
            "read_file",
            ToolCallArguments::Json(json!({"path": "src/lib.rs", "text": "x".repeat(300)})),
        );
        let line = call_line(&call, Paint::PLAIN, &none());
        assert!(
            line.starts_with("  → read_file {\"path\":\"src/lib.rs\""),
            "{line}"
        );
        assert!(line.chars().count() <= LINE_CHARS, "{line}");
        assert!(line.ends_with('…'));
    }

    #[test]
    fn returns_say_success_error_or_waiting() {
        let ok = return_line(
            &part(ToolReturnKind::Success, json!({"deployed": "api"})),
            Paint::PLAIN,
            &none(),
        );
        assert_eq!(ok, "  ✓ deploy: {\"deployed\":\"api\"}");
        let failed = return_line(
            &part(
                ToolReturnKind::ExecutionFailed,
                json!({"message": "disk\nfull"}),
            ),
            Paint::PLAIN,
            &none(),
        );
        assert_eq!(failed, "  ✗ deploy (execution_failed): disk full");
        let waiting = return_line(
            &part(ToolReturnKind::ApprovalRequired, json!("x")),
            Paint::PLAIN,
            &none(),
        );
        assert_eq!(waiting, "  ? deploy waits for approval");
    }

    #[test]
    fn progress_shows_how_far_on_one_clean_line() {
        let event = AgentStreamEvent::ToolProgress {
            tool_call_id: "c1".into(),
            tool_name: "index".into(),
            update: ToolProgress::new(2.0)
                .with_total(5.0)
                .with_message("reading\n\u{1b}[31mfiles"),
        };
        assert_eq!(
            event_line(&event, Paint::PLAIN, &none()).as_deref(),
            Some("  … index 2/5 reading ?[31mfiles")
        );
    }

    #[test]
    fn streamed_text_shows_as_one_line() {
        assert_eq!(
            said_line("Let me look\nat it.", Paint::PLAIN, &none()).as_deref(),
            Some("  │ Let me look at it.")
        );
        assert_eq!(said_line(" \n ", Paint::PLAIN, &none()), None);
    }

    #[test]
    fn steps_show_and_streamed_text_does_not() {
        let step = AgentStreamEvent::ModelRequest {
            step: 2,
            tools: vec!["a".into()],
        };
        assert_eq!(
            event_line(&step, Paint::PLAIN, &none()).as_deref(),
            Some("step 2 · model request (1 tools)")
        );
        let delta = AgentStreamEvent::TextDelta { delta: "hi".into() };
        assert_eq!(event_line(&delta, Paint::PLAIN, &none()), None);
    }

    #[test]
    fn plain_lines_carry_no_escapes_even_from_hostile_text() {
        let hostile = part(ToolReturnKind::Success, json!("\u{1b}[31mred\u{1b}[0m"));
        assert!(!return_line(&hostile, Paint::PLAIN, &none()).contains('\u{1b}'));
        let usage = Usage {
            requests: 2,
            input_tokens: 10,
            output_tokens: 5,
            tool_calls: 1,
        };
        assert_eq!(
            usage_line(&usage, Paint::PLAIN),
            "requests 2 · tokens 10 in / 5 out · tool calls 1"
        );
        assert!(usage_line(&usage, Paint { color: true }).contains('\u{1b}'));
    }

    #[test]
    fn a_secret_cut_by_the_line_length_is_masked_before_the_cut() {
        let secret = "sk-live-0123456789abcdef";
        let vars = std::collections::BTreeMap::from([("api_key".to_string(), secret.to_string())]);
        let redactor = Redactor::for_vars(&vars);
        let text = format!("{}{secret}", "x".repeat(LINE_CHARS - 30));
        let call = ToolCallPart::new("c1", "fetch", ToolCallArguments::Json(json!({"t": text})));
        let line = call_line(&call, Paint::PLAIN, &redactor);
        assert!(!line.contains("sk-live"), "{line}");
        assert!(line.contains("***"), "{line}");
        let returned = return_line(
            &part(ToolReturnKind::Success, json!(text)),
            Paint::PLAIN,
            &redactor,
        );
        assert!(
            !returned.contains("sk-live") && returned.contains("***"),
            "{returned}"
        );
        let said = said_line(&text, Paint::PLAIN, &redactor).unwrap_or_default();
        assert!(!said.contains("sk-live") && said.contains("***"), "{said}");
    }
}

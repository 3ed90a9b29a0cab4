//! Traces: the runtime describes each run, model request and tool call as a `tracing` span
//! named and attributed after the OpenTelemetry GenAI conventions (`invoke_agent <agent>`,
//! `chat <model>`, `execute_tool <tool>`, with `gen_ai.*` attributes). The core only emits
//! them: with no subscriber they cost a check per span; a subscriber (the `starweaver-trace`
//! exporter, or a host's own) decides where they go.
//!
//! Content (prompts, messages, tool arguments and results, shell programs) is recorded only
//! when capture is switched on ([`set_content_capture`]), and then bounded to
//! [`MAX_CONTENT_CHARS`]; exporters mask secrets in what they send.

use std::sync::atomic::{AtomicBool, Ordering};

/// The variable the GenAI conventions name for content capture: `true` switches it on (the
/// command line reads it; a library host calls [`set_content_capture`]).
pub const CONTENT_CAPTURE_VARIABLE: &str = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

/// Characters of one content attribute kept; the rest is cut, so one span never carries an
/// unbounded prompt or result.
pub const MAX_CONTENT_CHARS: usize = 8 * 1024;

/// The tracing target of every span and event the runtime emits, for filters.
pub const TRACE_TARGET: &str = "starweaver";

/// Whether spans record content; off until a host switches it on.
static CONTENT_CAPTURE: AtomicBool = AtomicBool::new(false);

/// Switches content capture on or off for the whole process: prompts, messages, tool
/// arguments and results and shell programs are then recorded in spans (bounded).
pub fn set_content_capture(on: bool) {
    CONTENT_CAPTURE.store(on, Ordering::Relaxed);
}

/// Whether spans record content.
#[must_use]
pub fn content_capture() -> bool {
    CONTENT_CAPTURE.load(Ordering::Relaxed)
}

/// Whether any `tracing` subscriber was ever installed in this process, globally or for a
/// scope. Until one is, a span is [`tracing::Span::none`] without building its attributes: a
/// run nobody traces pays one load per span (the `tracing` crate's own check would still
/// evaluate the attributes for its `log` fallback).
pub(crate) fn traced() -> bool {
    tracing::dispatcher::has_been_set()
}

/// `value` as a content attribute: its JSON, cut to [`MAX_CONTENT_CHARS`] characters.
pub(crate) fn content(value: &impl serde::Serialize) -> String {
    let mut text = match serde_json::to_value(value) {
        Ok(serde_json::Value::String(text)) => text,
        Ok(other) => other.to_string(),
        Err(error) => format!("(not serializable: {error})"),
    };
    if let Some((cut, _)) = text.char_indices().nth(MAX_CONTENT_CHARS) {
        text.truncate(cut);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_is_cut_to_its_bound_and_strings_are_not_quoted() {
        assert_eq!(content(&"plain"), "plain");
        assert_eq!(content(&serde_json::json!({"a": 1})), r#"{"a":1}"#);
        let long = "é".repeat(MAX_CONTENT_CHARS + 10);
        assert_eq!(content(&long).chars().count(), MAX_CONTENT_CHARS);
    }
}

//! The test model's answer: a header naming the prompt, then one line per
//! call saying what came back, and one per tool left out saying why.
//!
//! ```text
//! Called 3 tool(s) for "Where is the manifest loader?":
//! - grep: 12 matches, first starweaver-config/src/load/mod.rs:3
//! - shell_exec: exit_code 0, stdout "manifest loader"
//! - read_file: starweaver-config/src/load/mod.rs, 120 lines
//! ```

use serde_json::{Map, Value};

use super::fields::Need;
use super::history::{Call, History, Outcome};
use crate::bounds::shorten_chars;
use crate::model::ToolReturnKind;

/// Longest line of the answer, in characters.
const MAX_LINE_CHARS: usize = 160;
/// Longest quoted excerpt (a message, an output line), in characters.
const MAX_EXCERPT_CHARS: usize = 80;
/// Longest prompt quoted in the header, in characters.
const MAX_PROMPT_CHARS: usize = 80;
/// Names listed for a listing or a search.
const MAX_NAMES: usize = 5;

/// The final answer.
pub(super) fn answer(history: &History, skipped: &[(String, Need)]) -> String {
    // One line: whitespace collapsed, then shortened.
    let collapsed = history
        .prompt
        .split_whitespace()
        .take(64)
        .collect::<Vec<_>>()
        .join(" ");
    let prompt = shorten_chars(&collapsed, MAX_PROMPT_CHARS);
    if history.calls.is_empty() && skipped.is_empty() {
        return format!("test model reply to: {prompt}");
    }
    let mut lines = vec![format!(
        "Called {} tool(s) for \"{prompt}\":",
        history.calls.len()
    )];
    for call in &history.calls {
        let line = format!("- {}: {}", label(call), outcome(call));
        lines.push(shorten_chars(&line, MAX_LINE_CHARS).into_owned());
    }
    for (tool, need) in skipped {
        let line = format!("- {tool}: not called, {}", need.reason());
        lines.push(shorten_chars(&line, MAX_LINE_CHARS).into_owned());
    }
    lines.join("\n")
}

/// `grep`, or `call_tool(grep)` for a proxied call.
fn label(call: &Call) -> String {
    match &call.inner {
        Some(inner) => format!("{}({inner})", call.tool),
        None => call.tool.clone(),
    }
}

fn outcome(call: &Call) -> String {
    match &call.outcome {
        None => "no result yet".to_string(),
        Some(Outcome::Retry(text)) => format!("failed, {}", excerpt(text)),
        Some(Outcome::Returned { kind, content }) => match kind {
            ToolReturnKind::Success | ToolReturnKind::Feedback => match refusal(content) {
                Some(kind) => format!("failed ({kind}), {}", message(content)),
                None => describe(content),
            },
            ToolReturnKind::ApprovalRequired => "waiting for approval".to_string(),
            ToolReturnKind::Deferred => "deferred to the host".to_string(),
            other => format!("failed ({}), {}", other.as_str(), message(content)),
        },
    }
}

/// The error kind of a return that reports a failure as feedback
/// (`"success": false`, such as a command the shell policy refused).
fn refusal(content: &Value) -> Option<&str> {
    (content.get("success") == Some(&Value::Bool(false))).then(|| {
        content
            .get("error_kind")
            .and_then(Value::as_str)
            .unwrap_or("feedback")
    })
}

/// An error's text: the string itself or its `message`/`error` field.
fn message(content: &Value) -> String {
    match content {
        Value::String(text) => excerpt(text),
        Value::Object(map) => ["message", "error", "reason"]
            .iter()
            .find_map(|key| map.get(*key).and_then(Value::as_str))
            .map_or_else(|| compact(content), excerpt),
        other => compact(other),
    }
}

/// The first non-empty line of `text`, shortened.
fn excerpt(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or_default();
    shorten_chars(line, MAX_EXCERPT_CHARS).into_owned()
}

/// Compact JSON, shortened.
fn compact(value: &Value) -> String {
    shorten_chars(&value.to_string(), MAX_EXCERPT_CHARS).into_owned()
}

/// Up to five names, then `…`.
fn names<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let mut listed: Vec<&str> = Vec::new();
    let mut more = false;
    for name in names {
        if listed.len() == MAX_NAMES {
            more = true;
            break;
        }
        listed.push(name);
    }
    let mut text = listed.join(", ");
    if more {
        text.push_str(", …");
    }
    text
}

fn count(map: &Map<String, Value>, key: &str, items: &[Value]) -> u64 {
    map.get(key)
        .and_then(Value::as_u64)
        .unwrap_or(items.len() as u64)
}

/// What a successful return holds, in a few words: matches, entries,
/// files, processes, a file's lines, a command's exit code and output, tools found,
/// bytes written; else its JSON, shortened.
fn describe(content: &Value) -> String {
    let Value::Object(map) = content else {
        return match content {
            Value::String(text) => excerpt(text),
            other => compact(other),
        };
    };
    let text = |key: &str| map.get(key).and_then(Value::as_str);
    let list = |key: &str| map.get(key).and_then(Value::as_array);
    if let Some(matches) = list("matches") {
        let total = count(map, "count", matches);
        let first = matches.first().and_then(|first| {
            let path = first.get("path").and_then(Value::as_str)?;
            Some(match first.get("line_number").and_then(Value::as_u64) {
                Some(line) => format!("{path}:{line}"),
                None => path.to_string(),
            })
        });
        return match (total, first) {
            (0, _) => "no matches".to_string(),
            (total, Some(first)) => format!("{total} match(es), first {first}"),
            (total, None) => format!(
                "{total} match(es): {}",
                names(matches.iter().filter_map(|item| item.get("name")?.as_str()))
            ),
        };
    }
    if let Some(entries) = list("entries") {
        let total = count(map, "total", entries);
        if total == 0 {
            return "no entries".to_string();
        }
        let listed = names(
            entries
                .iter()
                .filter_map(|entry| entry.get("name")?.as_str()),
        );
        return format!("{total} entries: {listed}");
    }
    if let Some(files) = list("files") {
        let total = count(map, "count", files);
        if total == 0 {
            return "no files".to_string();
        }
        return format!(
            "{total} file(s): {}",
            names(files.iter().filter_map(Value::as_str))
        );
    }
    if let Some(processes) = list("processes") {
        return format!("{} process(es)", count(map, "count", processes));
    }
    if let Some(tools) = list("tools") {
        return format!(
            "{} tool(s) found: {}",
            tools.len(),
            names(tools.iter().filter_map(|tool| tool.get("name")?.as_str()))
        );
    }
    if let Some(loaded) = list("loaded_tools") {
        return format!(
            "{} tool(s) loaded: {}",
            loaded.len(),
            names(loaded.iter().filter_map(Value::as_str))
        );
    }
    if let Some(questions) = list("answers") {
        return answered(questions, text("response"));
    }
    if let Some(exit_code) = map.get("exit_code") {
        let mut summary = format!("exit_code {exit_code}");
        for stream in ["stdout", "stderr"] {
            let output = excerpt(text(stream).unwrap_or_default());
            if !output.is_empty() {
                summary.push_str(&format!(", {stream} \"{output}\""));
            }
        }
        return summary;
    }
    if let (Some(path), Some(bytes)) = (text("path"), map.get("bytes_written")) {
        return format!("wrote {path} ({bytes} bytes)");
    }
    if let (Some(path), Some(replacements)) = (text("path"), map.get("replacements")) {
        return format!("{replacements} replacement(s) in {path}");
    }
    if let (Some(path), Some(content)) = (text("path"), text("content")) {
        let lines = map
            .get("total_lines")
            .and_then(Value::as_u64)
            .unwrap_or(content.lines().count() as u64);
        return format!("{path}, {lines} line(s): \"{}\"", excerpt(content));
    }
    if let Some(status) = text("status") {
        return format!("status {status}");
    }
    compact(content)
}

/// What a person answered to clarifying questions: each answer (or that none was given) and
/// the free-text response, so a run's answer shows what was said rather than the question's
/// echo.
fn answered(questions: &[Value], response: Option<&str>) -> String {
    let answers: Vec<String> = questions
        .iter()
        .map(|item| match item.get("answer") {
            Some(Value::String(answer)) => format!("\"{}\"", excerpt(answer)),
            Some(Value::Null) | None => "no answer".to_string(),
            Some(other) => compact(other),
        })
        .collect();
    let mut summary = format!("answered {}", answers.join(", "));
    if let Some(response) = response.filter(|text| !text.is_empty()) {
        summary.push_str(&format!(", response \"{}\"", excerpt(response)));
    }
    summary
}

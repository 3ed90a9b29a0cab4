//! `--format json`: one array of flat diagnostic objects, positions 1-based, for scripts.

use serde_json::{json, Value};

use super::FileReport;

/// The diagnostics of every file as one JSON array of
/// `{file, line, column, end_line, end_column, severity, rule, message, help, notes}` objects
/// (`help` is `null` when there is none; `notes`, the follow-on problems folded into this one,
/// is an array, empty for most).
#[must_use]
pub fn render(reports: &[FileReport]) -> String {
    let mut text = serde_json::to_string_pretty(&to_value(reports)).unwrap_or_default();
    text.push('\n');
    text
}

/// The array [`render`] prints, for callers that want the value.
#[must_use]
pub fn to_value(reports: &[FileReport]) -> Value {
    let items = reports
        .iter()
        .flat_map(|report| {
            report.diagnostics.iter().map(|d| {
                json!({
                    "file": report.path,
                    "line": d.span.start.line,
                    "column": d.span.start.column,
                    "end_line": d.span.end.line,
                    "end_column": d.span.end.column,
                    "severity": d.severity.as_str(),
                    "rule": d.rule.as_str(),
                    "message": d.message,
                    "help": d.help,
                    "notes": d.notes,
                })
            })
        })
        .collect();
    Value::Array(items)
}

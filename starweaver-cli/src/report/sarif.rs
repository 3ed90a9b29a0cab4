//! `--format sarif`: a SARIF 2.1.0 log, the format code-scanning services import.

use serde_json::{json, Value};

use super::FileReport;
use starweaver_config::diagnostics::{Rule, Severity};

/// The SARIF schema the log declares.
pub const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// One SARIF log with a single run: every rule as a `rules` entry (its `id` is the rule's stable
/// name) and one result per diagnostic.
#[must_use]
pub fn render(reports: &[FileReport]) -> String {
    let mut text = serde_json::to_string_pretty(&to_value(reports)).unwrap_or_default();
    text.push('\n');
    text
}

/// The log [`render`] prints, for callers that want the value.
#[must_use]
pub fn to_value(reports: &[FileReport]) -> Value {
    let rules: Vec<Value> = Rule::ALL
        .iter()
        .map(|rule| json!({"id": rule.as_str(), "name": rule.as_str()}))
        .collect();
    let results: Vec<Value> = reports
        .iter()
        .flat_map(|report| {
            report.diagnostics.iter().map(|d| {
                let text = d.full_text();
                let index = Rule::ALL.iter().position(|rule| *rule == d.rule);
                json!({
                    "ruleId": d.rule.as_str(),
                    "ruleIndex": index,
                    "level": match d.severity {
                        Severity::Error => "error",
                        Severity::Warning => "warning",
                    },
                    "message": {"text": text},
                    "locations": [{
                        "physicalLocation": {
                            "artifactLocation": {"uri": uri(&report.path)},
                            "region": {
                                "startLine": d.span.start.line,
                                "startColumn": d.span.start.column,
                                "endLine": d.span.end.line,
                                "endColumn": d.span.end.column,
                            }
                        }
                    }]
                })
            })
        })
        .collect();
    json!({
        "version": "2.1.0",
        "$schema": SCHEMA,
        "runs": [{
            "tool": {"driver": {
                "name": "starweaver",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

/// A relative URI reference for a path: forward slashes, and the characters URIs reserve
/// percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.replace('\\', "/").bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(char::from(byte));
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_encode_reserved_characters() {
        assert_eq!(uri("agents/my agent.yaml"), "agents/my%20agent.yaml");
        assert_eq!(uri("a\\b#c.yml"), "a/b%23c.yml");
    }
}

//! The provider response fixtures under `tests/fixtures/providers/`, and
//! the SSE splitting the server and the tests share.

use std::path::PathBuf;

use serde_json::Value;

/// The path of fixture `name` of `provider` (`openai`, `anthropic`).
pub fn fixture_path(provider: &str, name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/providers")
        .join(provider)
        .join(name)
}

/// The text of fixture `name` of `provider`; panics naming the file when
/// it cannot be read.
pub fn fixture(provider: &str, name: &str) -> String {
    let path = fixture_path(provider, name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read fixture {}: {error}", path.display()))
}

/// Fixture `name` of `provider` parsed as JSON; panics naming the file
/// when it is not JSON.
pub fn fixture_json(provider: &str, name: &str) -> Value {
    let text = fixture(provider, name);
    serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("fixture {provider}/{name} is not JSON: {error}"))
}

/// The events of raw SSE `text`, each with the blank line that ends it,
/// so that concatenating them gives `text` back; a last event without its
/// blank line (a cut stream) is kept as it is.
pub fn sse_events(text: &str) -> Vec<String> {
    let mut events = Vec::new();
    let mut rest = text;
    while let Some(end) = rest.find("\n\n") {
        events.push(rest[..end + 2].to_string());
        rest = &rest[end + 2..];
    }
    if !rest.is_empty() {
        events.push(rest.to_string());
    }
    events
}

/// The `data` of each event of `text`, in order: the values of its
/// `data:` lines joined with newlines (the one leading space after the
/// colon dropped); events without data are skipped.
pub fn sse_data(text: &str) -> Vec<String> {
    sse_events(text)
        .iter()
        .filter_map(|event| {
            let lines: Vec<&str> = event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|value| value.strip_prefix(' ').unwrap_or(value))
                .collect();
            (!lines.is_empty()).then(|| lines.join("\n"))
        })
        .collect()
}

/// The `event:` name of each event of `text` that has one, in order.
pub fn sse_names(text: &str) -> Vec<String> {
    sse_events(text)
        .iter()
        .filter_map(|event| {
            event
                .lines()
                .find_map(|line| line.strip_prefix("event:"))
                .map(|name| name.trim().to_string())
        })
        .collect()
}

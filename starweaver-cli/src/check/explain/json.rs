//! `--explain --format json`: the facts as one pretty-printed object.

use super::facts::{Explanation, Explanations, EXPLAIN_FORMAT_VERSION};

/// `{"version": 1, "agents": [...]}` with a trailing newline.
#[must_use]
pub(super) fn render(agents: Vec<Explanation>) -> String {
    let all = Explanations {
        version: EXPLAIN_FORMAT_VERSION,
        agents,
    };
    let mut text = serde_json::to_string_pretty(&all).unwrap_or_default();
    text.push('\n');
    text
}

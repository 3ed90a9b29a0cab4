//! `invalid-value` inside the values the schema leaves free (`vars`, `model.settings`): they may
//! hold any YAML, but the agent receives them as JSON, which has no `.inf`, no `.nan` and only
//! string keys. Elsewhere the schema's types already refuse such values.

use crate::diagnostics::Diagnostic;
use crate::validate::json::json_problems;
use crate::yaml::Node;

/// Every value JSON cannot hold under `vars` and `model.settings`.
pub(super) fn check(root: &Node) -> Vec<Diagnostic> {
    let settings = root.get("model").and_then(|model| model.get("settings"));
    [root.get("vars"), settings]
        .into_iter()
        .flatten()
        .flat_map(json_problems)
        .collect()
}

//! `unknown-model`: a `model.id` no provider of this build recognises.

use super::CheckContext;
use crate::diagnostics::{Diagnostic, Rule};
use crate::yaml::{Node, Value};

/// The model ids this build can run.
const KNOWN: [&str; 1] = ["test"];

/// Every problem of `model:`: an unknown id, settings the `test` model cannot use, and
/// settings of the wrong kind.
pub(super) fn check(root: &Node, context: &CheckContext) -> Vec<Diagnostic> {
    let Some(model) = root.get("model") else {
        return Vec::new();
    };
    let mut found: Vec<Diagnostic> = unknown(model, context).into_iter().collect();
    if model.get("id").and_then(Node::as_str) == Some("test") {
        for key in ["base_url", "api_key_env"] {
            if let Some((key_node, value)) = model.entry(key) {
                if !matches!(value.value, Value::Null) {
                    found.push(
                        Diagnostic::error(
                            Rule::InvalidValue,
                            key_node.span,
                            format!(
                                "`{key}` cannot apply: the `test` model makes no network requests"
                            ),
                        )
                        .with_help(format!(
                            "remove `{key}`, or name a provider's model in `id`"
                        )),
                    );
                }
            }
        }
    }
    found.extend(settings(model));
    found
}

/// The kinds of value the typed settings take; other settings pass to the model as given.
fn settings(model: &Node) -> Vec<Diagnostic> {
    let entries = model
        .get("settings")
        .and_then(Node::as_mapping)
        .unwrap_or_default();
    let mut found = Vec::new();
    for (key, value) in entries {
        let Some(name) = key.as_str() else { continue };
        let (fits, expected) = match name {
            "temperature" | "top_p" => (
                matches!(value.value, Value::Int(_) | Value::Float(_)),
                "a number",
            ),
            "max_tokens" => (
                matches!(value.value, Value::Int(number) if number >= 1),
                "a whole number, 1 or more",
            ),
            "stop" => (
                match &value.value {
                    Value::String { .. } => true,
                    Value::Sequence(items) => items
                        .iter()
                        .all(|item| matches!(item.value, Value::String { .. })),
                    _ => false,
                },
                "a string or a list of strings",
            ),
            _ => continue,
        };
        if !fits {
            found.push(
                Diagnostic::error(
                    Rule::InvalidValue,
                    value.span,
                    format!("`model.settings.{name}` must be {expected}"),
                )
                .with_help(format!("write {expected} here")),
            );
        }
    }
    found
}

/// An error at `model.id` when it is a string other than a known id.
fn unknown(model: &Node, context: &CheckContext) -> Option<Diagnostic> {
    let id = model.get("id")?;
    let text = id.as_str()?;
    if KNOWN.contains(&text) || context.model_ids().contains(text) {
        return None;
    }
    let mut known: Vec<&str> = KNOWN.to_vec();
    known.extend(context.model_ids().iter().map(String::as_str));
    let provider = text
        .split_once(':')
        .map(|(provider, _)| provider)
        .filter(|provider| matches!(*provider, "openai" | "anthropic"));
    let message = match provider {
        Some(provider) => format!(
            "model `{}`: the `{provider}:` provider is not available yet",
            short(text)
        ),
        None => format!("unknown model `{}`", short(text)),
    };
    Some(
        Diagnostic::error(Rule::UnknownModel, id.span, message).with_help(format!(
            "the known model ids are {}",
            super::super::suggest::list(&known)
        )),
    )
}

/// At most 64 characters of a name, so a huge value keeps the message short.
pub(super) fn short(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(64).collect();
    if chars.next().is_some() {
        format!("{head}...")
    } else {
        head
    }
}

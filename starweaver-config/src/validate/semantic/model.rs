//! `model:`: an id no provider recognises, client keys on the `test` or `script` model, a base
//! URL that is not one, settings of the wrong kind or that the provider does not have, and a
//! key variable that is not set.

use starweaver_core::model::{check_base_url, ProviderKind};

use super::CheckContext;
use crate::diagnostics::{Diagnostic, Rule};
use crate::manifest::ModelSpec;
use crate::yaml::{Node, Value};

/// Every problem of `model:`.
pub(super) fn check(root: &Node, context: &CheckContext) -> Vec<Diagnostic> {
    let Some(model) = root.get("model") else {
        return Vec::new();
    };
    let mut found: Vec<Diagnostic> = unknown(model, context).into_iter().collect();
    let id = model.get("id").and_then(Node::as_str);
    let provider = id
        .and_then(ProviderKind::from_model_id)
        .map(|(kind, _)| kind);
    if let Some(offline @ ("test" | "script")) = id {
        for key in ModelSpec::CLIENT_KEYS {
            if let Some((key_node, value)) = model.entry(key) {
                if !matches!(value.value, Value::Null) {
                    found.push(
                        Diagnostic::error(
                            Rule::InvalidValue,
                            key_node.span,
                            format!(
                                "`{key}` cannot apply: the `{offline}` model makes no network requests"
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
    if let Some(url) = model.get("base_url") {
        if let Some(text) = url.as_str() {
            if let Err(reason) = check_base_url(text) {
                found.push(
                    Diagnostic::error(
                        Rule::InvalidValue,
                        url.span,
                        format!("`model.base_url` is not a usable URL: {reason}"),
                    )
                    .with_help("write the URL up to the API's version path, such as `http://localhost:11434/v1`"),
                );
            }
        }
    }
    found.extend(settings(model, provider));
    if let Some(kind) = provider.filter(|kind| crate::providers::is_built(*kind)) {
        found.extend(api_key(model, kind, context));
    }
    found
}

/// A warning when the key variable is not set here: the run would fail at its first request.
fn api_key(model: &Node, kind: ProviderKind, context: &CheckContext) -> Option<Diagnostic> {
    let named = model.get("api_key_env");
    let variable = named
        .and_then(Node::as_str)
        .unwrap_or(kind.default_api_key_variable());
    if context.has_variable(variable) {
        return None;
    }
    let span = named.or_else(|| model.get("id")).map(|node| node.span)?;
    Some(
        Diagnostic::warning(
            Rule::MissingApiKey,
            span,
            format!(
                "the API key variable `{}` is not set here; a run would fail at its first request",
                short(variable)
            ),
        )
        .with_help(format!(
            "export `{}` before `starweaver run`, or name the variable that holds the key in `model.api_key_env`",
            short(variable)
        )),
    )
}

/// The kinds of value the typed settings take, and settings the provider does not have.
fn settings(model: &Node, provider: Option<ProviderKind>) -> Vec<Diagnostic> {
    let entries = model
        .get("settings")
        .and_then(Node::as_mapping)
        .unwrap_or_default();
    let mut found = Vec::new();
    for (key, value) in entries {
        let Some(name) = key.as_str() else { continue };
        if let Some(kind) = provider {
            if !kind.takes_setting(name) {
                found.push(
                    Diagnostic::error(
                        Rule::UnknownField,
                        key.span,
                        format!(
                            "`model.settings.{}` is not a setting of {}",
                            short(name),
                            kind.display_name()
                        ),
                    )
                    .with_help(format!(
                        "remove it; the `{}:` provider takes {}",
                        kind.prefix(),
                        super::super::suggest::list(&kind.settings())
                    )),
                );
                continue;
            }
        }
        let (fits, expected) = match name {
            "temperature" | "top_p" => (
                matches!(value.value, Value::Int(_) | Value::Float(_)),
                "a number",
            ),
            "max_tokens" => (
                matches!(value.value, Value::Int(number) if number >= 1),
                "a whole number, 1 or more",
            ),
            "seed" => (matches!(value.value, Value::Int(_)), "a whole number"),
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

/// An error at `model.id` when it is a string no provider of this build runs.
fn unknown(model: &Node, context: &CheckContext) -> Option<Diagnostic> {
    let id = model.get("id")?;
    let text = id.as_str()?;
    if text == "test" || text == "script" || context.model_ids().contains(text) {
        return None;
    }
    let message = match ProviderKind::from_model_id(text) {
        Some((kind, _)) if crate::providers::is_built(kind) => return None,
        Some((kind, _)) => format!(
            "model `{}`: this build was made without the `{}` feature, so it cannot run `{}:` models",
            short(text),
            kind.feature(),
            kind.prefix()
        ),
        None => match text.split_once(':') {
            Some((prefix, rest))
                if ProviderKind::ALL.iter().any(|kind| kind.prefix() == prefix)
                    && rest.trim().is_empty() =>
            {
                format!("model `{}` names no model after `{prefix}:`", short(text))
            }
            _ => format!("unknown model `{}`", short(text)),
        },
    };
    let mut known: Vec<String> = vec!["test".to_string(), "script".to_string()];
    known.extend(
        ProviderKind::ALL
            .iter()
            .map(|kind| format!("{}:<model>", kind.prefix())),
    );
    known.extend(context.model_ids().iter().cloned());
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
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

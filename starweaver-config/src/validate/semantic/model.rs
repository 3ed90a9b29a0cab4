//! `unknown-model`: a `model.id` no provider of this build recognises.

use super::CheckContext;
use crate::diagnostics::{Diagnostic, Rule};
use crate::yaml::Node;

/// The model ids this build can run.
const KNOWN: [&str; 1] = ["test"];

/// An error at `model.id` when it is a string other than a known id.
pub(super) fn check(root: &Node, context: &CheckContext) -> Option<Diagnostic> {
    let id = root.get("model")?.get("id")?;
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

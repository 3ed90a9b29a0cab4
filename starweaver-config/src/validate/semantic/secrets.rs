//! `undefined-variable` in `secret_vars`: a secret that names no variable would mask nothing, so
//! a typo there would leave the real variable's value in the output.

use super::model::short;
use super::toolsets::strings;
use crate::diagnostics::{Diagnostic, Rule};
use crate::validate::suggest;
use crate::yaml::Node;

/// Every `secret_vars` entry that `vars` does not declare.
pub(super) fn check(root: &Node) -> Vec<Diagnostic> {
    let declared: Vec<&str> = root
        .get("vars")
        .and_then(Node::as_mapping)
        .unwrap_or_default()
        .iter()
        .filter_map(|(key, _)| key.as_str())
        .collect();
    strings(root.get("secret_vars"))
        .into_iter()
        .filter(|name| !declared.contains(&name.text))
        .map(|name| {
            Diagnostic::error(
                Rule::UndefinedVariable,
                name.span,
                format!(
                    "`secret_vars` names `{}`, which `vars` does not declare",
                    short(name.text)
                ),
            )
            .with_help(suggest::help(name.text, &declared, "variables"))
        })
        .collect()
}

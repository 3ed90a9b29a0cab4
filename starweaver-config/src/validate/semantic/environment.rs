//! The environment a manifest's settings need: filesystem and shell toolsets, `shell:` and
//! `skills:` act on an environment and are refused without one (`missing-field`); a virtual
//! environment has no folder (`invalid-value` on `root`); a local root must be a folder when the
//! checker knows the manifest's folder.

use super::model::short;
use super::toolsets::Entry;
use super::CheckContext;
use crate::diagnostics::{Diagnostic, Rule};
use crate::paths::environment_root;
use crate::yaml::{Node, Value};

/// The environment's kind as written, when it is one the format knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// `type: local` (also the default when `type:` is absent).
    Local,
    /// `type: virtual`.
    Virtual,
}

/// `environment.type`, read leniently: `None` when there is no environment section or the
/// type is not one the structure pass accepts.
pub(super) fn kind(root: &Node) -> Option<Kind> {
    let environment = root.get("environment")?;
    environment.as_mapping()?;
    match environment.get("type").map(|node| &node.value) {
        None | Some(Value::Null) => Some(Kind::Local),
        Some(_) => match environment.get("type").and_then(Node::as_str)? {
            "local" => Some(Kind::Local),
            "virtual" => Some(Kind::Virtual),
            _ => None,
        },
    }
}

/// `environment.root` as a string, when given.
pub(super) fn root_text(root: &Node) -> Option<&str> {
    root.get("environment")?.get("root")?.as_str()
}

/// Every problem of the environment and of the settings that need it.
pub(super) fn check(root: &Node, entries: &[Entry<'_>], context: &CheckContext) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let Some(environment) = root.get("environment") else {
        // One missing section, one error: the other settings that need it are its notes.
        let mut needs = needing(root, entries).into_iter();
        if let Some((span, what)) = needs.next() {
            let mut diagnostic = Diagnostic::error(
                Rule::MissingField,
                span,
                format!("{what} needs an `environment:` section, and there is none"),
            )
            .with_help(
                "add `environment: {type: local, root: .}` (a folder, relative to the manifest) \
                 or `environment: {type: virtual}` (in memory, starts empty)",
            );
            for (span, what) in needs {
                diagnostic =
                    diagnostic.with_note(format!("{what} (line {}) needs it too", span.start.line));
            }
            found.push(diagnostic);
        }
        return found;
    };
    match kind(root) {
        Some(Kind::Virtual) => {
            if let Some((key, value)) = environment.entry("root") {
                if !matches!(value.value, Value::Null) {
                    found.push(
                        Diagnostic::error(
                            Rule::InvalidValue,
                            key.span,
                            "a virtual environment starts empty and has no folder, so `root` \
                             cannot apply",
                        )
                        .with_help("remove `root`, or use `type: local` to work in a folder"),
                    );
                }
            }
        }
        Some(Kind::Local) => {
            if let Some(base) = context.base_dir() {
                let text = root_text(root);
                let folder = environment_root(base, text);
                if !folder.is_dir() {
                    let span = environment
                        .get("root")
                        .map_or(environment.span, |node| node.span);
                    found.push(
                        Diagnostic::error(
                            Rule::InvalidValue,
                            span,
                            format!(
                                "environment root `{}` is not a folder (looked for `{}`)",
                                short(text.unwrap_or(".")),
                                folder.display()
                            ),
                        )
                        .with_help(
                            "point `root` at an existing folder, relative to the manifest's folder",
                        ),
                    );
                }
            }
        }
        None => {}
    }
    found
}

/// The settings that act on an environment, each with where it is and how to name it.
fn needing(root: &Node, entries: &[Entry<'_>]) -> Vec<(crate::yaml::Span, String)> {
    let mut needs = Vec::new();
    for key in ["shell", "skills"] {
        if let Some((key_node, value)) = root.entry(key) {
            if !matches!(value.value, Value::Null) {
                needs.push((key_node.span, format!("`{key}:`")));
            }
        }
    }
    for entry in entries {
        if matches!(entry.kind, "filesystem" | "shell") {
            needs.push((entry.kind_span, format!("a `type: {}` toolset", entry.kind)));
        }
    }
    needs
}

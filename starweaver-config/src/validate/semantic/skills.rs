//! `path-escape` and `skill-scope`: a scope folder must stay inside the manifest's folder, and
//! must exist when the checker knows where the manifest is.

use std::path::{Component, Path};

use super::model::short;
use super::CheckContext;
use crate::diagnostics::{Diagnostic, Rule};
use crate::yaml::Node;

/// Every scope path that climbs out of the folder, or names no folder.
pub(super) fn check(root: &Node, context: &CheckContext) -> Vec<Diagnostic> {
    let scopes = root
        .get("skills")
        .and_then(|skills| skills.get("scopes"))
        .and_then(Node::as_sequence)
        .unwrap_or_default();
    let mut found = Vec::new();
    for path in scopes.iter().filter_map(|scope| scope.get("path")) {
        let Some(text) = path.as_str() else { continue };
        if escapes(text) {
            found.push(
                Diagnostic::error(
                    Rule::PathEscape,
                    path.span,
                    format!("skill scope `{}` leaves the manifest's folder", short(text)),
                )
                .with_help(
                    "use a folder inside the project, relative to it (`.` is the folder itself)",
                ),
            );
        } else if let Some(base) = context.base_dir() {
            if !base.join(text).is_dir() {
                found.push(
                    Diagnostic::error(
                        Rule::SkillScope,
                        path.span,
                        format!("skill scope `{}` is not a folder", short(text)),
                    )
                    .with_help("create the folder, or fix the path (it is relative to the manifest's folder)"),
                );
            }
        }
    }
    found
}

/// Whether the path is absolute or its `..` parts climb above where it starts.
fn escapes(text: &str) -> bool {
    let mut depth: usize = 0;
    for component in Path::new(text).components() {
        match component {
            Component::Prefix(_) | Component::RootDir => return true,
            Component::CurDir => {}
            Component::ParentDir => match depth.checked_sub(1) {
                Some(up) => depth = up,
                None => return true,
            },
            Component::Normal(_) => depth += 1,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::escapes;

    #[test]
    fn only_paths_above_the_start_escape() {
        assert!(!escapes("."));
        assert!(!escapes("skills/../other"));
        assert!(escapes(".."));
        assert!(escapes("a/../../b"));
        assert!(escapes("/etc"));
    }
}

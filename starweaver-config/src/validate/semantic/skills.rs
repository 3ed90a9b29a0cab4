//! `path-escape` and `skill-scope`: a scope folder must stay inside the manifest's folder, exist,
//! lie inside the environment's root (the agent reads skills through it) and hold readable
//! SKILL.md files. The last three need the manifest's folder, so they run only when the checker
//! knows it.

use std::path::{Component, Path};

use super::environment::{kind, root_text, Kind};
use super::model::short;
use super::skill_files::{scan, Resolved};
use super::CheckContext;
use crate::diagnostics::{Diagnostic, Rule};
use crate::paths::{environment_root, scope_in_environment, ScopeProblem};
use crate::yaml::Node;

/// Every problem of the skill scopes.
pub(super) fn check(root: &Node, context: &CheckContext) -> Vec<Diagnostic> {
    let Some((skills_key, skills)) = root.entry("skills") else {
        return Vec::new();
    };
    let scopes = skills
        .get("scopes")
        .and_then(Node::as_sequence)
        .unwrap_or_default();
    let mut found = Vec::new();
    let environment = kind(root);
    if environment == Some(Kind::Virtual) && !scopes.is_empty() {
        found.push(
            Diagnostic::error(
                Rule::SkillScope,
                skills_key.span,
                "skills need a local environment: a virtual one starts empty, so no SKILL.md \
                 could be found",
            )
            .with_help("use `environment: {type: local}`, or remove `skills:`"),
        );
        return found;
    }
    let environment_folder = context
        .base_dir()
        .filter(|_| environment == Some(Kind::Local))
        .map(|base| environment_root(base, root_text(root)));
    let mut resolved = Vec::new();
    for scope in scopes {
        let Some(path) = scope.get("path") else {
            continue;
        };
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
            continue;
        }
        let Some(base) = context.base_dir() else {
            continue;
        };
        if !base.join(text).is_dir() {
            found.push(not_a_folder(path, text));
            continue;
        }
        let Some(folder) = &environment_folder else {
            continue;
        };
        match scope_in_environment(base, folder, text) {
            Ok(inside) => resolved.push(Resolved {
                span: path.span,
                inside,
                source: scope
                    .get("source")
                    .and_then(Node::as_str)
                    .map(str::to_owned),
            }),
            Err(ScopeProblem::NotAFolder) => found.push(not_a_folder(path, text)),
            Err(ScopeProblem::OutsideEnvironment { root }) => found.push(
                Diagnostic::error(
                    Rule::SkillScope,
                    path.span,
                    format!(
                        "skill scope `{}` is outside the environment root `{}`, so the agent \
                         could not read its skills",
                        short(text),
                        root.display()
                    ),
                )
                .with_help(
                    "move the skills inside the environment root, or widen `environment.root`",
                ),
            ),
            // The root itself is reported on `environment.root`.
            Err(ScopeProblem::NoRoot) => {}
        }
    }
    if let Some(folder) = environment_folder.filter(|_| !resolved.is_empty()) {
        found.extend(scan(&folder, &resolved, skills_key.span));
    }
    found
}

fn not_a_folder(path: &Node, text: &str) -> Diagnostic {
    Diagnostic::error(
        Rule::SkillScope,
        path.span,
        format!("skill scope `{}` is not a folder", short(text)),
    )
    .with_help("create the folder, or fix the path (it is relative to the manifest's folder)")
}

/// Whether the path is absolute or its `..` parts climb above where it starts.
pub(super) fn escapes(text: &str) -> bool {
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

//! The scan: list every skills directory of every scope in precedence
//! order, read each `<skill>/SKILL.md`'s frontmatter, and resolve
//! duplicate names.
//!
//! Order (lowest precedence first): by level (built-in, user,
//! workspace), then by directory kind (shared `.agents/skills`, then
//! tool-specific `skills`), then by the order scopes were given. A later
//! skill overrides an earlier one of the same name. Inside one directory,
//! folders are read in name order and the first of a duplicated name is
//! kept (the copy is reported as a conflict).

use std::collections::{BTreeMap, HashSet};

use super::diagnostic::{SkillScanDiagnostic, SkillScanDiagnosticKind};
use super::file::{read_skill_file, SKILL_ENTRYPOINT};
use super::summary::{summarize, SkillLocation, SummaryNote};
use super::text::printable;
use super::{
    SkillDirectoryKind, SkillError, SkillSource, SkillSourceScope, SkillSummary,
    MAX_SKILL_DESCRIPTION_CHARS,
};
use crate::environment::{join_path, EnvironmentError, EnvironmentProvider};

/// What a scan found. `errors` holds the failures behind the
/// error-severity diagnostics, in the same order.
#[derive(Debug, Default)]
pub(crate) struct ScanOutcome {
    /// Winning skills, sorted by name.
    pub skills: Vec<SkillSummary>,
    pub diagnostics: Vec<SkillScanDiagnostic>,
    pub errors: Vec<SkillError>,
}

/// One skills directory to list.
#[derive(Clone, Debug)]
struct Slot {
    source: SkillSource,
    kind: SkillDirectoryKind,
    scope: String,
    dir: String,
}

/// The skills directories of all scopes, lowest precedence first. A
/// directory reached twice (a repeated scope, or a scope inside
/// another's `.agents`) is read once, at its highest precedence.
fn slots(scopes: &[SkillSourceScope]) -> Result<Vec<Slot>, SkillError> {
    let mut ordered = Vec::new();
    for (index, scope) in scopes.iter().enumerate() {
        let scope_path = scope.normalized_path()?;
        for kind in SkillDirectoryKind::ALL {
            ordered.push((
                (scope.source, kind, index),
                Slot {
                    source: scope.source,
                    kind,
                    dir: join_path(&scope_path, kind.relative_dir()),
                    scope: scope_path.clone(),
                },
            ));
        }
    }
    ordered.sort_by_key(|(key, _)| *key);
    let mut seen = HashSet::new();
    let mut kept: Vec<Slot> = ordered
        .into_iter()
        .rev()
        .filter(|(_, slot)| seen.insert(slot.dir.clone()))
        .map(|(_, slot)| slot)
        .collect();
    kept.reverse();
    Ok(kept)
}

#[derive(Default)]
struct ScanState {
    /// Name to (summary, index of the slot it came from).
    winners: BTreeMap<String, (SkillSummary, usize)>,
    diagnostics: Vec<SkillScanDiagnostic>,
    errors: Vec<SkillError>,
}

impl ScanState {
    fn fail(&mut self, error: SkillError, path: &str, name: Option<String>) {
        let mut diagnostic = SkillScanDiagnostic::from_error(&error, path);
        if diagnostic.name.is_none() {
            diagnostic.name = name;
        }
        self.diagnostics.push(diagnostic);
        self.errors.push(error);
    }

    fn add(&mut self, summary: SkillSummary, slot: usize) {
        match self.winners.get(&summary.name) {
            Some((existing, existing_slot)) if *existing_slot == slot => {
                let error = SkillError::DuplicateSkill {
                    name: summary.name.clone(),
                    kept: existing.path.clone(),
                    ignored: summary.path.clone(),
                };
                self.fail(error, &summary.path, None);
            }
            Some((existing, _)) => {
                let message = format!(
                    "skill `{}` in `{}` ({} {}) is overridden by `{}` ({} {}), which has higher \
                     precedence; rename one of them to keep both",
                    summary.name,
                    printable(&existing.path),
                    existing.source,
                    existing.directory_kind.label(),
                    printable(&summary.path),
                    summary.source,
                    summary.directory_kind.label(),
                );
                self.diagnostics.push(
                    SkillScanDiagnostic::new(
                        SkillScanDiagnosticKind::DuplicateOverridden,
                        existing.path.clone(),
                        message,
                    )
                    .with_name(summary.name.clone())
                    .with_related_path(summary.path.clone()),
                );
                self.winners.insert(summary.name.clone(), (summary, slot));
            }
            None => {
                self.winners.insert(summary.name.clone(), (summary, slot));
            }
        }
    }

    fn warn(&mut self, kind: SkillScanDiagnosticKind, summary: &SkillSummary, message: String) {
        self.diagnostics.push(
            SkillScanDiagnostic::new(kind, summary.path.clone(), message)
                .with_name(summary.name.clone()),
        );
    }
}

/// Scans every scope, continuing past bad files. Fails only for an
/// unusable scope path.
pub(crate) async fn scan(
    provider: &dyn EnvironmentProvider,
    scopes: &[SkillSourceScope],
) -> Result<ScanOutcome, SkillError> {
    let slots = slots(scopes)?;
    let mut state = ScanState::default();
    for (index, slot) in slots.iter().enumerate() {
        scan_slot(provider, slot, index, &mut state).await;
    }
    Ok(ScanOutcome {
        skills: state
            .winners
            .into_values()
            .map(|(summary, _)| summary)
            .collect(),
        diagnostics: state.diagnostics,
        errors: state.errors,
    })
}

async fn scan_slot(
    provider: &dyn EnvironmentProvider,
    slot: &Slot,
    index: usize,
    state: &mut ScanState,
) {
    let entries = match provider.list_dir(&slot.dir).await {
        Ok(entries) => entries,
        // No skills directory here (or a file of that name): no skills.
        Err(EnvironmentError::NotFound { .. } | EnvironmentError::NotADirectory { .. }) => return,
        Err(source) => {
            let path = slot.dir.clone();
            state.fail(SkillError::Unreadable { path, source }, &slot.dir, None);
            return;
        }
    };
    let mut folders: Vec<_> = entries
        .into_iter()
        .filter(|entry| !entry.is_file() && !entry.is_hidden())
        .collect();
    folders.sort_by(|a, b| a.name.cmp(&b.name));
    for folder in folders {
        let folder_path = join_path(&slot.dir, &folder.name);
        let entry_path = join_path(&folder_path, SKILL_ENTRYPOINT);
        let file = match read_skill_file(provider, &entry_path).await {
            Ok(file) => file,
            Err(SkillError::NotFound { .. }) if folder.is_dir() => {
                let message = format!(
                    "`{}` has no {SKILL_ENTRYPOINT}, so it is not a skill; add \
                     `{}` (with `name` and `description` frontmatter) or move the \
                     folder out of `{}`",
                    printable(&folder_path),
                    printable(&entry_path),
                    printable(&slot.dir)
                );
                state.diagnostics.push(SkillScanDiagnostic::new(
                    SkillScanDiagnosticKind::MissingEntrypoint,
                    folder_path,
                    message,
                ));
                continue;
            }
            // A link that does not lead to a skill folder is not a skill.
            Err(
                SkillError::NotFound { .. }
                | SkillError::Unreadable {
                    source: EnvironmentError::NotADirectory { .. },
                    ..
                },
            ) if !folder.is_dir() => continue,
            Err(error) => {
                state.fail(error, &entry_path, None);
                continue;
            }
        };
        let name_hint = file
            .parsed
            .frontmatter
            .name
            .as_deref()
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(str::to_string);
        let location = SkillLocation {
            source: slot.source,
            kind: slot.kind,
            scope: slot.scope.clone(),
        };
        let (summary, notes) = match summarize(&file, location) {
            Ok(summarized) => summarized,
            Err(error) => {
                state.fail(error, &entry_path, name_hint);
                continue;
            }
        };
        for note in notes {
            match note {
                SummaryNote::DescriptionTruncated { chars } => {
                    let message = format!(
                        "`{}`: the description has {chars} characters and was shortened to \
                         {MAX_SKILL_DESCRIPTION_CHARS}; move details into the body",
                        printable(&summary.path)
                    );
                    state.warn(
                        SkillScanDiagnosticKind::DescriptionTruncated,
                        &summary,
                        message,
                    );
                }
            }
        }
        if summary.name != folder.name {
            let message = format!(
                "`{}`: the skill is named `{}` but its folder is `{}`; rename one so they match",
                printable(&summary.path),
                summary.name,
                printable(&folder.name)
            );
            state.warn(SkillScanDiagnosticKind::NameMismatch, &summary, message);
        }
        state.add(summary, index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs(scopes: &[SkillSourceScope]) -> Vec<String> {
        match slots(scopes) {
            Ok(slots) => slots.into_iter().map(|slot| slot.dir).collect(),
            Err(error) => panic!("{error}"),
        }
    }

    #[test]
    fn slots_follow_precedence() {
        let scopes = [
            SkillSourceScope::new("ws"),
            SkillSourceScope::user("home"),
            SkillSourceScope::builtin("builtin"),
        ];
        assert_eq!(
            dirs(&scopes),
            [
                "builtin/.agents/skills",
                "builtin/skills",
                "home/.agents/skills",
                "home/skills",
                "ws/.agents/skills",
                "ws/skills",
            ]
        );
    }

    #[test]
    fn same_level_scopes_keep_their_order_per_directory_kind() {
        let scopes = [SkillSourceScope::new("a"), SkillSourceScope::new("b")];
        assert_eq!(
            dirs(&scopes),
            [
                "a/.agents/skills",
                "b/.agents/skills",
                "a/skills",
                "b/skills"
            ]
        );
    }

    #[test]
    fn repeated_directories_are_read_once_at_highest_precedence() {
        let scopes = [
            SkillSourceScope::new(""),
            SkillSourceScope::user("./"),
            SkillSourceScope::new(".agents"),
        ];
        // "" (workspace) outranks "./" (user); ".agents/skills" is both
        // the root's shared directory and `.agents`' tool-specific one.
        assert_eq!(
            dirs(&scopes),
            [".agents/.agents/skills", "skills", ".agents/skills"]
        );
    }

    #[test]
    fn bad_scope_paths_fail() {
        assert!(matches!(
            slots(&[SkillSourceScope::new("../outside")]),
            Err(SkillError::InvalidScope { .. })
        ));
    }
}

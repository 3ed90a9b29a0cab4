//! Reloads: rescan the scopes and say what changed since the previous
//! registry.

use std::collections::BTreeSet;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::report::diagnostics_json;
use super::scan::scan;
use super::SkillError;
use super::{SkillRegistry, SkillScanDiagnostic, SkillSourceScope};
use crate::context::{AgentContext, ContextEvent, ContextEventKind};
use crate::environment::DynEnvironment;
use crate::schedule::RefreshReason;

/// How a skill changed between two scans.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkillReloadChangeKind {
    /// The skill is new.
    Added,
    /// The skill is gone (deleted, renamed, or now malformed).
    Removed,
    /// The summary or the SKILL.md content changed (a body-only edit
    /// counts).
    Modified,
}

/// One changed skill.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillReloadChange {
    /// Added, removed or modified.
    pub kind: SkillReloadChangeKind,
    /// The skill's name.
    pub name: String,
    /// Its SKILL.md now (for a removed skill, where it was).
    pub path: String,
    /// For a modified skill, what changed: summary field names, and
    /// `"content"` when the file's bytes changed.
    pub changed: Vec<String>,
}

/// What a reload found: the fresh registry, the changes against the
/// previous one (sorted by name) and the fresh scan's diagnostics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkillReloadReport {
    registry: SkillRegistry,
    changes: Vec<SkillReloadChange>,
    diagnostics: Vec<SkillScanDiagnostic>,
    pub(crate) reload_scheduled: bool,
    pub(crate) reload_reason: Option<RefreshReason>,
    pub(crate) reload_ms: u64,
    pub(crate) inventory_version: Option<String>,
}

impl SkillReloadReport {
    /// The changes, sorted by skill name.
    #[must_use]
    pub fn changes(&self) -> &[SkillReloadChange] {
        &self.changes
    }

    /// True when anything was added, removed or modified.
    #[must_use]
    pub fn has_changes(&self) -> bool {
        !self.changes.is_empty()
    }

    /// The freshly scanned registry (swap it in for the previous one).
    #[must_use]
    pub fn registry(&self) -> &SkillRegistry {
        &self.registry
    }

    /// The fresh registry, consuming the report.
    #[must_use]
    pub fn into_registry(self) -> SkillRegistry {
        self.registry
    }

    /// Diagnostics of the fresh scan (bad files are skipped, so a skill
    /// that became malformed shows up as removed plus a diagnostic).
    #[must_use]
    pub fn diagnostics(&self) -> &[SkillScanDiagnostic] {
        &self.diagnostics
    }

    /// True when a [`super::SkillReloadBinding`] scheduled this reload.
    #[must_use]
    pub fn reload_scheduled(&self) -> bool {
        self.reload_scheduled
    }

    /// Why a scheduled reload ran.
    #[must_use]
    pub fn reload_reason(&self) -> Option<RefreshReason> {
        self.reload_reason
    }

    /// How long the rescan took, in milliseconds.
    #[must_use]
    pub fn reload_ms(&self) -> u64 {
        self.reload_ms
    }

    /// The host's inventory version the reload saw (scheduled reloads).
    #[must_use]
    pub fn inventory_version(&self) -> Option<&str> {
        self.inventory_version.as_deref()
    }

    /// The `skills_reloaded` event: changes, skill names, diagnostics and
    /// scheduling details (`reload_scheduled`, `reload_reason`,
    /// `reload_ms`, `inventory_version`). No skill bodies.
    #[must_use]
    pub fn to_event(&self) -> ContextEvent {
        ContextEvent::new(ContextEventKind::SkillsReloaded, self.payload())
    }

    fn payload(&self) -> Value {
        let names = |kind| {
            self.changes
                .iter()
                .filter(|change| change.kind == kind)
                .map(|change| change.name.clone())
                .collect::<Vec<_>>()
        };
        json!({
            "added": names(SkillReloadChangeKind::Added),
            "removed": names(SkillReloadChangeKind::Removed),
            "modified": names(SkillReloadChangeKind::Modified),
            "changes": serde_json::to_value(&self.changes).unwrap_or(Value::Null),
            "skills": self.registry.names(),
            "skill_count": self.registry.len(),
            "diagnostics": diagnostics_json(&self.diagnostics),
            "reload_scheduled": self.reload_scheduled,
            "reload_reason": self.reload_reason.map(RefreshReason::as_str),
            "reload_ms": self.reload_ms,
            "inventory_version": self.inventory_version,
        })
    }
}

/// The changes from `previous` to `next`, sorted by name.
fn diff(previous: &SkillRegistry, next: &SkillRegistry) -> Vec<SkillReloadChange> {
    let names: BTreeSet<&str> = previous
        .packages()
        .iter()
        .chain(next.packages())
        .map(|skill| skill.name.as_str())
        .collect();
    names
        .into_iter()
        .filter_map(|name| match (previous.get(name), next.get(name)) {
            (None, Some(added)) => Some(SkillReloadChange {
                kind: SkillReloadChangeKind::Added,
                name: name.to_string(),
                path: added.path.clone(),
                changed: Vec::new(),
            }),
            (Some(removed), None) => Some(SkillReloadChange {
                kind: SkillReloadChangeKind::Removed,
                name: name.to_string(),
                path: removed.path.clone(),
                changed: Vec::new(),
            }),
            (Some(before), Some(after)) => {
                let changed = before.changed_fields(after);
                (!changed.is_empty()).then(|| SkillReloadChange {
                    kind: SkillReloadChangeKind::Modified,
                    name: name.to_string(),
                    path: after.path.clone(),
                    changed: changed.into_iter().map(str::to_string).collect(),
                })
            }
            (None, None) => None,
        })
        .collect()
}

impl SkillRegistry {
    /// Rescans the scopes (leniently, as
    /// [`SkillRegistry::scan_with_report`]) and compares the result with
    /// this registry. This registry is unchanged; take the fresh one from
    /// the report.
    ///
    /// # Errors
    /// Only for an unusable scope path.
    pub async fn reload_with_report(
        &self,
        provider: DynEnvironment,
        scopes: &[SkillSourceScope],
    ) -> Result<SkillReloadReport, SkillError> {
        let started = Instant::now();
        let outcome = scan(provider.as_ref(), scopes).await?;
        let registry = SkillRegistry::from_sorted(outcome.skills);
        Ok(SkillReloadReport {
            changes: diff(self, &registry),
            registry,
            diagnostics: outcome.diagnostics,
            reload_scheduled: false,
            reload_reason: None,
            reload_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            inventory_version: None,
        })
    }

    /// Reloads like [`Self::reload_with_report`] and publishes a
    /// `skills_reloaded` event on the context (also when nothing
    /// changed).
    ///
    /// # Errors
    /// As [`Self::reload_with_report`]; no event is published on failure.
    pub async fn reload_with_context(
        &self,
        provider: DynEnvironment,
        scopes: &[SkillSourceScope],
        context: &mut AgentContext,
    ) -> Result<SkillReloadReport, SkillError> {
        let report = self.reload_with_report(provider, scopes).await?;
        context.events.publish(report.to_event());
        Ok(report)
    }
}

//! The registry of discovered skills, keyed by name.

use super::scan::scan;
use super::{SkillError, SkillScanReport, SkillSourceScope, SkillSummary};
use crate::environment::DynEnvironment;

/// Skill summaries by name, as found by a scan. Holds no bodies; activate
/// a skill to load its markdown.
///
/// ```
/// use std::sync::Arc;
/// use starweaver_core::environment::VirtualEnvironmentProvider;
/// use starweaver_core::skills::{SkillRegistry, SkillSourceScope};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let provider = Arc::new(VirtualEnvironmentProvider::new("docs").with_file(
///     ".agents/skills/review/SKILL.md",
///     "---\nname: review\ndescription: Review a change\n---\nCheck tests first.\n",
/// ));
/// let registry = SkillRegistry::scan(provider, &[SkillSourceScope::new("")]).await.unwrap();
/// assert_eq!(registry.names(), ["review"]);
/// # });
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkillRegistry {
    /// Sorted by name, names unique.
    skills: Vec<SkillSummary>,
}

impl SkillRegistry {
    /// An empty registry.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A registry of summaries built in code (for example built-in skills
    /// a host defines itself). A later summary replaces an earlier one of
    /// the same name.
    #[must_use]
    pub fn from_summaries(summaries: impl IntoIterator<Item = SkillSummary>) -> Self {
        let mut by_name = std::collections::BTreeMap::new();
        for summary in summaries {
            by_name.insert(summary.name.clone(), summary);
        }
        Self {
            skills: by_name.into_values().collect(),
        }
    }

    pub(crate) fn from_sorted(skills: Vec<SkillSummary>) -> Self {
        Self { skills }
    }

    /// Scans the scopes for skills and reads their frontmatter summaries.
    /// Missing skills directories are fine; duplicates across precedence
    /// levels resolve by precedence (see [`SkillSourceScope`]).
    ///
    /// # Errors
    /// The first malformed, unreadable or invalid skill file, two skills
    /// of one name in one skills directory, or an unusable scope path.
    /// Use [`Self::scan_with_report`] to continue past bad files.
    pub async fn scan(
        provider: DynEnvironment,
        scopes: &[SkillSourceScope],
    ) -> Result<Self, SkillError> {
        let outcome = scan(provider.as_ref(), scopes).await?;
        match outcome.errors.into_iter().next() {
            Some(error) => Err(error),
            None => Ok(Self::from_sorted(outcome.skills)),
        }
    }

    /// Scans like [`Self::scan`], but skips bad skill files and reports
    /// them (and every precedence override) as diagnostics.
    ///
    /// # Errors
    /// Only for an unusable scope path.
    pub async fn scan_with_report(
        provider: DynEnvironment,
        scopes: &[SkillSourceScope],
    ) -> Result<SkillScanReport, SkillError> {
        let outcome = scan(provider.as_ref(), scopes).await?;
        Ok(SkillScanReport::new(
            Self::from_sorted(outcome.skills),
            outcome.diagnostics,
        ))
    }

    /// The skill of that name.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&SkillSummary> {
        self.skills
            .binary_search_by(|skill| skill.name.as_str().cmp(name))
            .ok()
            .and_then(|index| self.skills.get(index))
    }

    /// True when a skill of that name is registered.
    #[must_use]
    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Every skill summary, sorted by name (what [`super::skill_tools`]
    /// takes).
    #[must_use]
    pub fn packages(&self) -> &[SkillSummary] {
        &self.skills
    }

    /// Skill names, sorted.
    #[must_use]
    pub fn names(&self) -> Vec<String> {
        self.skills.iter().map(|skill| skill.name.clone()).collect()
    }

    /// Number of skills.
    #[must_use]
    pub fn len(&self) -> usize {
        self.skills.len()
    }

    /// True when no skills are registered.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }
}

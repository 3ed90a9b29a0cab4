//! Activation: loading a skill's full markdown when a host or the model
//! chooses it.

use serde_json::json;

use super::file::read_skill_file_or_folder;
use super::summary::{summarize, SkillLocation};
use super::{SkillError, SkillRegistry, SkillSummary};
use crate::context::{AgentContext, ContextEvent, ContextEventKind};
use crate::environment::DynEnvironment;

/// A skill whose markdown is loaded: its summary (read fresh from the
/// file) and its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActiveSkill {
    /// The skill's summary, from the file as it is now.
    pub summary: SkillSummary,
    /// The markdown after the frontmatter, trimmed; `None` when empty.
    pub body: Option<String>,
}

impl ActiveSkill {
    /// The skill's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.summary.name
    }

    /// The `skill_activated` event: name, description, paths, source and
    /// the body's size, never the body itself.
    #[must_use]
    pub fn to_event(&self) -> ContextEvent {
        let summary = &self.summary;
        ContextEvent::new(
            ContextEventKind::SkillActivated,
            json!({
                "name": summary.name,
                "description": summary.description,
                "path": summary.path,
                "directory": summary.directory,
                "source": summary.source,
                "directory_kind": summary.directory_kind,
                "scope": summary.scope,
                "fingerprint": summary.fingerprint,
                "size": summary.size,
                "has_body": self.body.is_some(),
                "body_chars": self.body.as_ref().map_or(0, |body| body.chars().count()),
            }),
        )
    }
}

impl SkillRegistry {
    /// Loads the skill at `path`: a `SKILL.md`, or a skill folder (its
    /// `SKILL.md` is read). The frontmatter is validated as in a scan.
    /// The scope is inferred from the path and the level reported as
    /// [`super::SkillSource::Workspace`]; use [`Self::activate_skill`]
    /// to keep the level the scan found.
    ///
    /// # Errors
    /// [`SkillError::NotFound`] when nothing is at `path`, or what a scan
    /// would report for the file (malformed frontmatter, missing fields,
    /// not UTF-8, ...).
    pub async fn activate(provider: DynEnvironment, path: &str) -> Result<ActiveSkill, SkillError> {
        let file = read_skill_file_or_folder(provider.as_ref(), path).await?;
        let location = SkillLocation::infer(&file.path);
        let (summary, _notes) = summarize(&file, location)?;
        Ok(ActiveSkill {
            summary,
            body: file.parsed.body,
        })
    }

    /// Activates like [`Self::activate`] and publishes a
    /// `skill_activated` event on the context (without the body).
    ///
    /// # Errors
    /// As [`Self::activate`]; no event is published on failure.
    pub async fn activate_with_context(
        provider: DynEnvironment,
        path: &str,
        context: &mut AgentContext,
    ) -> Result<ActiveSkill, SkillError> {
        let active = Self::activate(provider, path).await?;
        context.events.publish(active.to_event());
        Ok(active)
    }

    /// Activates the registered skill `name`, keeping the level,
    /// directory kind and scope the scan found.
    ///
    /// # Errors
    /// [`SkillError::UnknownSkill`] (with the closest known names) when no
    /// skill has that name, otherwise as [`Self::activate`].
    pub async fn activate_skill(
        &self,
        provider: DynEnvironment,
        name: &str,
    ) -> Result<ActiveSkill, SkillError> {
        let Some(registered) = self.get(name) else {
            return Err(SkillError::UnknownSkill {
                name: name.to_string(),
                known: self.closest_names(name),
            });
        };
        let mut active = Self::activate(provider, &registered.path).await?;
        active.summary.source = registered.source;
        active.summary.directory_kind = registered.directory_kind;
        active.summary.scope.clone_from(&registered.scope);
        Ok(active)
    }

    /// Up to five registered names, closest to `name` first.
    fn closest_names(&self, name: &str) -> Vec<String> {
        let mut names: Vec<(f64, String)> = self
            .names()
            .into_iter()
            .map(|known| (strsim::jaro_winkler(name, &known), known))
            .collect();
        names.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        names.into_iter().take(5).map(|(_, known)| known).collect()
    }
}

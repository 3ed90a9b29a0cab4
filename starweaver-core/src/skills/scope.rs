//! A place to look for skills, and its precedence level.

use serde::{Deserialize, Serialize};

use super::{SkillDirectoryKind, SkillError, SkillSource};
use crate::environment::{join_path, normalize_path};

/// A root-relative directory of the environment that holds skills, at a
/// precedence level. Inside the scope, skills live at
/// `<path>/.agents/skills/*/SKILL.md` (shared) and
/// `<path>/skills/*/SKILL.md` (tool-specific).
///
/// ```
/// use starweaver_core::skills::{SkillSource, SkillSourceScope};
///
/// let workspace = SkillSourceScope::new("");
/// let user = SkillSourceScope::new("home/ada").with_source(SkillSource::User);
/// assert_eq!(workspace.source(), SkillSource::Workspace);
/// assert_eq!(user.path(), "home/ada");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SkillSourceScope {
    /// Root-relative directory; `""` (or `"."`) is the environment root.
    pub path: String,
    /// Precedence level; [`SkillSource::Workspace`] by default.
    #[serde(default)]
    pub source: SkillSource,
}

impl SkillSourceScope {
    /// A workspace-level scope at `path` (root-relative; `""` is the
    /// root).
    #[must_use]
    pub fn new(path: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            source: SkillSource::Workspace,
        }
    }

    /// A built-in scope at `path`.
    #[must_use]
    pub fn builtin(path: impl Into<String>) -> Self {
        Self::new(path).with_source(SkillSource::Builtin)
    }

    /// A user scope at `path`.
    #[must_use]
    pub fn user(path: impl Into<String>) -> Self {
        Self::new(path).with_source(SkillSource::User)
    }

    /// Sets the precedence level.
    #[must_use]
    pub fn with_source(mut self, source: SkillSource) -> Self {
        self.source = source;
        self
    }

    /// The directory, as given.
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The precedence level.
    #[must_use]
    pub fn source(&self) -> SkillSource {
        self.source
    }

    /// The normalized scope directory.
    ///
    /// # Errors
    /// [`SkillError::InvalidScope`] when the path climbs above the root
    /// or is not a valid path.
    pub fn normalized_path(&self) -> Result<String, SkillError> {
        normalize_path(&self.path).map_err(|error| SkillError::InvalidScope {
            path: self.path.clone(),
            reason: error.to_string(),
        })
    }

    /// The skills directory of one kind inside this scope.
    ///
    /// # Errors
    /// As [`Self::normalized_path`].
    pub fn skills_dir(&self, kind: SkillDirectoryKind) -> Result<String, SkillError> {
        Ok(join_path(&self.normalized_path()?, kind.relative_dir()))
    }
}

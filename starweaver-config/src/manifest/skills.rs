//! `skills:`: the scopes skills are discovered in.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use starweaver_core::skills::SkillSource;

/// One scope.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillScopeSpec {
    /// Folder relative to the environment root (`.` is the root).
    pub path: String,
    /// `builtin`, `user` or `workspace` (default).
    #[serde(default = "workspace", skip_serializing_if = "is_workspace")]
    #[schemars(with = "String")]
    pub source: SkillSource,
}

fn workspace() -> SkillSource {
    SkillSource::Workspace
}

fn is_workspace(source: &SkillSource) -> bool {
    *source == SkillSource::Workspace
}

/// The skills section.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillsSpec {
    /// Scopes, lowest precedence first.
    #[serde(default)]
    pub scopes: Vec<SkillScopeSpec>,
}

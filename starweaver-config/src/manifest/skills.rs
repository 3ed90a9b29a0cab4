//! `skills:`: the scopes skills are discovered in.

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use starweaver_core::skills::SkillSource;

/// One scope.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillScopeSpec {
    /// Folder relative to the manifest's folder (`.` is that folder). It must lie inside the
    /// environment's root: the agent reads its skills through the environment.
    pub path: String,
    /// `builtin`, `user` or `workspace` (default).
    #[serde(default = "workspace", skip_serializing_if = "is_workspace")]
    #[schemars(schema_with = "source_schema")]
    pub source: SkillSource,
}

/// The sources a scope may name, so the schema (and the checker built on it) lists exactly the
/// values loading accepts.
const SOURCES: [SkillSource; 3] = [
    SkillSource::Builtin,
    SkillSource::User,
    SkillSource::Workspace,
];

/// `source:` as a string restricted to the names of [`SOURCES`].
fn source_schema(_: &mut SchemaGenerator) -> Schema {
    // A new source fails to compile here until it is added to `SOURCES`.
    let _listed = |source: SkillSource| match source {
        SkillSource::Builtin | SkillSource::User | SkillSource::Workspace => (),
    };
    let names: Vec<&str> = SOURCES.iter().map(|source| source.as_str()).collect();
    json_schema!({ "type": "string", "enum": names })
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

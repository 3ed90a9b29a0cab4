//! `skills:`: the scopes skills are discovered in.

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use starweaver_core::skills::SkillSource;

/// One scope.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillScopeSpec {
    /// The scope's folder, relative to the manifest's folder (`.` is that folder). It must lie
    /// inside the environment's root: the agent reads its skills through the environment.
    #[schemars(example = &".")]
    pub path: String,
    /// The scope's precedence, lowest first: `builtin`, `user`,
    /// `workspace`. A skill in a higher scope replaces one of the same name
    /// in a lower one.
    #[serde(default = "workspace", skip_serializing_if = "is_workspace")]
    #[schemars(schema_with = "source_schema")]
    #[schemars(example = &"workspace")]
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
    json_schema!({ "type": "string", "enum": names, "default": SkillSource::Workspace.as_str() })
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
    /// The folders to scan, each relative to the manifest's folder, like
    /// every other path; each must exist and lie inside the environment's
    /// root (the agent reads skills through it). Skills are read from
    /// `<path>/.agents/skills/<name>/SKILL.md` and
    /// `<path>/skills/<name>/SKILL.md`. Between scopes of one precedence, a
    /// later one wins.
    #[serde(default)]
    #[schemars(example = serde_json::json!([{"path": ".", "source": "workspace"}]))]
    pub scopes: Vec<SkillScopeSpec>,
}

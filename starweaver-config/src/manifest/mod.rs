//! The agent manifest format, version 1: one YAML file, one agent. These
//! types are the format's single source: the JSON Schema and the
//! reference docs are generated from them, and loading produces them.
//!
//! Every struct denies unknown fields (a misspelled `instructions:` is an
//! error, never an agent without instructions), and a setting left out
//! never widens authority: no `shell` section means no execution, an
//! omitted allowlist is not "everything" unless execution is on.

mod environment;
mod model;
mod runtime;
mod shell;
mod skills;
mod toolsets;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use environment::{EnvironmentKind, EnvironmentSpec};
pub use model::ModelSpec;
pub use runtime::{RuntimeSpec, ToolExecution, UnavailableTools};
pub use shell::ShellSpec;
pub use skills::{SkillScopeSpec, SkillsSpec};
pub use toolsets::{
    ApprovalRequired, BundleToolsetSpec, DeferredToolsetSpec, FilesystemToolsetSpec,
    ProxyToolsetSpec, SearchToolsetSpec, ToolsToolsetSpec, ToolsetSpec,
};

/// The manifest format version this crate reads.
pub const MANIFEST_VERSION: u32 = 1;

/// One agent, as declared in `agents/NAME.yaml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The format version; `1`.
    pub version: u32,
    /// The agent's name (`repo-helper`).
    pub name: String,
    /// What the agent is for, in one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The model the agent talks to.
    pub model: ModelSpec,
    /// Template variables with their defaults, for `instructions`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub vars: BTreeMap<String, serde_json::Value>,
    /// The agent's instructions: a minijinja template over `vars` and
    /// `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Where filesystem and shell tools act (default: none attached).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<EnvironmentSpec>,
    /// Which commands the shell toolset may run (default: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell: Option<ShellSpec>,
    /// The toolsets the agent has, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub toolsets: Vec<ToolsetSpec>,
    /// Skill scopes to scan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<SkillsSpec>,
    /// Run policy: tool execution, timeouts, retries, budgets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<RuntimeSpec>,
}

#[cfg(test)]
pub(crate) mod tests;

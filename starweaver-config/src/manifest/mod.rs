//! The agent manifest format, version 1: one YAML file, one agent. These
//! types are the format's single source: the JSON Schema and the
//! reference docs are generated from them, and loading produces them.
//!
//! Every struct denies unknown fields (a misspelled `instructions:` is an
//! error, never an agent without instructions), and a setting left out
//! never widens authority: no `shell` section means no execution, an
//! omitted allowlist is not "everything" unless execution is on.

mod environment;
mod mcp;
mod model;
mod output;
mod runtime;
mod shell;
mod skills;
mod toolsets;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use environment::{EnvironmentKind, EnvironmentSpec};
pub use mcp::{
    McpApprovalHint, McpApprovalRequired, McpToolsetSpec, McpTransportSpec, MCP_CALL_TIMEOUT_MS,
    MCP_STARTUP_TIMEOUT_MS,
};
pub use model::ModelSpec;
pub use output::StructuredOutputSpec;
pub use runtime::{RuntimeSpec, ToolExecution, UnavailableTools};
pub use shell::{SandboxModeSpec, SandboxReadSpec, SandboxSpec, ShellSpec};
pub use skills::{SkillScopeSpec, SkillsSpec};
pub use toolsets::{
    AgentsToolsetSpec, ApprovalRequired, BundleToolsetSpec, DeferredToolsetSpec,
    FilesystemToolsetSpec, ProxyToolsetSpec, SearchToolsetSpec, SubAgentSpec, ToolsToolsetSpec,
    ToolsetSpec, DEFAULT_AGENT_MAX_DEPTH,
};

/// The manifest format version this crate reads.
pub const MANIFEST_VERSION: u32 = 1;

/// One agent, as declared in `agents/NAME.yaml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The manifest format's version; `1`.
    #[schemars(example = 1)]
    pub version: u32,
    /// The agent's name (`repo-helper`).
    #[schemars(example = &"repo-helper")]
    pub name: String,
    /// What the agent is for, in one line, for people and listings (its own
    /// model does not see it; as a sub-agent, it is its tool's description
    /// unless the `agents` entry gives one). Unset: no description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"Answers questions about this repository.")]
    pub description: Option<String>,
    /// The model the agent talks to.
    #[schemars(example = serde_json::json!({"id": "test"}))]
    pub model: ModelSpec,
    /// Template variables and their default values, for `instructions`
    /// (`{{ vars.NAME }}`). A run may override each one; a template that
    /// uses a variable not declared here is an `undefined-variable` error.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(example = serde_json::json!({"audience": "developers"}))]
    pub vars: BTreeMap<String, serde_json::Value>,
    /// Names of `vars` that hold secrets (a token, a password): `starweaver run` masks their
    /// values as `***` in everything it prints and in its save files, and a resumed run needs
    /// them given again. A variable whose name ends in a secret word (`api_key`,
    /// `GITHUB_TOKEN`, `db_password`) is secret without being listed: the rule is in
    /// [cli.md](cli.md#secrets). Unset: only those.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(example = serde_json::json!(["deploy_token"]))]
    pub secret_vars: Vec<String>,
    /// The agent's instructions: a minijinja template over `vars` and
    /// `name`, rendered once when the manifest loads. Unset: the agent has
    /// only its toolsets' instructions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"You help {{ vars.audience }} with {{ name }}.")]
    pub instructions: Option<String>,
    /// Where filesystem and shell tools act. Unset: no environment, so
    /// `filesystem` and `shell` toolsets, `shell` and `skills` cannot be
    /// used (loading refuses them rather than leaving them inert).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = serde_json::json!({"type": "local", "root": ".."}))]
    pub environment: Option<EnvironmentSpec>,
    /// Which commands the shell may run and its limits. Unset: execution is
    /// off, and every command a `shell` toolset tries is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = serde_json::json!({"allow_execute": true, "allowed_programs": ["git"]}))]
    pub shell: Option<ShellSpec>,
    /// The toolsets the agent has, in order, each told apart by `type`.
    /// Unset: the agent has no tools and only answers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(example = serde_json::json!([{"type": "filesystem", "read_only": true}]))]
    pub toolsets: Vec<ToolsetSpec>,
    /// Skill scopes to scan for `SKILL.md` packages when the manifest
    /// loads. Unset: no skills. Needs an `environment` (skills are read
    /// through it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = serde_json::json!({"scopes": [{"path": "."}]}))]
    pub skills: Option<SkillsSpec>,
    /// Run policy: tool execution, timeouts, retries, budgets. Unset: the
    /// runtime's defaults (parallel tools, 50 model requests per run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = serde_json::json!({"max_steps": 20}))]
    pub runtime: Option<RuntimeSpec>,
    /// A structured answer: the JSON Schema the agent's answer must match, inline or in a
    /// file. Unset: the answer is text and no output tool is offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = serde_json::json!({"schema_file": "schemas/triage.json", "retries": 2}))]
    pub output: Option<StructuredOutputSpec>,
}

#[cfg(test)]
pub(crate) mod tests;

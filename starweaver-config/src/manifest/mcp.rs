//! `type: mcp`: one MCP server's tools as a toolset. A server is a local program spoken to over
//! its standard input and output (`command`), or a streamable HTTP endpoint (`url`): exactly
//! one of the two. Nothing here starts a server; the checker reads these settings, and the
//! loader hands them to the MCP client.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::shell::SandboxSpec;
use crate::paths::manifest_relative;

/// `startup_timeout_ms` when left out: how long a server has to start and list its tools.
pub const MCP_STARTUP_TIMEOUT_MS: u64 = 10_000;

/// `timeout_ms` when left out: how long one tool call may take.
pub const MCP_CALL_TIMEOUT_MS: u64 = 60_000;

/// `type: mcp`: the tools of one MCP server.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct McpToolsetSpec {
    /// The toolset's name, unique in the manifest (proxies and search name toolsets by it).
    #[schemars(example = &"everything")]
    pub name: String,
    /// The program that runs a local server, spoken to over its standard input and output: a
    /// name looked up on `PATH`, or a path. Exactly one of `command` and `url`. Unset: the
    /// server is not a local program (`url` is needed then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"mcp-server-everything")]
    pub command: Option<String>,
    /// The program's arguments, each passed as written (no shell). Unset: none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(example = serde_json::json!(["stdio"]))]
    pub args: Vec<String>,
    /// Variables set for the program, with literal values; a value that looks like a secret is
    /// a warning (name it in `env_from` instead). The program also gets the shell's scrubbed
    /// base (`PATH`, `HOME` and the like). Unset: none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(example = serde_json::json!({"LOG_LEVEL": "info"}))]
    pub env: BTreeMap<String, String>,
    /// Variables passed from the host to the program by name, their values masked like
    /// secrets; one that is not set when the agent loads stops the load. Unset: none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(example = serde_json::json!(["GITHUB_TOKEN"]))]
    pub env_from: Vec<String>,
    /// The folder the program runs in, relative to the manifest's folder. Unset: the
    /// manifest's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &".")]
    pub cwd: Option<String>,
    /// The endpoint of a streamable HTTP server, `http://` or `https://`. Exactly one of
    /// `command` and `url`. Unset: the server is a local program (`command` is needed then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"http://127.0.0.1:3001/mcp")]
    pub url: Option<String>,
    /// HTTP headers sent with every request to `url`, each taking its value from the host
    /// variable named (`Authorization: MCP_TOKEN`); one that is not set when the agent loads
    /// stops the load. Unset: none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(example = serde_json::json!({"Authorization": "MCP_TOKEN"}))]
    pub headers_from_env: BTreeMap<String, String>,
    /// Only these of the server's tools, by the server's own names (before any `prefix`).
    /// Unset: every tool the server lists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = serde_json::json!(["echo", "get-sum"]))]
    pub tools: Option<Vec<String>>,
    /// A prefix for the names the model sees, joined with `_` (`prefix: ev` makes `echo`
    /// `ev_echo`). A name with characters providers refuse has them replaced with `_`, and one
    /// over 64 characters is cut and ends with a short hash of the full name. Unset: the
    /// server's names, mapped the same way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"ev")]
    pub prefix: Option<String>,
    /// Tools that wait for a person's approval before they run: a list of the server's own
    /// names, `true` for all, or `destructive` for those whose annotations do not say they are
    /// safe (`readOnlyHint: true` or `destructiveHint: false`; a tool without hints counts as
    /// destructive, as the protocol defines). Unset: none.
    #[serde(default)]
    #[schemars(example = serde_json::json!(["get-sum"]))]
    pub approval_required: McpApprovalRequired,
    /// How long the server has to start and list its tools, in milliseconds. Unset: 10000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = 10000)]
    pub startup_timeout_ms: Option<u64>,
    /// Time limit of each of its tool calls, in milliseconds; a call that runs out is cancelled
    /// on the server. Unset: 60000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = 60000)]
    pub timeout_ms: Option<u64>,
    /// The kernel sandbox a local server (`command`) runs under, with the keys of
    /// `shell.sandbox`; its `writable` folders are relative to `cwd` and inside it. Unset: the
    /// server is not sandboxed, on purpose (most servers need the network and their caches),
    /// and `check --explain` says so. An HTTP server is not a local program and refuses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = serde_json::json!({"mode": "read-only", "network": true}))]
    pub sandbox: Option<SandboxSpec>,
}

/// `approval_required` of an `mcp` toolset: a list of the server's tool names, `true` or
/// `false`, or `destructive`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum McpApprovalRequired {
    /// `true`: every tool of the server; `false`: none.
    All(bool),
    /// These tools, by the server's own names (before any `prefix`).
    Tools(Vec<String>),
    /// `destructive`: the tools whose annotations do not say they are safe.
    Annotated(McpApprovalHint),
}

/// Written by hand so the three words share one choice: a value that is none of them is told
/// `true`, `false` or `destructive`, not only the one word that is a string.
impl JsonSchema for McpApprovalRequired {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "McpApprovalRequired".into()
    }

    fn json_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "`approval_required` of an `mcp` toolset: a list of the server's tool names, `true` or `false`, or `destructive`.",
            "anyOf": [
                {
                    "description": "These tools, by the server's own names (before any `prefix`).",
                    "type": "array",
                    "items": {"type": "string"}
                },
                {
                    "description": "`true`: every tool of the server; `false`: none; `destructive`: the tools whose annotations do not say they are safe.",
                    "type": ["boolean", "string"],
                    "enum": [true, false, "destructive"]
                }
            ]
        })
    }
}

impl Default for McpApprovalRequired {
    fn default() -> Self {
        Self::Tools(Vec::new())
    }
}

/// The one word `approval_required` of an `mcp` toolset may be instead of a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum McpApprovalHint {
    /// Tools marked neither `readOnlyHint: true` nor `destructiveHint: false` (unmarked tools
    /// count as destructive, the protocol's default).
    Destructive,
}

/// How the client reaches the server, as the entry declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum McpTransportSpec<'a> {
    /// A local program over its standard input and output.
    Stdio {
        /// `command` as written.
        command: &'a str,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// `url` as written.
        url: &'a str,
    },
}

impl McpToolsetSpec {
    /// The transport the entry declares: `None` unless exactly one of `command` and `url` is
    /// set (the checker refuses both and neither).
    #[must_use]
    pub fn transport(&self) -> Option<McpTransportSpec<'_>> {
        match (self.command.as_deref(), self.url.as_deref()) {
            (Some(command), None) => Some(McpTransportSpec::Stdio { command }),
            (None, Some(url)) => Some(McpTransportSpec::Http { url }),
            _ => None,
        }
    }

    /// The folder a local server runs in: `cwd` relative to the manifest's folder `base_dir`,
    /// or that folder itself.
    #[must_use]
    pub fn cwd_in(&self, base_dir: &Path) -> PathBuf {
        manifest_relative(base_dir, self.cwd.as_deref().unwrap_or("."))
    }

    /// The name the model sees the server's tool `tool` by: the prefix joined with `_`, mapped
    /// to the provider rule the way the MCP client maps it ([`starweaver_names::map_tool_name`]).
    #[must_use]
    pub fn model_name(&self, tool: &str) -> String {
        starweaver_names::map_tool_name(self.prefix.as_deref(), tool)
    }

    /// How long the server has to start and list its tools.
    #[must_use]
    pub fn startup_timeout(&self) -> Duration {
        Duration::from_millis(self.startup_timeout_ms.unwrap_or(MCP_STARTUP_TIMEOUT_MS))
    }

    /// How long one tool call may take.
    #[must_use]
    pub fn call_timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms.unwrap_or(MCP_CALL_TIMEOUT_MS))
    }
}

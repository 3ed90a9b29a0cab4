//! `toolsets:`: what the agent can call, one entry per toolset, told
//! apart by `type:`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::mcp::McpToolsetSpec;

/// Which tools of a toolset need approval: a list of names, or `true`
/// for all.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ApprovalRequired {
    /// `true`: every tool of the toolset; `false`: none.
    All(bool),
    /// These tools, by their names in the toolset (before any `prefix`).
    Tools(Vec<String>),
}

impl Default for ApprovalRequired {
    fn default() -> Self {
        Self::Tools(Vec::new())
    }
}

/// Settings of the toolsets that only wrap others (proxy and search): a prefix and approvals.
/// Instructions, time limits and retries belong to the toolsets behind them.
macro_rules! wrapper_fields {
    ($(#[$meta:meta])* pub struct $name:ident { $($body:tt)* }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $($body)*
            /// A prefix for the names of the tools it offers (`prefix: docs` makes
            /// `tool_search` `docs_tool_search`). Unset: names as they are.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(example = &"docs")]
            pub prefix: Option<String>,
            /// Its own tools that wait for a person's approval before they run: a list of
            /// names, or `true` for all. Unset: none.
            #[serde(default)]
            #[schemars(example = true)]
            pub approval_required: ApprovalRequired,
        }
    };
}

/// Settings every toolset entry with tools of its own may carry.
macro_rules! common_fields {
    ($(#[$meta:meta])* pub struct $name:ident { $($body:tt)* }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $($body)*
            /// Text (plain, not a template) added to the agent's instructions while this toolset's
            /// tools are offered. Unset: none beyond a bundle's own.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(example = &"Prefer exact lookup before answering.")]
            pub instructions: Option<String>,
            /// Time limit of each of its tool calls, in milliseconds.
            /// Unset: `runtime.timeout_ms`.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(example = 5000)]
            pub timeout_ms: Option<u64>,
            /// Retries of each of its failed tool calls. Unset:
            /// `runtime.max_retries`.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(example = 2)]
            pub max_retries: Option<u32>,
            /// A prefix for its tool names, so two toolsets with a tool of
            /// the same name can both be offered (`prefix: docs` makes
            /// `lookup` `docs_lookup`). Unset: names as they are.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(example = &"docs")]
            pub prefix: Option<String>,
            /// Tools that wait for a person's approval before they run: a
            /// list of names, or `true` for all. Unset: none.
            #[serde(default)]
            #[schemars(example = true)]
            pub approval_required: ApprovalRequired,
        }
    };
}

common_fields! {
    /// `type: tools`: tools registered in code, by name.
    pub struct ToolsToolsetSpec {
        /// The toolset's name, unique in the manifest (proxies and search
        /// name toolsets by it).
        #[schemars(example = &"glossary")]
        pub name: String,
        /// Names of tools registered in code (`#[starweaver::tool]` or an
        /// explicit registration).
        #[schemars(example = serde_json::json!(["lookup"]))]
        pub tools: Vec<String>,
    }
}

common_fields! {
    /// `type: filesystem`: the filesystem bundle.
    pub struct FilesystemToolsetSpec {
        /// The toolset's name, unique in the manifest. Unset: `filesystem`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(example = &"files")]
        pub name: Option<String>,
        /// A choice of the bundle's tools by name (`ls`, `read_file`,
        /// `write_file`, `edit_file`, `glob`, `grep`). Unset: all of them
        /// (the read-only ones with `read_only: true`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(example = serde_json::json!(["ls", "read_file", "grep"]))]
        pub tools: Option<Vec<String>>,
        /// Keep only the tools that list, read and search (`ls`,
        /// `read_file`, `glob`, `grep`); naming a writing tool in `tools`
        /// as well is an error.
        #[serde(default)]
        #[schemars(example = true)]
        pub read_only: bool,
    }
}

common_fields! {
    /// `type: shell` or `type: user_input`: a first-party bundle.
    pub struct BundleToolsetSpec {
        /// The toolset's name, unique in the manifest. Unset: the
        /// bundle's (`shell` or `user_input`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(example = &"commands")]
        pub name: Option<String>,
        /// A choice of the bundle's tools by name (the shell's are
        /// `shell_exec` and the background process tools `shell_status`,
        /// `shell_wait`, `shell_input`, `shell_signal`, `shell_kill`; the
        /// user input bundle has `ask_user_question`). Unset: all of them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(example = serde_json::json!(["shell_exec"]))]
        pub tools: Option<Vec<String>>,
    }
}

wrapper_fields! {
    /// `type: proxy`: toolsets hidden behind `search_tools`/`call_tool`;
    /// the toolsets it names are reachable only through it.
    pub struct ProxyToolsetSpec {
        /// The proxy's name, unique in the manifest.
        #[schemars(example = &"workspace")]
        pub name: String,
        /// Names of the toolsets behind it (declared in this manifest,
        /// not proxies or searches); they are offered only through it.
        #[schemars(example = serde_json::json!(["glossary"]))]
        pub toolsets: Vec<String>,
    }
}

wrapper_fields! {
    /// `type: search`: `tool_search` loads the named toolsets' tools on
    /// demand.
    pub struct SearchToolsetSpec {
        /// The search toolset's name, unique in the manifest.
        #[schemars(example = &"docs")]
        pub name: String,
        /// Names of the searchable toolsets (declared in this manifest, not
        /// proxies or searches); their tools are offered only once found.
        #[schemars(example = serde_json::json!(["glossary"]))]
        pub toolsets: Vec<String>,
        /// Tools of those toolsets offered from the first request, without
        /// a search. Unset: none.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[schemars(example = serde_json::json!(["lookup"]))]
        pub preload: Vec<String>,
    }
}

common_fields! {
    /// `type: deferred`: calls handed to an external worker.
    pub struct DeferredToolsetSpec {
        /// The toolset's name, unique in the manifest.
        #[schemars(example = &"jobs")]
        pub name: String,
        /// Names of tools whose calls pause the run until an external
        /// worker supplies the result: tools registered in code, or
        /// first-party tools (`edit_file`, `shell_exec`, ...), which are
        /// then handed to the worker instead of run (a first-party name
        /// needs no catalog). Unset: none (then `toolsets:` names some).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[schemars(example = serde_json::json!(["render_video"]))]
        pub tools: Vec<String>,
        /// Names of toolsets (declared in this manifest, with tools of
        /// their own: not proxies or searches) whose every tool is handed
        /// to the worker, whatever tools they list when the run starts (an
        /// `mcp` server's); they are offered only through this entry. The
        /// toolsets are still set up and stopped with the run, so their
        /// definitions reach the model, but their own calls never run.
        /// Unset: none.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[schemars(example = serde_json::json!(["renderer"]))]
        pub toolsets: Vec<String>,
    }
}

/// The nesting limit of a sub-agent tree when `max_depth` is unset.
pub const DEFAULT_AGENT_MAX_DEPTH: u32 = 2;

/// One sub-agent of an `agents` toolset: a manifest file, offered to the model as one tool.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubAgentSpec {
    /// The sub-agent's manifest, relative to this manifest's folder and inside it.
    #[schemars(example = &"reviewer.yaml")]
    pub path: String,
    /// The tool's name. Unset: the sub-agent manifest's `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"review_change")]
    pub tool: Option<String>,
    /// What the tool does, as the model reads it. Unset: the sub-agent manifest's
    /// `description`, else one the runtime writes from its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"Reviews a diff and returns findings.")]
    pub description: Option<String>,
}

/// `type: agents`: other manifests as tools; each call runs that agent on a task. A call is
/// never retried (a sub-agent's run is not repeated behind the model's back), so the entry has
/// no `max_retries`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentsToolsetSpec {
    /// The toolset's name, unique in the manifest.
    #[schemars(example = &"helpers")]
    pub name: String,
    /// The sub-agents, one tool each: the tool takes `task` (required) and each of the
    /// sub-agent's `vars` as an optional string.
    #[schemars(example = serde_json::json!([{"path": "reviewer.yaml"}]))]
    pub agents: Vec<SubAgentSpec>,
    /// How deep the tree of sub-agents below this manifest may go, in levels (this
    /// manifest's sub-agents are level 1). A sub-agent's own `max_depth` can only narrow
    /// it: the smallest limit on the path applies. Unset: 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = 2, range(min = 1))]
    pub max_depth: Option<u32>,
    /// Text (plain, not a template) added to the agent's instructions while these tools are
    /// offered. Unset: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"Hand reviews to `reviewer`; do not review yourself.")]
    pub instructions: Option<String>,
    /// Time limit of each call, in milliseconds: the whole run of the sub-agent. Unset:
    /// `runtime.timeout_ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = 120_000)]
    pub timeout_ms: Option<u64>,
    /// A prefix for its tool names (`prefix: ask` makes `reviewer` `ask_reviewer`). Unset:
    /// names as they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"ask")]
    pub prefix: Option<String>,
    /// Sub-agents whose calls wait for a person's approval before they run: a list of tool
    /// names, or `true` for all. Unset: none.
    #[serde(default)]
    #[schemars(example = true)]
    pub approval_required: ApprovalRequired,
}

/// One toolset entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolsetSpec {
    /// Tools registered in code (`#[starweaver::tool]` or an explicit
    /// registration), named one by one.
    Tools(ToolsToolsetSpec),
    /// The filesystem bundle: list, read, search, write and edit files in
    /// the environment.
    Filesystem(FilesystemToolsetSpec),
    /// The shell bundle: run commands in the environment, as the `shell`
    /// section allows.
    Shell(BundleToolsetSpec),
    /// The clarifying-question bundle: the model asks the person running
    /// the agent, and the run waits for the answer.
    UserInput(BundleToolsetSpec),
    /// A tool proxy: the named toolsets hide behind two tools,
    /// `search_tools` and `call_tool`, so a large toolset costs the model
    /// two definitions.
    Proxy(ProxyToolsetSpec),
    /// Tool search: the named toolsets' tools are offered once the model
    /// finds them with `tool_search`.
    Search(SearchToolsetSpec),
    /// Deferred tools: the model's calls are handed to an external worker,
    /// and the run waits for their results.
    Deferred(DeferredToolsetSpec),
    /// An MCP server's tools: a local program over standard input and output (`command`), or
    /// a streamable HTTP endpoint (`url`). Needs no `environment`.
    Mcp(McpToolsetSpec),
    /// Sub-agents: other manifests, each offered as one tool that runs that agent on a task
    /// and returns its answer.
    Agents(AgentsToolsetSpec),
}

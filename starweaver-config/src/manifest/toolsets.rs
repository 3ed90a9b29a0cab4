//! `toolsets:`: what the agent can call, one entry per toolset, told
//! apart by `type:`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which tools of a toolset need approval: a list of names, or `true`
/// for all.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ApprovalRequired {
    /// `true` (all) or `false` (none).
    All(bool),
    /// These tools, by name.
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
            /// A prefix for its tool names (wraps it in a `PrefixedToolset`).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub prefix: Option<String>,
            /// Tools that need approval before they run.
            #[serde(default)]
            pub approval_required: ApprovalRequired,
        }
    };
}

/// Settings every toolset entry may carry.
macro_rules! common_fields {
    ($(#[$meta:meta])* pub struct $name:ident { $($body:tt)* }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $($body)*
            /// Instructions added to the agent's for this toolset.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub instructions: Option<String>,
            /// Time limit of each of its tools.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub timeout_ms: Option<u64>,
            /// Retry budget of each of its tools.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub max_retries: Option<u32>,
            /// A prefix for its tool names (wraps it in a `PrefixedToolset`).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub prefix: Option<String>,
            /// Tools that need approval before they run.
            #[serde(default)]
            pub approval_required: ApprovalRequired,
        }
    };
}

common_fields! {
    /// `type: tools`: tools registered in code, by name.
    pub struct ToolsToolsetSpec {
        /// The toolset's name (for proxies, search and diagnostics).
        pub name: String,
        /// Tool names from the catalog.
        pub tools: Vec<String>,
    }
}

common_fields! {
    /// `type: filesystem`: the filesystem bundle.
    pub struct FilesystemToolsetSpec {
        /// The toolset's name (default `filesystem`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
        /// A choice of the bundle's tools (default: all).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tools: Option<Vec<String>>,
        /// Only listing, reading and searching (default `false`).
        #[serde(default)]
        pub read_only: bool,
    }
}

common_fields! {
    /// `type: shell` or `type: user_input`: a first-party bundle.
    pub struct BundleToolsetSpec {
        /// The toolset's name (default: the bundle's).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
        /// A choice of the bundle's tools (default: all).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tools: Option<Vec<String>>,
    }
}

wrapper_fields! {
    /// `type: proxy`: toolsets hidden behind `search_tools`/`call_tool`;
    /// the toolsets it names are reachable only through it.
    pub struct ProxyToolsetSpec {
        /// The proxy's name.
        pub name: String,
        /// Names of the toolsets behind it.
        pub toolsets: Vec<String>,
    }
}

wrapper_fields! {
    /// `type: search`: `tool_search` loads the named toolsets' tools on
    /// demand.
    pub struct SearchToolsetSpec {
        /// The search toolset's name.
        pub name: String,
        /// Names of the searchable toolsets.
        pub toolsets: Vec<String>,
        /// Tools loaded from the start.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub preload: Vec<String>,
    }
}

common_fields! {
    /// `type: deferred`: calls handed to an external worker.
    pub struct DeferredToolsetSpec {
        /// The toolset's name.
        pub name: String,
        /// Tool names from the catalog.
        pub tools: Vec<String>,
    }
}

/// One toolset entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolsetSpec {
    /// Tools registered in code.
    Tools(ToolsToolsetSpec),
    /// The filesystem bundle.
    Filesystem(FilesystemToolsetSpec),
    /// The shell bundle.
    Shell(BundleToolsetSpec),
    /// The clarifying-question bundle.
    UserInput(BundleToolsetSpec),
    /// A tool proxy.
    Proxy(ProxyToolsetSpec),
    /// Tool search.
    Search(SearchToolsetSpec),
    /// Deferred calls.
    Deferred(DeferredToolsetSpec),
}

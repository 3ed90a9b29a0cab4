//! What the toolset builder assembled, recorded as it builds: each toolset's tools under the
//! names the model calls them by, which wait for approval, which are deferred, and which are
//! reachable only through a proxy or a search. Hosts and `starweaver check --explain` show
//! these instead of reading the manifest again.

/// How the model gets to a toolset's tools.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Offered in the agent's requests directly.
    Direct,
    /// Only through this proxy's `search_tools` and `call_tool`.
    Proxy(String),
    /// Only once this search toolset's `tool_search` (or its `preload`) loads them.
    Search(String),
}

/// One tool as the assembled agent has it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolSummary {
    /// The name the model calls it by (after every prefix).
    pub name: String,
    /// The name its toolset gives it (before any prefix).
    pub base: String,
    /// Whether a call waits for a human's approval.
    pub approval: bool,
    /// Whether calls are handed to an external worker instead of run.
    pub deferred: bool,
}

/// One `toolsets:` entry as the loader built it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolsetSummary {
    /// The toolset's name (explicit or the bundle's default).
    pub name: String,
    /// The manifest `type:` (`tools`, `filesystem`, `shell`, `user_input`, `proxy`, `search`,
    /// `deferred`).
    pub kind: &'static str,
    /// How its tools are reached: directly, or through the first proxy or search naming it.
    pub reach: Reach,
    /// Its own tools, in the order the toolset lists them. A proxy's are `search_tools` and
    /// `call_tool`, a search's is `tool_search`; the tools behind them are in the summaries of
    /// the toolsets they wrap.
    pub tools: Vec<ToolSummary>,
    /// For a proxy or search, the toolsets behind it.
    pub wraps: Vec<String>,
}

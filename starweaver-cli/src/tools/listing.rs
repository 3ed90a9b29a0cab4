//! From the assembled agent to the rows `starweaver tools` shows: each definition as the model
//! gets it, with the toolset it comes from and how the model reaches it.

use std::collections::BTreeSet;

use serde_json::Value;
use starweaver_config::load::{LoadedAgent, Reach};
use starweaver_core::bundles::CLARIFYING_QUESTIONS_REQUEST_KIND;
use starweaver_core::context::AgentContext;
use starweaver_core::model::ToolDefinition;
use starweaver_core::tools::{
    ToolRegistry, APPROVAL_REQUEST_KIND_METADATA_KEY, APPROVAL_REQUIRED_METADATA_KEY,
    DEFERRED_CALL_METADATA_KEY,
};

/// The metadata key under which the MCP client describes a server's tool: `server`, `tool`
/// (the server's own name), `read_only_hint`, `destructive_hint`.
const MCP_METADATA_KEY: &str = "mcp";

/// How the model gets to a tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Route {
    /// Offered on the first request, run by the agent.
    Direct,
    /// Offered on the first request; a call is handed to the host and the run waits for its
    /// result.
    Deferred,
    /// Offered once this search toolset's `tool_search` loads it.
    Search(String),
    /// Described by this proxy's `search_tools` and called through its `call_tool`.
    Proxy(String),
}

impl Route {
    /// `direct`, `deferred`, `search` or `proxy`.
    pub(super) fn kind(&self) -> &'static str {
        match self {
            Self::Direct => "direct",
            Self::Deferred => "deferred",
            Self::Search(_) => "search",
            Self::Proxy(_) => "proxy",
        }
    }

    /// The search or proxy in between, if any.
    pub(super) fn via(&self) -> Option<&str> {
        match self {
            Self::Search(name) | Self::Proxy(name) => Some(name),
            Self::Direct | Self::Deferred => None,
        }
    }
}

/// What a call of a tool waits for from a person.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Approval {
    /// Nothing: it runs.
    None,
    /// A yes or no (or edited arguments) before it runs.
    Required,
    /// Answers to the clarifying questions it asks.
    Answers,
}

/// One tool as listed.
#[derive(Clone, Debug)]
pub(super) struct Listed {
    /// The definition, as the model request (or the proxy's `search_tools`) carries it.
    pub definition: ToolDefinition,
    /// The toolset it comes from, when known.
    pub toolset: Option<String>,
    /// Whether the first model request offers it.
    pub first: bool,
    /// How the model reaches it.
    pub route: Route,
    /// What a call waits for from a person, if anything.
    pub approval: Approval,
    /// `false` for a code tool no catalog described (a stand-in without parameters).
    pub verified: bool,
    /// For a tool an MCP server offers: its own name and the hints it gives.
    pub mcp: Option<McpOrigin>,
}

/// Where an MCP tool comes from, as the client wrote it into the definition's metadata (the
/// server's words, shown, never trusted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct McpOrigin {
    /// The toolset (the server) offering it.
    pub server: String,
    /// The tool's name on the server, before prefixing and mapping.
    pub tool: String,
    /// `readOnlyHint`, when the server gave it.
    pub read_only: Option<bool>,
    /// `destructiveHint`, when the server gave it.
    pub destructive: Option<bool>,
}

impl McpOrigin {
    /// The origin `definition`'s metadata records, if it is an MCP tool.
    fn of(definition: &ToolDefinition) -> Option<Self> {
        let mcp = definition.metadata.get(MCP_METADATA_KEY)?;
        let text = |key: &str| mcp.get(key).and_then(Value::as_str).map(str::to_string);
        let hint = |key: &str| mcp.get(key).and_then(Value::as_bool);
        Some(Self {
            server: text("server")?,
            tool: text("tool")?,
            read_only: hint("read_only_hint"),
            destructive: hint("destructive_hint"),
        })
    }

    /// The hints in words: `read-only`, `destructive`, `not destructive`, ... or `no hints`.
    pub(super) fn hints(&self) -> String {
        let mut words = Vec::new();
        match self.read_only {
            Some(true) => words.push("read-only"),
            Some(false) => words.push("writes"),
            None => {}
        }
        match self.destructive {
            Some(true) => words.push("destructive"),
            Some(false) => words.push("not destructive"),
            None => {}
        }
        if words.is_empty() {
            "no hints".to_string()
        } else {
            words.join(", ")
        }
    }
}

/// Every tool the agent can reach through `registry` in `context` (the agent's, with its
/// servers started): those the first request offers (in the order the request lists them),
/// then those a search loads later, then those behind a proxy.
pub(super) fn list(
    loaded: &LoadedAgent,
    registry: &ToolRegistry,
    context: &AgentContext,
    catalog: bool,
) -> Vec<Listed> {
    // As a run offers them: with the output tool the agent adds to every request.
    let registry = &loaded.agent.with_run_tools(registry);
    let first = registry.definitions_for_context(context);
    let offered: BTreeSet<String> = first.iter().map(|d| d.name.clone()).collect();
    let listed = |definition, first| row(loaded, registry, definition, first, catalog);
    let mut rows: Vec<Listed> = first
        .into_iter()
        .map(|definition| listed(definition, true))
        .collect();
    let later = registry
        .definitions()
        .into_iter()
        .filter(|definition| !offered.contains(&definition.name));
    for definition in later.chain(loaded.proxied.iter().cloned()) {
        rows.push(listed(definition, false));
    }
    rows
}

/// A row for `definition`, offered on the first request or not.
fn row(
    loaded: &LoadedAgent,
    registry: &ToolRegistry,
    definition: ToolDefinition,
    first: bool,
    catalog: bool,
) -> Listed {
    let marked = |key: &str| definition.metadata.get(key).and_then(Value::as_bool) == Some(true);
    let mcp = McpOrigin::of(&definition);
    let route = match via(loaded, &definition.name, mcp.as_ref()) {
        Some(Reach::Search(search)) => Route::Search(search),
        Some(Reach::Proxy(proxy)) => Route::Proxy(proxy),
        _ if marked(DEFERRED_CALL_METADATA_KEY) => Route::Deferred,
        _ => Route::Direct,
    };
    let asks = definition
        .metadata
        .get(APPROVAL_REQUEST_KIND_METADATA_KEY)
        .and_then(Value::as_str)
        == Some(CLARIFYING_QUESTIONS_REQUEST_KIND);
    let approval = match (marked(APPROVAL_REQUIRED_METADATA_KEY), asks) {
        (_, true) => Approval::Answers,
        (true, false) => Approval::Required,
        (false, false) => Approval::None,
    };
    let summary = loaded.toolsets.iter().find(|summary| {
        summary
            .tools
            .iter()
            .any(|tool| tool.name == definition.name)
    });
    let toolset = summary.map(|s| s.name.clone()).or_else(|| {
        // Tools the loader adds outside `toolsets:` (the skills'), and a server's (known only
        // once it started), name their own toolset.
        registry
            .toolsets()
            .iter()
            .find(|toolset| {
                toolset
                    .get_tools()
                    .iter()
                    .any(|tool| tool.name() == definition.name)
            })
            .map(|toolset| toolset.name().to_string())
    });
    let code = summary.is_some_and(|s| matches!(s.kind, "tools" | "deferred"));
    // A code tool that only a stand-in describes has no description; a deferred first-party
    // tool keeps its own.
    let verified = catalog || !code || definition.description.is_some();
    Listed {
        approval,
        definition,
        toolset,
        first,
        route,
        verified,
        mcp,
    }
}

/// How the summaries say `name` is reached (the first toolset that has it; for a server's
/// tool, which the summaries cannot list, the server's toolset).
fn via(loaded: &LoadedAgent, name: &str, mcp: Option<&McpOrigin>) -> Option<Reach> {
    loaded
        .toolsets
        .iter()
        .find(|summary| summary.tools.iter().any(|tool| tool.name == name))
        .or_else(|| {
            let server = &mcp?.server;
            loaded
                .toolsets
                .iter()
                .find(|summary| summary.kind == "mcp" && &summary.name == server)
        })
        .map(|summary| summary.reach.clone())
}

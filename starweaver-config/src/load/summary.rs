//! What the toolset builder assembled, recorded as it builds: each toolset's tools under the
//! names the model calls them by, which wait for approval, which are deferred, and which are
//! reachable only through a proxy or a search. Hosts and `starweaver check --explain` show
//! these instead of reading the manifest again.

use std::collections::BTreeSet;

use starweaver_core::context::AgentContext;
use starweaver_core::tools::DynToolset;
use starweaver_core::toolsets::{PrefixedToolset, StaticToolset};

use crate::manifest::ToolsetSpec;

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

/// The manifest `type:` of an entry.
pub(super) fn kind_of(spec: &ToolsetSpec) -> &'static str {
    match spec {
        ToolsetSpec::Tools(_) => "tools",
        ToolsetSpec::Filesystem(_) => "filesystem",
        ToolsetSpec::Shell(_) => "shell",
        ToolsetSpec::UserInput(_) => "user_input",
        ToolsetSpec::Proxy(_) => "proxy",
        ToolsetSpec::Search(_) => "search",
        ToolsetSpec::Deferred(_) => "deferred",
        ToolsetSpec::Mcp(_) => "mcp",
        ToolsetSpec::Agents(_) => "agents",
    }
}

/// Records that `wrapped` is reachable only through the proxy or search `spec` (the first one
/// naming it wins). A search's prefix also renames the tools it loads.
pub(super) fn hide(
    summaries: &mut [ToolsetSummary],
    wrapped: &str,
    spec: &ToolsetSpec,
    prefix: Option<&str>,
) {
    let Some(summary) = summaries
        .iter_mut()
        .find(|summary| summary.name == wrapped && summary.reach == Reach::Direct)
    else {
        return;
    };
    let rename = |summary: &mut ToolsetSummary| {
        if let Some(prefix) = prefix {
            let renamed = PrefixedToolset::new(prefix, StaticToolset::new(wrapped));
            for tool in &mut summary.tools {
                tool.name = renamed.prefixed_name(&tool.name);
            }
        }
    };
    summary.reach = match spec {
        ToolsetSpec::Search(search) => {
            rename(summary);
            Reach::Search(search.name.clone())
        }
        ToolsetSpec::Proxy(proxy) => Reach::Proxy(proxy.name.clone()),
        // Offered as before (under the deferred set's prefix), but handed to the worker.
        ToolsetSpec::Deferred(_) => {
            rename(summary);
            for tool in &mut summary.tools {
                tool.deferred = true;
            }
            return;
        }
        _ => return,
    };
}

/// Pairs each tool as gated (its own name, approval and deferral marks) with the same tool as
/// exposed (its final name); a prefix keeps the order and count of the tools it renames.
pub(super) fn summarize(gated: &DynToolset, exposed: &DynToolset) -> Vec<ToolSummary> {
    gated
        .get_tools()
        .iter()
        .zip(exposed.get_tools().iter())
        .map(|(inner, outer)| {
            let facts = inner.facts();
            ToolSummary {
                name: outer.name().to_string(),
                base: inner.name().to_string(),
                approval: facts.approval_required,
                deferred: facts.is_deferred(),
            }
        })
        .collect()
}

/// Keeps, of a search's tools, only its own (`tool_search`): the searched tools are registered
/// through it too, but not loaded until `tool_search` (or `preload`) loads them, and they are
/// summarized with their own toolsets.
pub(super) fn keep_own(search: &DynToolset, tools: &mut Vec<ToolSummary>) {
    let fresh = AgentContext::new();
    let own: BTreeSet<String> = search
        .get_tools()
        .iter()
        .filter(|tool| tool.is_loaded(&fresh))
        .map(|tool| tool.name().to_string())
        .collect();
    tools.retain(|tool| own.contains(&tool.name));
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::sync::Arc;

    use serde_json::json;
    use starweaver_core::tools::{string_tool, DynTool, ToolResult};

    use super::*;
    use crate::load::{load, LoadOptions};
    use crate::validate::{check_manifest, CheckContext};

    fn tool(name: &str) -> Option<DynTool> {
        Some(Arc::new(string_tool(
            name,
            None,
            json!({"type": "object"}),
            |_, _| async { Ok(ToolResult::new(json!(null))) },
        )))
    }

    fn summaries(yaml: &str) -> (Vec<ToolsetSummary>, Vec<String>) {
        let context = CheckContext::new()
            .with_catalog(["restart", "status", "stop", "fetch", "deploy", "probe"]);
        let (found, checked) = check_manifest(yaml.as_bytes(), &context);
        let checked = checked.unwrap_or_else(|| panic!("{found:?}"));
        let options = LoadOptions::new().with_tools(tool);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let loaded = runtime.block_on(load(&checked, &options)).unwrap();
        (loaded.toolsets, loaded.tool_names)
    }

    #[test]
    fn summaries_record_final_names_approvals_and_what_hides_a_toolset() {
        let (summaries, offered) = summaries(
            "version: 1
name: a
model: {id: test}
toolsets:
  - {type: tools, name: ops, tools: [restart, status, stop], prefix: ops, approval_required: [restart, ops_stop]}
  - {type: tools, name: web, tools: [fetch]}
  - {type: search, name: finder, toolsets: [web], prefix: s}
  - {type: deferred, name: jobs, tools: [deploy]}
  - {type: tools, name: back, tools: [probe]}
  - {type: proxy, name: more, toolsets: [back]}
",
        );
        let kinds: Vec<&str> = summaries.iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            ["tools", "tools", "search", "deferred", "tools", "proxy"]
        );
        let ops = &summaries[0];
        assert_eq!(ops.reach, Reach::Direct);
        let restart = &ops.tools[0];
        assert_eq!(
            (restart.name.as_str(), restart.base.as_str()),
            ("ops_restart", "restart")
        );
        assert!(restart.approval && !ops.tools[1].approval);
        // `approval_required` may name a tool as the model sees it, with the prefix.
        assert_eq!(ops.tools[2].name, "ops_stop");
        assert!(ops.tools[2].approval);
        // A search's prefix renames what it loads, and its own tool.
        assert_eq!(summaries[1].reach, Reach::Search("finder".to_string()));
        assert_eq!(summaries[1].tools[0].name, "s_fetch");
        let names: Vec<&str> = summaries[2].tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["s_tool_search"]);
        assert_eq!(summaries[2].wraps, ["web"]);
        assert!(summaries[3].tools[0].deferred);
        assert_eq!(summaries[4].reach, Reach::Proxy("more".to_string()));
        // Every tool a direct toolset summarizes is what the first request offers.
        for summary in summaries.iter().filter(|s| s.reach == Reach::Direct) {
            for tool in &summary.tools {
                assert!(
                    offered.contains(&tool.name),
                    "{} not in {offered:?}",
                    tool.name
                );
            }
        }
        assert!(!offered.contains(&"s_fetch".to_string()));
        assert!(!offered.contains(&"probe".to_string()));
    }
}

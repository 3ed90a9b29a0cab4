//! Seventh review: a panicking availability callback must hide its tool
//! the same way whether the registry, the tool proxy (`search_tools`) or
//! tool search (`tool_search`, [`ToolSearchToolset::search`] and its
//! reports) asks. The registry guards the callback; the proxy and search
//! once called it bare, so the panic escaped as a failed tool call (or,
//! through the public search API, as a crash).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use starweaver::{
    tool_proxy_toolset, tool_search_toolset, AgentContext, ToolRegistry, ToolReturnKind,
};

mod common;
use common::{ambient, call, json_names, records_toolset};

// ---------------------------------------------------------------------------
// The same rule behind the proxy and tool search
// ---------------------------------------------------------------------------

#[tokio::test]
async fn proxy_search_hides_a_tool_whose_availability_check_panics() {
    let registry = ToolRegistry::new().with_toolset(&tool_proxy_toolset(vec![records_toolset()]));
    let part = registry
        .execute_call(
            ambient(AgentContext::default()),
            &call(
                "s1",
                "search_tools",
                json!({"query": "look up customer records"}),
            ),
        )
        .await;
    assert_eq!(
        part.kind,
        ToolReturnKind::Success,
        "search_tools failed: {}",
        part.content
    );
    assert_eq!(
        json_names(&part.content["tools"], "name"),
        vec!["steady_lookup"]
    );
}

#[tokio::test]
async fn tool_search_hides_a_tool_whose_availability_check_panics() {
    let registry = ToolRegistry::new().with_toolset(&tool_search_toolset(vec![records_toolset()]));
    let part = registry
        .execute_call(
            ambient(AgentContext::default()),
            &call(
                "s1",
                "tool_search",
                json!({"query": "look up customer records"}),
            ),
        )
        .await;
    assert_eq!(
        part.kind,
        ToolReturnKind::Success,
        "tool_search failed: {}",
        part.content
    );
    assert_eq!(
        json_names(&part.content["loaded_tools"], ""),
        vec!["steady_lookup"]
    );
}

#[test]
fn search_api_and_report_treat_a_panicking_availability_check_as_unavailable() {
    let search = tool_search_toolset(vec![records_toolset()]);
    let context = AgentContext::default();
    assert_eq!(
        search
            .search(&context, "look up customer records", None)
            .unwrap(),
        vec!["steady_lookup"]
    );
    let report = search.initialization_report(&context);
    assert_eq!(report.available_tools, 1);
    assert_eq!(report.unavailable_tools, 1);
}

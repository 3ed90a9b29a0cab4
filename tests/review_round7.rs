//! Seventh review: a panicking availability callback must hide its tool
//! the same way whether the registry, the tool proxy (`search_tools`) or
//! tool search (`tool_search`, [`ToolSearchToolset::search`] and its
//! reports) asks. The registry guards the callback; the proxy and search
//! once called it bare, so the panic escaped as a failed tool call (or,
//! through the public search API, as a crash).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use serde_json::{json, Value};
use starweaver::{
    tool_proxy_toolset, tool_search_toolset, AgentContext, DynTool, DynToolset, StaticToolset,
    ToolRegistry, ToolReturnKind,
};

mod common;
use common::{ambient, call, echo, echo_tool};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// A record lookup whose availability callback panics.
fn flaky() -> DynTool {
    Arc::new(
        echo_tool("flaky_lookup", "Looks up customer records")
            .with_availability(|_context| panic!("availability check exploded")),
    )
}

/// A toolset with the flaky lookup and a well-behaved one.
fn records() -> DynToolset {
    Arc::new(
        StaticToolset::new("records")
            .with_tool(flaky())
            .with_tool(echo("steady_lookup", "Looks up customer records")),
    )
}

fn names(values: &Value, key: &str) -> Vec<String> {
    values
        .as_array()
        .unwrap_or_else(|| panic!("no array in {values}"))
        .iter()
        .map(|value| match key {
            "" => value.as_str().unwrap().to_string(),
            key => value[key].as_str().unwrap().to_string(),
        })
        .collect()
}

// ---------------------------------------------------------------------------
// The registry's rule: a panicking availability check means "unavailable"
// ---------------------------------------------------------------------------

#[test]
fn registry_hides_a_tool_whose_availability_check_panics() {
    let registry = ToolRegistry::new().with_toolset(&records());
    let report = registry.availability_report(&AgentContext::default());
    assert_eq!(report.available, vec!["steady_lookup"]);
    assert_eq!(report.unavailable, vec!["flaky_lookup"]);
}

// ---------------------------------------------------------------------------
// The same rule behind the proxy and tool search
// ---------------------------------------------------------------------------

#[tokio::test]
async fn proxy_search_hides_a_tool_whose_availability_check_panics() {
    let registry = ToolRegistry::new().with_toolset(&tool_proxy_toolset(vec![records()]));
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
    assert_eq!(names(&part.content["tools"], "name"), vec!["steady_lookup"]);
}

#[tokio::test]
async fn tool_search_hides_a_tool_whose_availability_check_panics() {
    let registry = ToolRegistry::new().with_toolset(&tool_search_toolset(vec![records()]));
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
        names(&part.content["loaded_tools"], ""),
        vec!["steady_lookup"]
    );
}

#[test]
fn search_api_and_report_treat_a_panicking_availability_check_as_unavailable() {
    let search = tool_search_toolset(vec![records()]);
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

//! Loading tools by query and namespace, limits, events, reports, ties,
//! and availability checks during search.

use std::sync::Arc;

use serde_json::{json, Value};
use starweaver::context::ContextEventKind;
use starweaver::model::ToolReturnKind;
use starweaver::tools::ToolSearchToolset;
use starweaver::{
    tool_search_toolset, AgentContext, DynToolset, StaticToolset, ToolContext, ToolError,
    ToolRegistry, Toolset,
};

use crate::common::toolsets::{
    ambient_handle, assert_kind, names_for, never_available, payloads, set_of,
};
use crate::common::{ambient, call, echo, json_names, records_toolset, strings};

// ---------------------------------------------------------------------------
// ToolSearchToolset: loading
// ---------------------------------------------------------------------------

/// docs (namespace `docs_ns`): lookup_docs, list_docs, docs_changelog
/// billing (namespace `billing_ns`): create_invoice, refund_payment
/// misc (no id, namespace `misc`): weather_report, hidden_admin (never available)
fn search_toolsets() -> Vec<Arc<StaticToolset>> {
    vec![
        Arc::new(
            StaticToolset::new("docs")
                .with_id("docs_ns")
                .with_max_retries(6)
                .with_tool(echo("lookup_docs", "Look up documentation by topic"))
                .with_tool(echo("list_docs", "List documentation pages"))
                .with_tool(echo("docs_changelog", "Show the documentation changelog")),
        ),
        Arc::new(
            StaticToolset::new("billing")
                .with_id("billing_ns")
                .with_tool(echo("create_invoice", "Create a customer invoice"))
                .with_tool(echo("refund_payment", "Refund a customer payment")),
        ),
        Arc::new(
            StaticToolset::new("misc")
                .with_tool(echo("weather_report", "Report the weather"))
                .with_tool(never_available(
                    "hidden_admin",
                    "Administer the weather station",
                )),
        ),
    ]
}

fn search_registry() -> (Arc<ToolSearchToolset>, ToolRegistry) {
    let search = tool_search_toolset(search_toolsets());
    let registry = ToolRegistry::new().with_toolset(&search);
    (search, registry)
}

#[tokio::test]
async fn tool_search_initially_exposes_only_tool_search() {
    let (search, registry) = search_registry();
    assert_eq!(search.name(), "tool_search");
    assert_eq!(
        names_for(&registry, &AgentContext::default()),
        vec!["tool_search"]
    );
    let report = registry.availability_report(&AgentContext::default());
    assert_eq!(report.available, vec!["tool_search"]);
    assert!(report.not_loaded.contains(&"lookup_docs".to_string()));
    // Wrapped tools keep their toolset defaults.
    assert_eq!(registry.max_retries_for("lookup_docs"), 6);
}

#[tokio::test]
async fn tool_search_loads_matches_into_context_and_publishes_event() {
    let (_search, registry) = search_registry();
    let (handle, ctx) = ambient_handle(AgentContext::default());
    let part = registry
        .execute_call(ctx, &call("s1", "tool_search", json!({"query": "invoice"})))
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    assert_eq!(part.content["loaded_tools"], json!(["create_invoice"]));
    assert_eq!(part.content["matches"][0]["name"], "create_invoice");
    assert_eq!(part.content["matches"][0]["namespace"], "billing_ns");

    let context = handle.snapshot();
    assert_eq!(
        context.tool_search.loaded_tools,
        set_of(&["create_invoice"])
    );
    assert!(context.tool_search.loaded_namespaces.is_empty());
    let loaded = payloads(&context, ContextEventKind::ToolSearchLoaded);
    assert_eq!(loaded.len(), 1);
    assert_eq!(loaded[0]["source"], "search");
    assert_eq!(loaded[0]["query"], "invoice");
    assert_eq!(loaded[0]["tools"], json!(["create_invoice"]));
    assert_eq!(loaded[0]["namespaces"], json!([]));
    assert_eq!(loaded[0]["toolset"], "tool_search");

    assert_eq!(
        names_for(&registry, &context),
        vec!["create_invoice", "tool_search"]
    );

    // The loaded tool can now be called directly in the ambient context.
    let (_handle, ctx) = ambient_handle(context);
    let part = registry
        .execute_call(
            ctx,
            &call("c1", "create_invoice", json!({"customer": "acme"})),
        )
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    assert_eq!(part.content, json!({"customer": "acme"}));
}

#[tokio::test]
async fn tool_search_namespace_query_loads_whole_namespace() {
    let search = Arc::new(
        ToolSearchToolset::new(
            "tool_search",
            search_toolsets()
                .into_iter()
                .map(|toolset| toolset as DynToolset)
                .collect(),
        )
        .with_max_results(1),
    );
    let registry = ToolRegistry::new().with_toolset(&search);
    let (handle, ctx) = ambient_handle(AgentContext::default());
    let part = registry
        .execute_call(ctx, &call("s1", "tool_search", json!({"query": "docs_ns"})))
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    assert_eq!(part.content["loaded_namespaces"], json!(["docs_ns"]));
    // max_results caps loaded tools, but the namespace makes all visible.
    assert!(part.content["loaded_tools"].as_array().unwrap().len() <= 1);

    let context = handle.snapshot();
    assert!(context.tool_search.loaded_namespaces.contains("docs_ns"));
    let loaded = payloads(&context, ContextEventKind::ToolSearchLoaded);
    assert_eq!(loaded[0]["namespaces"], json!(["docs_ns"]));
    assert_eq!(loaded[0]["query"], "docs_ns");
    assert_eq!(
        names_for(&registry, &context),
        vec!["docs_changelog", "list_docs", "lookup_docs", "tool_search"]
    );

    // A toolset without an id is its own namespace (by name).
    let (handle, ctx) = ambient_handle(AgentContext::default());
    let part = registry
        .execute_call(ctx, &call("s2", "tool_search", json!({"query": "misc"})))
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    assert_eq!(part.content["loaded_namespaces"], json!(["misc"]));
    // The namespace's unavailable tool stays hidden.
    assert_eq!(
        names_for(&registry, &handle.snapshot()),
        vec!["tool_search", "weather_report"]
    );
}

#[tokio::test]
async fn tool_search_empty_query_fails_with_event_and_model_retry() {
    let (_search, registry) = search_registry();
    let (handle, ctx) = ambient_handle(AgentContext::default());
    let part = registry
        .execute_call(ctx, &call("s1", "tool_search", json!({"query": "  "})))
        .await;
    assert_kind(&part, ToolReturnKind::ModelRetry);
    assert!(part.kind.is_model_retry());
    assert_eq!(part.metadata["retry"]["class"], "model");
    let context = handle.snapshot();
    let failed = payloads(&context, ContextEventKind::ToolSearchFailed);
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["toolset"], "tool_search");
    assert!(context.tool_search.is_empty());
    assert!(payloads(&context, ContextEventKind::ToolSearchLoaded).is_empty());

    // An over-long query fails the same way.
    let (handle, ctx) = ambient_handle(AgentContext::default());
    let part = registry
        .execute_call(
            ctx,
            &call("s2", "tool_search", json!({"query": "docs ".repeat(100)})),
        )
        .await;
    assert_kind(&part, ToolReturnKind::ModelRetry);
    assert_eq!(
        payloads(&handle.snapshot(), ContextEventKind::ToolSearchFailed).len(),
        1
    );
}

#[tokio::test]
async fn tool_search_without_match_publishes_no_match() {
    let (_search, registry) = search_registry();
    let (handle, ctx) = ambient_handle(AgentContext::default());
    let part = registry
        .execute_call(
            ctx,
            &call(
                "s1",
                "tool_search",
                json!({"query": "quantum teleportation"}),
            ),
        )
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    assert_eq!(part.content["matches"], json!([]));
    assert_eq!(part.content["loaded_tools"], json!([]));
    let context = handle.snapshot();
    let no_match = payloads(&context, ContextEventKind::ToolSearchNoMatch);
    assert_eq!(no_match.len(), 1);
    assert_eq!(no_match[0]["query"], "quantum teleportation");
    assert!(payloads(&context, ContextEventKind::ToolSearchLoaded).is_empty());
    assert!(payloads(&context, ContextEventKind::ToolSearchFailed).is_empty());
    assert!(context.tool_search.is_empty());
}

#[tokio::test]
async fn calling_unloaded_hidden_tool_is_not_found_mentioning_tool_search() {
    let (_search, registry) = search_registry();
    let (_handle, ctx) = ambient_handle(AgentContext::default());
    let part = registry
        .execute_call(ctx, &call("c1", "lookup_docs", json!({})))
        .await;
    assert_kind(&part, ToolReturnKind::NotFound);
    let message = part.content["message"].as_str().unwrap();
    assert!(message.contains("tool_search"), "{message}");
}

#[tokio::test]
async fn tool_search_without_ambient_context_is_a_user_error() {
    let (_search, registry) = search_registry();
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call("s1", "tool_search", json!({"query": "invoice"})),
        )
        .await;
    assert_kind(&part, ToolReturnKind::UserError);
    assert!(part.is_error());
    assert!(!part.kind.is_model_retry());
}

#[tokio::test]
async fn tool_search_never_loads_unavailable_tools() {
    let (search, registry) = search_registry();
    let (handle, ctx) = ambient_handle(AgentContext::default());
    let part = registry
        .execute_call(
            ctx,
            &call("s1", "tool_search", json!({"query": "hidden_admin"})),
        )
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    let loaded = strings(&part.content["loaded_tools"]);
    assert!(!loaded.contains(&"hidden_admin".to_string()), "{loaded:?}");
    let context = handle.snapshot();
    assert!(!context.tool_search.loaded_tools.contains("hidden_admin"));
    assert!(!names_for(&registry, &context).contains(&"hidden_admin".to_string()));

    // The host-side search agrees.
    let found = search
        .search(&AgentContext::default(), "administer weather station", None)
        .unwrap();
    assert!(!found.contains(&"hidden_admin".to_string()), "{found:?}");
    assert!(found.contains(&"weather_report".to_string()), "{found:?}");
    // A query equal to a tool name ranks that tool first.
    let found = search
        .search(&AgentContext::default(), "list_docs", Some(1))
        .unwrap();
    assert_eq!(found, vec!["list_docs"]);
    assert!(search.search(&AgentContext::default(), " ", None).is_err());
}

#[tokio::test]
async fn tool_search_results_are_limited_by_max_results_and_limit() {
    let query = json!({"query": "documentation customer weather"});
    // Default max_results (8) is above the 6 available tools: everything
    // matching is loaded.
    let (_search, registry) = search_registry();
    let (handle, ctx) = ambient_handle(AgentContext::default());
    registry
        .execute_call(ctx, &call("s0", "tool_search", query.clone()))
        .await;
    assert_eq!(handle.snapshot().tool_search.loaded_tools.len(), 6);

    // with_max_results caps a search.
    let capped = Arc::new(
        ToolSearchToolset::new(
            "tool_search",
            search_toolsets()
                .into_iter()
                .map(|toolset| toolset as DynToolset)
                .collect(),
        )
        .with_max_results(2),
    );
    let registry = ToolRegistry::new().with_toolset(&capped);
    let (handle, ctx) = ambient_handle(AgentContext::default());
    let part = registry
        .execute_call(ctx, &call("s1", "tool_search", query.clone()))
        .await;
    assert_eq!(part.content["loaded_tools"].as_array().unwrap().len(), 2);
    assert_eq!(handle.snapshot().tool_search.loaded_tools.len(), 2);
    // A limit above max_results is clamped.
    let (handle, ctx) = ambient_handle(AgentContext::default());
    registry
        .execute_call(
            ctx,
            &call(
                "s2",
                "tool_search",
                json!({"query": "documentation customer weather", "limit": 50}),
            ),
        )
        .await;
    assert_eq!(handle.snapshot().tool_search.loaded_tools.len(), 2);

    // The limit argument caps a search below max_results.
    let (_search, registry) = search_registry();
    let (handle, ctx) = ambient_handle(AgentContext::default());
    let part = registry
        .execute_call(
            ctx,
            &call(
                "s3",
                "tool_search",
                json!({"query": "documentation customer weather", "limit": 1}),
            ),
        )
        .await;
    assert_eq!(part.content["loaded_tools"].as_array().unwrap().len(), 1);
    assert_eq!(handle.snapshot().tool_search.loaded_tools.len(), 1);
    assert_eq!(
        capped
            .initialization_report(&AgentContext::default())
            .max_results,
        2
    );
}

#[tokio::test]
async fn preload_namespace_records_state_and_emits_loaded_event() {
    let (search, registry) = search_registry();
    let mut context = AgentContext::default();
    let tools = search
        .preload_namespace(&mut context, "billing_ns")
        .unwrap();
    assert_eq!(tools, vec!["create_invoice", "refund_payment"]);
    assert!(context.tool_search.loaded_namespaces.contains("billing_ns"));
    let loaded = payloads(&context, ContextEventKind::ToolSearchLoaded);
    assert_eq!(loaded.len(), 1);
    assert_eq!(loaded[0]["source"], "preload");
    assert_eq!(loaded[0]["toolset"], "tool_search");
    assert_eq!(loaded[0]["namespaces"], json!(["billing_ns"]));
    assert_eq!(
        loaded[0]["tools"],
        json!(["create_invoice", "refund_payment"])
    );
    // Same event shape as a model-driven search.
    let (handle, ctx) = ambient_handle(AgentContext::default());
    registry
        .execute_call(
            ctx,
            &call("s1", "tool_search", json!({"query": "billing_ns"})),
        )
        .await;
    let searched = payloads(&handle.snapshot(), ContextEventKind::ToolSearchLoaded);
    let keys = |value: &Value| {
        value
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&searched[0]), keys(&loaded[0]));
    assert!(handle
        .snapshot()
        .tool_search
        .loaded_namespaces
        .contains("billing_ns"));

    assert_eq!(
        names_for(&registry, &context),
        vec!["create_invoice", "refund_payment", "tool_search"]
    );

    let mut context = AgentContext::default();
    let error = search
        .preload_namespace(&mut context, "no_such_ns")
        .unwrap_err();
    assert!(matches!(error, ToolError::UserError { .. }), "{error:?}");
    assert!(error.to_string().contains("no_such_ns"));
    assert!(context.tool_search.is_empty());
    assert!(context.events.events().is_empty());
}

// ---------------------------------------------------------------------------
// ToolSearchToolset: reports
// ---------------------------------------------------------------------------

#[tokio::test]
async fn initialization_and_refresh_reports_count_inventory_and_state() {
    let (search, _registry) = search_registry();
    let mut context = AgentContext::default();
    let report = search.initialization_report(&context);
    assert_eq!(report.toolset, "tool_search");
    assert_eq!(report.indexed_tools, 7);
    assert_eq!(report.namespaces, vec!["billing_ns", "docs_ns", "misc"]);
    assert_eq!(report.available_tools, 6);
    assert_eq!(report.unavailable_tools, 1);
    assert!(report.loaded_tools.is_empty());
    assert!(report.loaded_namespaces.is_empty());
    assert_eq!(report.max_results, 8);
    assert!(report.max_query_chars > 0);

    context.record_tool_search_loaded(["lookup_docs", "not_ours"], ["billing_ns", "other_ns"]);
    let report = search.refresh_report(&context);
    assert_eq!(report.loaded_tools, vec!["lookup_docs"]);
    assert_eq!(report.loaded_namespaces, vec!["billing_ns"]);
    assert_eq!(report.indexed_tools, 7);

    let published = search.publish_initialization_report(&mut context);
    let events = payloads(&context, ContextEventKind::ToolSearchInitialized);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0], serde_json::to_value(&published).unwrap());
    assert_eq!(events[0]["indexed_tools"], 7);
    assert_eq!(events[0]["available_tools"], 6);
    assert_eq!(events[0]["unavailable_tools"], 1);

    let published = search.publish_refresh_report(&mut context);
    let events = payloads(&context, ContextEventKind::ToolSearchRefreshed);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0], serde_json::to_value(&published).unwrap());
    assert_eq!(events[0]["loaded_tools"], json!(["lookup_docs"]));
}

#[tokio::test]
async fn reports_count_tools_of_unavailable_toolsets_as_unavailable() {
    let (search, _registry) = search_registry();
    let mut context = AgentContext::default();
    context.unavailable_toolsets.insert("billing".to_string());
    let report = search.initialization_report(&context);
    assert_eq!(report.available_tools, 4);
    assert_eq!(report.unavailable_tools, 3);
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: tool search did not break ties by tool name.
#[test]
fn search_ties_are_broken_by_tool_name() {
    // 26 tools that score identically for "widget".
    let mut toolset = StaticToolset::new("widgets");
    let mut names: Vec<String> = (b'a'..=b'z')
        .map(|letter| format!("{}_tool", letter as char))
        .collect();
    // Register in reverse order so registration order is not name order.
    for name in names.iter().rev() {
        toolset = toolset.with_tool(echo(name, "Manage a widget"));
    }
    names.sort();
    let search = tool_search_toolset(vec![Arc::new(toolset)]);
    let context = AgentContext::default();
    let found = search.search(&context, "widget", Some(3)).unwrap();
    // tool-runtime.md / index.rs: "Best first: higher score, then name order".
    assert_eq!(found, names[..3].to_vec());
}

// Regression: tool_search called a panicking availability check bare; the panic escaped.
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

// Regression: ToolSearchToolset::search and its reports crashed on a panicking availability check.
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

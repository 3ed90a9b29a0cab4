//! Stale and invalidated loaded state, refreshes when the inventory
//! changes, and `ToolSearchRefreshBinding` scheduling.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use starweaver::context::ContextEventKind;
use starweaver::model::ToolReturnKind;
use starweaver::schedule::RefreshReason;
use starweaver::tools::{DynTool, ToolSearchRefreshBinding, ToolSearchToolset};
use starweaver::{tool_search_toolset, AgentContext, DynToolset, ToolRegistry, Toolset};

use crate::common::toolsets::{ambient_handle, assert_kind, names_for, payloads, set_of};
use crate::common::{call, echo, echo_tool};

/// A tool visible only when `context.metadata[key] == true`.
fn gated(name: &str, description: &str, key: &'static str) -> DynTool {
    Arc::new(
        echo_tool(name, description).with_availability(move |context| {
            context
                .metadata
                .get(key)
                .and_then(Value::as_bool)
                .unwrap_or(false)
        }),
    )
}

// ---------------------------------------------------------------------------
// ToolSearchToolset: stale and invalidated state
// ---------------------------------------------------------------------------

/// A toolset whose inventory can change between reads.
struct DynamicToolset {
    name: String,
    id: Option<String>,
    tools: Arc<Mutex<Vec<DynTool>>>,
}

impl DynamicToolset {
    fn new(
        name: &str,
        id: Option<&str>,
        tools: Vec<DynTool>,
    ) -> (Arc<Self>, Arc<Mutex<Vec<DynTool>>>) {
        let tools = Arc::new(Mutex::new(tools));
        (
            Arc::new(Self {
                name: name.to_string(),
                id: id.map(str::to_string),
                tools: tools.clone(),
            }),
            tools,
        )
    }
}

impl Toolset for DynamicToolset {
    fn name(&self) -> &str {
        &self.name
    }

    fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    fn get_tools(&self) -> Vec<DynTool> {
        self.tools.lock().unwrap().clone()
    }
}

fn remove_tool(inventory: &Mutex<Vec<DynTool>>, name: &str) {
    inventory.lock().unwrap().retain(|tool| tool.name() != name);
}

#[tokio::test]
async fn refresh_prunes_stale_loaded_tools() {
    let (remote, inventory) = DynamicToolset::new(
        "remote",
        Some("remote_ns"),
        vec![
            echo("fetch_weather", "Fetch the weather forecast"),
            echo("fetch_news", "Fetch the news headlines"),
        ],
    );
    let search = tool_search_toolset(vec![remote]);
    let registry = ToolRegistry::new().with_toolset(&search);

    // Load through a model-driven search.
    let (handle, ctx) = ambient_handle(AgentContext::default());
    let part = registry
        .execute_call(ctx, &call("s1", "tool_search", json!({"query": "fetch"})))
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    let mut context = handle.snapshot();
    assert_eq!(
        context.tool_search.loaded_tools,
        set_of(&["fetch_news", "fetch_weather"])
    );

    remove_tool(&inventory, "fetch_news");
    inventory
        .lock()
        .unwrap()
        .push(echo("fetch_stocks", "Fetch stock quotes"));

    let report = search.refresh_loaded_state(&mut context);
    assert_eq!(report.toolset, "tool_search");
    assert_eq!(report.removed_tools, vec!["fetch_news"]);
    assert!(report.removed_namespaces.is_empty());
    assert_eq!(report.loaded_tools, vec!["fetch_weather"]);
    assert_eq!(report.indexed_tools, 2);
    assert!(!report.refresh_scheduled);
    assert_eq!(context.tool_search.loaded_tools, set_of(&["fetch_weather"]));

    let refreshed = payloads(&context, ContextEventKind::ToolSearchRefreshed);
    assert_eq!(refreshed.len(), 1);
    assert_eq!(refreshed[0]["removed_tools"], json!(["fetch_news"]));
    assert_eq!(refreshed[0], serde_json::to_value(&report).unwrap());

    // The rebuilt index finds the new tool and forgets the removed one.
    let found = search.search(&context, "stock quotes", None).unwrap();
    assert_eq!(found.first().map(String::as_str), Some("fetch_stocks"));
    let found = search.search(&context, "news headlines", None).unwrap();
    assert!(!found.contains(&"fetch_news".to_string()), "{found:?}");
    assert_eq!(search.initialization_report(&context).indexed_tools, 2);

    // The registry built before the refresh keeps the stale tool hidden
    // now that it is no longer loaded.
    assert_eq!(
        names_for(&registry, &context),
        vec!["fetch_weather", "tool_search"]
    );
    // A registry built from the refreshed toolset exposes the new tool
    // once a search loads it.
    let registry = ToolRegistry::new().with_toolset(&search);
    let (handle, ctx) = ambient_handle(context);
    let part = registry
        .execute_call(ctx, &call("s2", "tool_search", json!({"query": "stock"})))
        .await;
    assert_eq!(part.content["loaded_tools"], json!(["fetch_stocks"]));
    assert_eq!(
        names_for(&registry, &handle.snapshot()),
        vec!["fetch_stocks", "fetch_weather", "tool_search"]
    );
}

#[tokio::test]
async fn refresh_removes_namespaces_that_left_the_inventory() {
    let (one, _one_inventory) =
        DynamicToolset::new("one", Some("one_ns"), vec![echo("alpha", "Alpha tool")]);
    let (two, two_inventory) =
        DynamicToolset::new("two", Some("two_ns"), vec![echo("beta", "Beta tool")]);
    let search = tool_search_toolset(vec![one, two]);
    let mut context = AgentContext::default();
    search.preload_namespace(&mut context, "one_ns").unwrap();
    search.preload_namespace(&mut context, "two_ns").unwrap();

    two_inventory.lock().unwrap().clear();
    let report = search.refresh_loaded_state(&mut context);
    assert_eq!(report.removed_namespaces, vec!["two_ns"]);
    assert_eq!(report.loaded_namespaces, vec!["one_ns"]);
    assert_eq!(context.tool_search.loaded_namespaces, set_of(&["one_ns"]));
}

#[tokio::test]
async fn refresh_prunes_loaded_tools_that_became_unavailable() {
    let (remote, _inventory) = DynamicToolset::new(
        "remote",
        None,
        vec![
            gated("gated_export", "Export a report", "export_enabled"),
            echo("plain_export", "Export plain text"),
        ],
    );
    let search = tool_search_toolset(vec![remote]);
    let registry = ToolRegistry::new().with_toolset(&search);

    let mut start = AgentContext::default();
    start
        .metadata
        .insert("export_enabled".to_string(), json!(true));
    let (handle, ctx) = ambient_handle(start);
    let part = registry
        .execute_call(ctx, &call("s1", "tool_search", json!({"query": "export"})))
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    let mut context = handle.snapshot();
    assert_eq!(
        context.tool_search.loaded_tools,
        set_of(&["gated_export", "plain_export"])
    );

    context
        .metadata
        .insert("export_enabled".to_string(), json!(false));
    let report = search.refresh_loaded_state(&mut context);
    assert_eq!(report.removed_tools, vec!["gated_export"]);
    assert_eq!(report.loaded_tools, vec!["plain_export"]);
    assert_eq!(context.tool_search.loaded_tools, set_of(&["plain_export"]));
    assert_eq!(
        payloads(&context, ContextEventKind::ToolSearchRefreshed)[0]["removed_tools"],
        json!(["gated_export"])
    );
}

#[tokio::test]
async fn refresh_does_not_prune_tools_of_another_search_toolset() {
    let (ours, our_inventory) =
        DynamicToolset::new("ours", Some("ours_ns"), vec![echo("our_tool", "Our tool")]);
    let (theirs, their_inventory) = DynamicToolset::new(
        "theirs",
        Some("theirs_ns"),
        vec![echo("their_tool", "Their tool")],
    );
    let our_search = tool_search_toolset(vec![ours]);
    let their_search = Arc::new(ToolSearchToolset::new(
        "their_search",
        vec![theirs as DynToolset],
    ));

    let mut context = AgentContext::default();
    context.record_tool_search_loaded(
        ["our_tool", "their_tool", "host_pinned"],
        ["ours_ns", "theirs_ns"],
    );
    // Both inventories empty out; only ours is refreshed.
    our_inventory.lock().unwrap().clear();
    their_inventory.lock().unwrap().clear();
    let report = our_search.refresh_loaded_state(&mut context);
    assert_eq!(report.removed_tools, vec!["our_tool"]);
    assert_eq!(report.removed_namespaces, vec!["ours_ns"]);
    assert_eq!(
        context.tool_search.loaded_tools,
        set_of(&["host_pinned", "their_tool"])
    );
    assert_eq!(
        context.tool_search.loaded_namespaces,
        set_of(&["theirs_ns"])
    );

    // Their own refresh prunes theirs.
    let report = their_search.refresh_loaded_state(&mut context);
    assert_eq!(report.removed_tools, vec!["their_tool"]);
    assert_eq!(context.tool_search.loaded_tools, set_of(&["host_pinned"]));
}

#[tokio::test]
async fn invalidate_clears_only_this_toolsets_loaded_state() {
    let (ours, _our_inventory) = DynamicToolset::new(
        "ours",
        Some("ours_ns"),
        vec![echo("our_a", "Tool A"), echo("our_b", "Tool B")],
    );
    let (theirs, _their_inventory) = DynamicToolset::new(
        "theirs",
        Some("theirs_ns"),
        vec![echo("their_tool", "Their tool")],
    );
    let our_search = tool_search_toolset(vec![ours]);
    let _their_search = Arc::new(ToolSearchToolset::new(
        "their_search",
        vec![theirs as DynToolset],
    ));
    let registry = ToolRegistry::new().with_toolset(&our_search);

    let mut context = AgentContext::default();
    context.record_tool_search_loaded(["our_a", "their_tool"], ["ours_ns", "theirs_ns"]);
    assert_eq!(
        names_for(&registry, &context),
        vec!["our_a", "our_b", "tool_search"]
    );

    let report = our_search.invalidate_loaded_state(&mut context);
    assert_eq!(report.toolset, "tool_search");
    assert_eq!(report.removed_tools, vec!["our_a"]);
    assert_eq!(report.removed_namespaces, vec!["ours_ns"]);
    assert!(report.loaded_tools.is_empty());
    assert_eq!(report.indexed_tools, 2);
    assert_eq!(context.tool_search.loaded_tools, set_of(&["their_tool"]));
    assert_eq!(
        context.tool_search.loaded_namespaces,
        set_of(&["theirs_ns"])
    );
    assert_eq!(names_for(&registry, &context), vec!["tool_search"]);

    let invalidated = payloads(&context, ContextEventKind::ToolSearchInvalidated);
    assert_eq!(invalidated.len(), 1);
    assert_eq!(invalidated[0]["removed_tools"], json!(["our_a"]));
    assert_eq!(invalidated[0]["removed_namespaces"], json!(["ours_ns"]));
    assert!(payloads(&context, ContextEventKind::ToolSearchRefreshed).is_empty());
}

// ---------------------------------------------------------------------------
// ToolSearchRefreshBinding
// ---------------------------------------------------------------------------

fn binding_fixture() -> (
    Arc<ToolSearchToolset>,
    Arc<Mutex<Vec<DynTool>>>,
    AgentContext,
) {
    let (remote, inventory) = DynamicToolset::new(
        "remote",
        Some("remote_ns"),
        vec![echo("alpha", "Alpha"), echo("beta", "Beta")],
    );
    let search = tool_search_toolset(vec![remote]);
    let mut context = AgentContext::default();
    context.record_tool_search_loaded(["alpha", "beta"], Vec::<String>::new());
    (search, inventory, context)
}

#[tokio::test]
async fn refresh_binding_interval_decisions() {
    let (search, _inventory, mut context) = binding_fixture();
    let mut binding = ToolSearchRefreshBinding::new().with_interval_ms(1_000);

    // Never refreshed: due at once.
    let decision = binding.decision(0);
    assert!(decision.due);
    assert_eq!(decision.reason, Some(RefreshReason::Interval));
    let report = binding
        .refresh_loaded_state_if_due(&search, &mut context, 0)
        .expect("first refresh is due");
    assert!(report.refresh_scheduled);
    assert_eq!(report.refresh_reason.as_deref(), Some("interval"));

    let decision = binding.decision(400);
    assert!(!decision.due);
    assert_eq!(decision.wait_ms, Some(600));
    assert!(binding
        .refresh_loaded_state_if_due(&search, &mut context, 400)
        .is_none());
    assert!(binding
        .refresh_loaded_state_if_due(&search, &mut context, 999)
        .is_none());

    let decision = binding.decision(1_000);
    assert!(decision.due);
    assert_eq!(decision.reason, Some(RefreshReason::Interval));
    assert!(binding
        .refresh_loaded_state_if_due(&search, &mut context, 1_000)
        .is_some());
    assert_eq!(binding.decision(1_500).wait_ms, Some(500));
    assert_eq!(
        payloads(&context, ContextEventKind::ToolSearchRefreshed).len(),
        2
    );

    // Without an interval and without changes nothing is ever due.
    let idle = ToolSearchRefreshBinding::new();
    let decision = idle.decision(u64::MAX);
    assert!(!decision.due);
    assert_eq!(decision.reason, None);
}

#[tokio::test]
async fn refresh_binding_debounces_bursts_of_watch_events() {
    let (search, inventory, mut context) = binding_fixture();
    let mut binding = ToolSearchRefreshBinding::new().with_debounce_ms(100);
    assert!(!binding.decision(0).due);

    remove_tool(&inventory, "beta");
    binding.observe_watch_event(10);
    binding.observe_watch_event(40);
    binding.observe_watch_event(60);

    let decision = binding.decision(120);
    assert!(!decision.due);
    assert_eq!(decision.reason, Some(RefreshReason::WatchEvent));
    assert_eq!(decision.wait_ms, Some(40));
    assert!(binding
        .refresh_loaded_state_if_due(&search, &mut context, 120)
        .is_none());
    assert!(context.events.events().is_empty());
    assert_eq!(context.tool_search.loaded_tools, set_of(&["alpha", "beta"]));

    // One refresh for the whole burst, debounce_ms after the last event.
    let report = binding
        .refresh_loaded_state_if_due(&search, &mut context, 160)
        .expect("due after the debounce");
    assert_eq!(report.refresh_reason.as_deref(), Some("watch_event"));
    assert_eq!(report.removed_tools, vec!["beta"]);
    assert_eq!(context.tool_search.loaded_tools, set_of(&["alpha"]));
    assert!(binding
        .refresh_loaded_state_if_due(&search, &mut context, 10_000)
        .is_none());
    assert_eq!(
        payloads(&context, ContextEventKind::ToolSearchRefreshed).len(),
        1
    );

    // request_refresh is debounced too.
    binding.request_refresh(20_000);
    assert!(!binding.decision(20_050).due);
    let decision = binding.decision(20_100);
    assert!(decision.due);
    assert_eq!(decision.reason, Some(RefreshReason::Requested));
}

#[tokio::test]
async fn refresh_binding_inventory_version_change_schedules_refresh() {
    let (search, inventory, mut context) = binding_fixture();
    let mut binding = ToolSearchRefreshBinding::new().with_debounce_ms(50);

    // The first version only establishes a baseline.
    assert!(binding.observe_inventory_version("v1", 0));
    assert_eq!(binding.inventory_version(), Some("v1"));
    assert!(!binding.decision(1_000).due);
    assert!(binding
        .refresh_loaded_state_if_due(&search, &mut context, 1_000)
        .is_none());
    // The same version again changes nothing.
    assert!(!binding.observe_inventory_version("v1", 1_000));
    assert!(!binding.decision(5_000).due);

    remove_tool(&inventory, "alpha");
    assert!(binding.observe_inventory_version("v2", 2_000));
    // A later watch event does not downgrade the reason.
    binding.observe_watch_event(2_010);
    let decision = binding.decision(2_020);
    assert!(!decision.due);
    assert_eq!(decision.reason, Some(RefreshReason::InventoryChanged));
    assert_eq!(decision.wait_ms, Some(40));
    assert!(binding
        .refresh_loaded_state_if_due(&search, &mut context, 2_020)
        .is_none());

    let report = binding
        .refresh_loaded_state_if_due(&search, &mut context, 2_060)
        .expect("due after the debounce");
    assert!(report.refresh_scheduled);
    assert_eq!(report.refresh_reason.as_deref(), Some("inventory_changed"));
    assert_eq!(report.inventory_version.as_deref(), Some("v2"));
    assert_eq!(report.removed_tools, vec!["alpha"]);
    assert_eq!(context.tool_search.loaded_tools, set_of(&["beta"]));

    let events = payloads(&context, ContextEventKind::ToolSearchRefreshed);
    assert_eq!(events.len(), 1);
    let payload = &events[0];
    assert_eq!(payload["refresh_scheduled"], json!(true));
    assert_eq!(payload["refresh_reason"], json!("inventory_changed"));
    assert!(payload["refresh_ms"].is_u64(), "{payload}");
    assert_eq!(payload["inventory_version"], json!("v2"));
    assert_eq!(payload["removed_tools"], json!(["alpha"]));
    assert_eq!(*payload, serde_json::to_value(&report).unwrap());

    assert!(!binding.decision(100_000).due);
    assert_eq!(
        RefreshReason::InventoryChanged.as_str(),
        "inventory_changed"
    );
}

/// A toolset over a live inventory (an MCP server, a plugin directory):
/// `get_tools` reads whatever is there now.
#[derive(Clone)]
struct LiveInventory {
    tools: Arc<Mutex<Vec<DynTool>>>,
}

impl Toolset for LiveInventory {
    fn name(&self) -> &str {
        "live"
    }

    fn get_tools(&self) -> Vec<DynTool> {
        self.tools.lock().unwrap().clone()
    }
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: re-inserting a search toolset did not expose tools added to its live inventory.
#[test]
fn reinserted_search_toolset_exposes_new_inventory_tools() {
    let live = LiveInventory {
        tools: Arc::new(Mutex::new(vec![echo("first_tool", "The first tool")])),
    };
    let search = tool_search_toolset(vec![Arc::new(live.clone()) as DynToolset]);
    let mut registry = ToolRegistry::new().with_toolset(&search);
    assert!(registry.names().contains(&"first_tool".to_string()));

    live.tools
        .lock()
        .unwrap()
        .push(echo("second_tool", "The second tool"));
    registry.insert_toolset(&search);
    // docs/tool-runtime.md, ToolSearchToolset: "A registry copies a
    // toolset's tools when the toolset is inserted: to expose tools added
    // to a live inventory, insert the toolset again."
    assert!(
        registry.names().contains(&"second_tool".to_string()),
        "after inserting the search toolset again: {:?}",
        registry.names()
    );
}

//! Regression tests from the fourth review round: claims of the README,
//! docs/*.md and the public doc comments, checked against the code.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use starweaver::model::{ModelMessage, ModelResponse};
use starweaver::{
    string_tool, tool_proxy_toolset, tool_search_toolset, AgentBuilder, AgentContext,
    AgentContextHandle, AgentHitlUserInteraction, AgentStreamRecord, BoxFuture, DynTool,
    DynToolset, FunctionModel, PrefixedToolset, StaticToolset, ToolContext,
    ToolDependencyRequirements, ToolError, ToolRegistry, ToolResult, Toolset,
    ToolsetLifecyclePolicy,
};

mod common;
use common::{
    call, echo, echo_tool, open_schema, record_label, responses_so_far, CountingLifecycle,
};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

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
// 1. Resumed calls: their context events are reported after every resumed
//    call has finished, not with each return
// ---------------------------------------------------------------------------

/// An approval-gated Legacy tool that publishes `announced` on the agent
/// context while it runs.
fn announcing(name: &str) -> DynTool {
    let tool_name = name.to_string();
    Arc::new(
        string_tool(
            name,
            Some(format!("The {name} tool")),
            open_schema(),
            move |ctx: ToolContext, _args: Value| {
                let tool_name = tool_name.clone();
                async move {
                    let handle = ctx.dependency::<AgentContextHandle>().unwrap();
                    handle.update(|context| {
                        context.emit("announced", json!({"tool": tool_name}));
                    });
                    Ok(ToolResult::new(json!({"tool": tool_name})))
                }
            },
        )
        .with_approval_required(true),
    )
}

#[tokio::test]
async fn resumed_call_events_are_reported_with_their_return() {
    let model = Arc::new(FunctionModel::new(|messages: &[ModelMessage], _| {
        Ok(match responses_so_far(messages) {
            0 => ModelResponse::tool_calls([
                call("a1", "alpha", json!({})),
                call("b1", "beta", json!({})),
            ]),
            _ => ModelResponse::text("done"),
        })
    }));
    let mut session = AgentBuilder::new(model)
        .tool(announcing("alpha"))
        .tool(announcing("beta"))
        .build()
        .session();
    let waiting = session.run("go").await.unwrap();
    assert_eq!(waiting.pending.len(), 2);

    let labels: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink_labels = labels.clone();
    let mut sink = move |record: &AgentStreamRecord| {
        sink_labels.lock().unwrap().push(record_label(record));
    };
    session
        .resume_with_events(
            vec![
                AgentHitlUserInteraction::approved("a1"),
                AgentHitlUserInteraction::approved("b1"),
            ],
            &mut sink,
        )
        .await
        .unwrap();
    let labels = labels.lock().unwrap().clone();
    let position = |wanted: &str| {
        labels
            .iter()
            .position(|record_label| record_label == wanted)
            .unwrap()
    };
    // docs/agent-runtime.md, Streams: "a tool's return (and the context
    // events it published) is reported when that call finishes, not when
    // its batch does."
    assert!(
        position("event:announced:alpha") < position("return:beta"),
        "alpha's event was held back until beta had run: {labels:?}"
    );
}

// ---------------------------------------------------------------------------
// 2. Scheduling: a batch with `call_tool` runs sequentially for a reason
//    the documentation does not list
// ---------------------------------------------------------------------------

#[tokio::test]
async fn batch_with_call_tool_is_scheduled_as_documented() {
    let library = StaticToolset::new("library").with_tool(echo("lookup", "Look up a term"));
    let proxy = tool_proxy_toolset(vec![Arc::new(library)]);
    // Strict like `call_tool`, so the profiles are not mixed.
    let note = echo_tool("note", "Take a note")
        .with_dependencies(ToolDependencyRequirements::strict(Vec::<String>::new()));
    let model = Arc::new(FunctionModel::new(|messages: &[ModelMessage], _| {
        Ok(match responses_so_far(messages) {
            0 => ModelResponse::tool_calls([
                call("p", "call_tool", json!({"name": "lookup", "arguments": {}})),
                call("n", "note", json!({})),
            ]),
            _ => ModelResponse::text("done"),
        })
    }));
    let agent = AgentBuilder::new(model)
        .toolset(&proxy)
        .tool(Arc::new(note))
        .build();
    let stream = agent.run_stream("go").await.unwrap();
    let batch = stream
        .events()
        .iter()
        .map(record_label)
        .find(|record_label| record_label.starts_with("batch:"))
        .unwrap();
    // docs/agent-runtime.md, Scheduling: a batch with the proxy's
    // `call_tool` runs sequentially, for the documented reason
    // `delegating_tool` (the wrapped tool's needs are unknown up front).
    assert_eq!(batch, "batch:sequential:delegating_tool");
}

// ---------------------------------------------------------------------------
// 3. A prefixed proxy (or search) never runs the lifecycle of the
//    toolsets it wraps
// ---------------------------------------------------------------------------

#[tokio::test]
async fn prefixed_proxy_runs_the_lifecycle_of_wrapped_toolsets() {
    let remote = CountingLifecycle::new("remote", vec![echo("remote_tool", "A remote tool")]);
    let proxy = tool_proxy_toolset(vec![Arc::new(remote.clone()) as DynToolset]);
    // PrefixedToolset: "so several copies (two proxies, two environments)
    // can live in one registry".
    let prefixed = PrefixedToolset::new("eu", proxy);
    let registry = ToolRegistry::new().with_toolset(&prefixed);
    let mut context = AgentContext::default();
    registry.enter_toolsets(&mut context).await;
    registry.exit_toolsets(&mut context).await;
    // docs/tool-runtime.md: "Proxy and search toolsets run the lifecycle of
    // the toolsets they wrap"; "wrapped tools keep their ... lifecycle".
    assert_eq!(
        (
            remote.enters.load(Ordering::SeqCst),
            remote.exits.load(Ordering::SeqCst)
        ),
        (1, 1),
        "the remote toolset behind the prefixed proxy was never set up or closed"
    );
}

// ---------------------------------------------------------------------------
// 6. Inserting a search toolset again does not expose tools added to its
//    live inventory
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// 8. The `test` model sends invalid values for string formats it does not
//    know, even ones schemars emits for std types
// ---------------------------------------------------------------------------

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct PingArgs {
    /// Host to ping.
    address: std::net::Ipv4Addr,
}

#[tokio::test]
async fn test_model_honours_the_formats_of_std_types() {
    let ping = starweaver::typed_tool::<PingArgs, _, _>(
        "ping",
        Some("Ping a host".to_string()),
        |_ctx: ToolContext, args: PingArgs| async move {
            Ok(ToolResult::new(json!({"pinged": args.address.to_string()})))
        },
    );
    let agent = AgentBuilder::new(Arc::new(starweaver::TestModel::auto()))
        .tool(Arc::new(ping))
        .build();
    let result = agent.run("go").await.unwrap();
    let returns = crate::common::tool_returns(&result.messages);
    // docs/agent-runtime.md, The `test` model: arguments "generated from
    // the tool's JSON Schema (required properties only, honouring `enum`,
    // `const`, `default`, lengths, bounds, formats, ...)".
    assert!(
        returns.first().is_some_and(|part| part.is_success()),
        "schema {} sampled as {}; run output: {}",
        starweaver::schema_for_type::<PingArgs>(),
        starweaver::model::sample_value(&starweaver::schema_for_type::<PingArgs>()),
        result.output
    );
}

// ---------------------------------------------------------------------------
// 9. A toolset's inventory is read when it is registered, long before its
//    setup runs
// ---------------------------------------------------------------------------

/// A resource-backed toolset (an MCP server): its tools are known only
/// once `enter_with_context` has connected.
#[derive(Clone, Default)]
struct ConnectFirst {
    connected: Arc<std::sync::atomic::AtomicBool>,
}

impl Toolset for ConnectFirst {
    fn name(&self) -> &str {
        "remote"
    }

    fn get_tools(&self) -> Vec<DynTool> {
        if self.connected.load(Ordering::SeqCst) {
            vec![echo("remote_tool", "A tool the server lists")]
        } else {
            Vec::new()
        }
    }

    fn lifecycle_policy(&self) -> ToolsetLifecyclePolicy {
        ToolsetLifecyclePolicy::managed()
    }

    fn enter_with_context<'a>(
        &'a self,
        _context: &'a mut AgentContext,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        self.connected.store(true, Ordering::SeqCst);
        Box::pin(async { Ok(()) })
    }
}

#[tokio::test]
async fn toolset_setup_runs_before_its_inventory_is_read() {
    let model = Arc::new(FunctionModel::new(|_: &[ModelMessage], _| {
        Ok(ModelResponse::text("done"))
    }));
    let agent = AgentBuilder::new(model.clone())
        .toolset(&ConnectFirst::default())
        .build();
    agent.run("go").await.unwrap();
    let exposed: Vec<String> = model.requests()[0]
        .parameters
        .tools
        .iter()
        .map(|tool| tool.name.clone())
        .collect();
    // Toolset::enter_with_context: "Sets up resources before the
    // inventory is read." (the spec: "Set enter_before_prepare when a
    // resource-backed toolset needs setup before inventory is read").
    assert_eq!(
        exposed,
        vec!["remote_tool"],
        "the inventory was read before setup"
    );
}

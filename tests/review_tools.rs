//! Regression tests from the first review of the tool layer: each pins a
//! defect that was found and fixed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use starweaver::model::{ModelMessage, ModelResponse};
use starweaver::{
    string_tool, tool_proxy_toolset, tool_search_toolset, typed_tool, AgentBuilder, AgentContext,
    DynToolset, FunctionModel, PrefixedToolset, StaticToolset, ToolContext, ToolError,
    ToolRegistry, ToolResult, ToolReturnKind,
};

mod common;
use common::{
    ambient, call, counter, echo, open_schema, responses_so_far, CountingLifecycle, EchoArgs,
    NamedDb,
};

// ---------------------------------------------------------------------------
// 1. Tool search: ties are not broken by name (name_rank is never built)
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// 2. Proxy: call_tool's max_retries(0) doubles as a model-retry budget of 0
// ---------------------------------------------------------------------------

#[derive(Debug, Deserialize, JsonSchema)]
struct CountArgs {
    /// How many.
    count: u32,
}

#[tokio::test]
async fn proxy_call_tool_allows_model_corrections() {
    let counter = Arc::new(typed_tool::<CountArgs, _, _>(
        "count_items",
        Some("Count items".to_string()),
        |_ctx: ToolContext, args: CountArgs| async move {
            Ok(ToolResult::new(json!({"count": args.count})))
        },
    ));
    let proxy = tool_proxy_toolset(vec![
        Arc::new(StaticToolset::new("items").with_tool(counter)) as DynToolset,
    ]);
    // First turn: a bad call (wrong type), second turn: corrected call,
    // third turn: final answer.
    let model = Arc::new(FunctionModel::new(|messages: &[ModelMessage], _| {
        Ok(match responses_so_far(messages) {
            0 => ModelResponse::tool_calls([call(
                "c1",
                "call_tool",
                json!({"name": "count_items", "arguments": {"count": "three"}}),
            )]),
            1 => ModelResponse::tool_calls([call(
                "c2",
                "call_tool",
                json!({"name": "count_items", "arguments": {"count": 3}}),
            )]),
            _ => ModelResponse::text("done"),
        })
    }));
    let agent = AgentBuilder::new(model).toolset(&proxy).build();
    // Spec: "Retry limits ... When no override is configured, tools get a
    // default retry budget of 3"; InvalidArguments "consume the model
    // retry budget" -- one correction must be allowed.
    let result = agent.run("count").await;
    assert!(result.is_ok(), "{:?}", result.err());
}

// ---------------------------------------------------------------------------
// 3./4. Proxy: wrapped tools lose registry/agent limits and their own timeout
// ---------------------------------------------------------------------------

#[tokio::test]
async fn proxy_wrapped_tool_uses_registry_retry_budget() {
    let runs = counter();
    let flaky = {
        let runs = runs.clone();
        Arc::new(string_tool(
            "flaky",
            Some("Always fails".to_string()),
            open_schema(),
            move |_ctx: ToolContext, _args: Value| {
                let runs = runs.clone();
                async move {
                    runs.fetch_add(1, Ordering::SeqCst);
                    Err(ToolError::execution("boom"))
                }
            },
        ))
    };
    let proxy = tool_proxy_toolset(vec![
        Arc::new(StaticToolset::new("inner").with_tool(flaky)) as DynToolset
    ]);
    let registry = ToolRegistry::new().with_max_retries(0).with_toolset(&proxy);
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call("c", "call_tool", json!({"name": "flaky"})),
        )
        .await;
    assert_eq!(part.kind, ToolReturnKind::ExecutionFailed);
    // Registry-level budget 0: the wrapped tool must run exactly once.
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn proxy_wrapped_tool_timeout_wins_over_registry_default() {
    let slow = Arc::new(
        string_tool(
            "slow",
            Some("Takes 200 ms".to_string()),
            open_schema(),
            |_ctx: ToolContext, _args: Value| async move {
                tokio::time::sleep(Duration::from_millis(200)).await;
                Ok(ToolResult::new(json!({"ok": true})))
            },
        )
        .with_timeout_ms(5_000),
    );
    let proxy = tool_proxy_toolset(vec![
        Arc::new(StaticToolset::new("inner").with_tool(slow)) as DynToolset
    ]);
    let registry = ToolRegistry::new().with_timeout_ms(50).with_toolset(&proxy);
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call("c", "call_tool", json!({"name": "slow"})),
        )
        .await;
    // Spec: "Tool-specific values win over inherited defaults".
    assert_eq!(part.kind, ToolReturnKind::Success, "{}", part.content);
}

// ---------------------------------------------------------------------------
// 5. PrefixedToolset: errors name the unprefixed tool
// ---------------------------------------------------------------------------

#[tokio::test]
async fn prefixed_tool_errors_name_the_called_tool() {
    let manual = Arc::new(string_tool(
        "echo",
        Some("Echo".to_string()),
        json!({"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]}),
        |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
    ));
    let typed = Arc::new(typed_tool::<EchoArgs, _, _>(
        "typed_echo",
        Some("Echo".to_string()),
        |_ctx: ToolContext, args: EchoArgs| async move {
            Ok(ToolResult::new(json!({"value": args.value})))
        },
    ));
    let prefixed: DynToolset = Arc::new(PrefixedToolset::new(
        "ws",
        StaticToolset::new("basic")
            .with_tool(manual)
            .with_tool(typed),
    ));
    let registry = ToolRegistry::new().with_toolset(&prefixed);
    for name in ["ws_echo", "ws_typed_echo"] {
        let part = registry
            .execute_call(ToolContext::default(), &call("c", name, json!({})))
            .await;
        assert_eq!(part.kind, ToolReturnKind::InvalidArguments);
        let message = part.content["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("`{name}`")),
            "the model called `{name}` but the error says: {message}"
        );
    }
}

// ---------------------------------------------------------------------------
// 6. Lifecycle: re-inserting a toolset runs its setup twice
// ---------------------------------------------------------------------------

#[tokio::test]
async fn reinserted_toolset_enters_once() {
    let toolset = CountingLifecycle::new("mcp", vec![echo("remote", "Remote tool")]);
    let mut registry = ToolRegistry::new();
    registry.insert_toolset(&toolset);
    // tool-runtime.md: "to expose tools added to a live inventory, insert
    // the toolset again".
    registry.insert_toolset(&toolset);
    let mut context = AgentContext::default();
    let reports = registry.enter_toolsets(&mut context).await;
    registry.exit_toolsets(&mut context).await;
    assert_eq!(toolset.enters.load(Ordering::SeqCst), 1);
    assert_eq!(toolset.exits.load(Ordering::SeqCst), 1);
    assert_eq!(reports.len(), 1);
}

// ---------------------------------------------------------------------------
// 7. Lifecycle of toolsets wrapped by the proxy or by tool search never runs
// ---------------------------------------------------------------------------

#[tokio::test]
async fn wrapped_toolsets_get_their_lifecycle() {
    let behind_proxy = CountingLifecycle::new("proxied", vec![echo("remote_a", "Remote A")]);
    let behind_search = CountingLifecycle::new("searched", vec![echo("remote_b", "Remote B")]);
    let proxy = tool_proxy_toolset(vec![Arc::new(behind_proxy.clone()) as DynToolset]);
    let search = tool_search_toolset(vec![Arc::new(behind_search.clone()) as DynToolset]);
    let registry = ToolRegistry::new()
        .with_toolset(&proxy)
        .with_toolset(&search);
    let mut context = AgentContext::default();
    registry.enter_toolsets(&mut context).await;
    registry.exit_toolsets(&mut context).await;
    // Spec: "Set enter_before_prepare when a resource-backed toolset needs
    // setup before inventory is read".
    assert_eq!(behind_proxy.enters.load(Ordering::SeqCst), 1, "proxy");
    assert_eq!(behind_search.enters.load(Ordering::SeqCst), 1, "search");
    assert_eq!(behind_proxy.exits.load(Ordering::SeqCst), 1, "proxy exit");
    assert_eq!(behind_search.exits.load(Ordering::SeqCst), 1, "search exit");
}

// ---------------------------------------------------------------------------
// 12. Proxy search exposes tools that prepare_definition hides
// ---------------------------------------------------------------------------

#[tokio::test]
async fn proxy_search_respects_prepare_definition() {
    let tenant = Arc::new(
        string_tool(
            "tenant_lookup",
            Some("Lookup tenant data".to_string()),
            open_schema(),
            |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
        )
        .with_prepare_definition(|context, mut definition| {
            let tenant = context.metadata.get("tenant").and_then(Value::as_str)?;
            definition.description = Some(format!("Lookup data for tenant {tenant}"));
            Some(definition)
        }),
    );
    let proxy = tool_proxy_toolset(vec![
        Arc::new(StaticToolset::new("tenants").with_tool(tenant)) as DynToolset,
    ]);
    let registry = ToolRegistry::new().with_toolset(&proxy);
    // No tenant: the spec says returning None "hides the tool for that
    // prepared request".
    let part = registry
        .execute_call(
            ambient(AgentContext::default()),
            &call("c", "search_tools", json!({"query": "tenant lookup"})),
        )
        .await;
    assert_eq!(part.kind, ToolReturnKind::Success);
    assert_eq!(part.content["tools"], json!([]), "{}", part.content);
}

// ---------------------------------------------------------------------------
// 15. Approvals of tools behind the proxy cannot be resumed
// ---------------------------------------------------------------------------

#[tokio::test]
async fn proxied_approval_round_trip() {
    use starweaver::model::ModelResponse;
    use starweaver::{AgentHitlUserInteraction, AgentRunStatus, TestModel};

    let log: Arc<std::sync::Mutex<Vec<Value>>> = Arc::default();
    let deploy = {
        let log = log.clone();
        Arc::new(
            string_tool(
                "deploy",
                Some("Deploys a service".to_string()),
                json!({"type": "object", "properties": {"service": {"type": "string"}}, "required": ["service"]}),
                move |_ctx: ToolContext, args: Value| {
                    let log = log.clone();
                    async move {
                        log.lock().unwrap().push(args.clone());
                        Ok(ToolResult::new(json!({"deployed": args["service"]})))
                    }
                },
            )
            .with_approval_required(true),
        )
    };
    let proxy = tool_proxy_toolset(vec![
        Arc::new(StaticToolset::new("ops").with_tool(deploy)) as DynToolset
    ]);
    let model = Arc::new(TestModel::scripted(vec![
        ModelResponse::tool_calls([call(
            "p1",
            "call_tool",
            json!({"name": "deploy", "arguments": {"service": "api"}}),
        )]),
        ModelResponse::text("deployed"),
    ]));
    let mut session = AgentBuilder::new(model).toolset(&proxy).build().session();
    let waiting = session.run("deploy the api").await.unwrap();
    assert_eq!(waiting.status, AgentRunStatus::Waiting);
    // tool-runtime.md: "wrapped tools keep their ... approvals".
    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("p1"))
        .await;
    assert!(done.is_ok(), "{:?}", done.err());
    assert_eq!(*log.lock().unwrap(), vec![json!({"service": "api"})]);
}

// ---------------------------------------------------------------------------
// 17. User-input preprocessors see an empty tool_call_id
// ---------------------------------------------------------------------------

#[tokio::test]
async fn preprocessor_sees_the_call_id_before_its_future_starts() {
    use starweaver::model::ModelResponse;
    use starweaver::{AgentHitlUserInteraction, TestModel, ToolUserInputPreprocessResult};

    let seen: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
    let tool = {
        let seen = seen.clone();
        string_tool(
            "write_file",
            Some("Write a reviewed file".to_string()),
            json!({"type": "object"}),
            |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
        )
        .with_approval_required(true)
        .with_user_input_preprocessor(move |ctx: ToolContext, user_input: Value| {
            seen.lock().unwrap().push(ctx.tool_call_id().to_string());
            async move {
                Ok(ToolUserInputPreprocessResult::new().with_override_arguments(user_input))
            }
        })
    };
    let model = Arc::new(TestModel::scripted(vec![
        ModelResponse::tool_calls([call("w1", "write_file", json!({"path": "a"}))]),
        ModelResponse::text("written"),
    ]));
    let mut session = AgentBuilder::new(model)
        .tool(Arc::new(tool))
        .build()
        .session();
    session.run("write").await.unwrap();
    session
        .resume_after_hitl(
            AgentHitlUserInteraction::approved("w1").with_user_input(json!({"path": "b"})),
        )
        .await
        .unwrap();
    // Spec: "ToolContext carries execution metadata"; the registry sets the
    // call id for execution, but not for preprocessing.
    assert_eq!(*seen.lock().unwrap(), vec!["w1".to_string()]);
}

// ---------------------------------------------------------------------------
// 18. Dropping a run (host timeout / select) wipes the caller's AgentContext
// ---------------------------------------------------------------------------

#[tokio::test]
async fn cancelled_run_keeps_the_host_context() {
    let slow = Arc::new(string_tool(
        "slow",
        Some("Takes a while".to_string()),
        open_schema(),
        |_ctx: ToolContext, _args: Value| async move {
            tokio::time::sleep(Duration::from_secs(5)).await;
            Ok(ToolResult::new(json!({})))
        },
    ));
    let model = Arc::new(FunctionModel::new(|messages: &[ModelMessage], _| {
        Ok(if messages.len() < 2 {
            ModelResponse::tool_calls([call("s1", "slow", json!({}))])
        } else {
            ModelResponse::text("done")
        })
    }));
    let agent = AgentBuilder::new(model).tool(slow).build();
    let mut context = AgentContext::default();
    context.notes.set("customer", "acme");
    context.insert_named_dependency("db", NamedDb);
    let outcome = tokio::time::timeout(
        Duration::from_millis(50),
        agent.run_with_context("go", &mut context),
    )
    .await;
    assert!(outcome.is_err(), "the run should have been cut off");
    // Design: "nothing is lost".
    assert_eq!(context.notes.get("customer"), Some("acme"));
    assert!(context.dependencies.contains_named("db"));
}

//! Integration tests for toolsets: static, prefixed, deferred, the tool
//! proxy, tool search (loading, reports, refresh, invalidation, refresh
//! scheduling) and the toolset lifecycle.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use starweaver::{
    string_tool, tool_metadata_kind, tool_proxy_toolset, tool_search_toolset, typed_tool,
    AgentContext, BoxFuture, DeferredToolset, DynTool, DynToolset, PrefixedToolset, StaticToolset,
    ToolContext, ToolError, ToolInstruction, ToolKind, ToolRegistry, ToolResult, ToolReturnKind,
    ToolSearchRefreshBinding, ToolSearchRefreshReason, ToolSearchToolset, Toolset,
    ToolsetLifecyclePolicy, ToolsetLifecycleStatus, DEFAULT_MAX_RETRIES,
    DEFERRED_CALL_METADATA_KEY, TOOLSET_CLOSED_EVENT_KIND, TOOLSET_FAILED_EVENT_KIND,
    TOOLSET_INITIALIZED_EVENT_KIND, TOOLSET_UNAVAILABLE_EVENT_KIND, TOOL_KIND_METADATA_KEY,
    TOOL_SEARCH_FAILED_EVENT_KIND, TOOL_SEARCH_INITIALIZED_EVENT_KIND,
    TOOL_SEARCH_INVALIDATED_EVENT_KIND, TOOL_SEARCH_LOADED_EVENT_KIND,
    TOOL_SEARCH_NO_MATCH_EVENT_KIND, TOOL_SEARCH_REFRESHED_EVENT_KIND,
};

mod common;
use common::toolsets::{
    ambient_handle, assert_kind, failing_tool, names_for, never_available, payloads, set_of,
    tagged_echo, value_schema,
};
use common::{call, counter, echo, echo_tool, open_schema, strings};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// A tool that counts its runs.
fn counting_tool(name: &str, counter: Arc<AtomicU32>) -> DynTool {
    Arc::new(string_tool(
        name,
        Some("Counts how often it runs".to_string()),
        open_schema(),
        move |_ctx: ToolContext, args: Value| {
            let counter = counter.clone();
            async move {
                counter.fetch_add(1, Ordering::SeqCst);
                Ok(ToolResult::new(args))
            }
        },
    ))
}

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
// StaticToolset
// ---------------------------------------------------------------------------

#[tokio::test]
async fn static_toolset_exposes_name_id_tools_and_deduplicated_instructions() {
    let toolset = StaticToolset::new("basic")
        .with_id("basic_ns")
        .with_tool(echo("echo", "Echo input"))
        .with_tools([echo("ping", "Ping"), echo("pong", "Pong")])
        .with_instruction(ToolInstruction::new("basic", "Prefer exact lookup."))
        .with_instruction(ToolInstruction::new("basic", "A duplicate group."))
        .with_instruction(ToolInstruction::new("style", "Be brief."));

    assert_eq!(toolset.name(), "basic");
    assert_eq!(toolset.id(), Some("basic_ns"));
    let tool_names: Vec<String> = toolset
        .get_tools()
        .iter()
        .map(|tool| tool.name().to_string())
        .collect();
    assert_eq!(tool_names, vec!["echo", "ping", "pong"]);
    assert_eq!(
        toolset.get_instructions(),
        vec![
            ToolInstruction::new("basic", "Prefer exact lookup."),
            ToolInstruction::new("style", "Be brief."),
        ]
    );
    assert_eq!(StaticToolset::new("plain").id(), None);

    // The registry keeps one instruction per group across toolsets too
    // (the first registered wins).
    let other = StaticToolset::new("other")
        .with_tool(echo("other_tool", "Other"))
        .with_instruction(ToolInstruction::new(
            "basic",
            "Shadowed by the first toolset.",
        ))
        .with_instruction(ToolInstruction::new("other", "Other guidance."));
    let registry = ToolRegistry::new()
        .with_toolset(&Arc::new(toolset))
        .with_toolset(&Arc::new(other));
    assert_eq!(registry.names(), vec!["echo", "other_tool", "ping", "pong"]);
    assert_eq!(
        registry.instructions(),
        vec![
            ToolInstruction::new("basic", "Prefer exact lookup."),
            ToolInstruction::new("style", "Be brief."),
            ToolInstruction::new("other", "Other guidance."),
        ]
    );
    assert_eq!(registry.toolsets().len(), 2);
}

#[tokio::test]
async fn static_toolset_timeout_and_retry_defaults_apply_through_registry() {
    let tool_override = Arc::new(
        string_tool(
            "tool_override",
            Some("Has its own limits".to_string()),
            open_schema(),
            |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
        )
        .with_timeout_ms(100)
        .with_max_retries(1),
    );
    let toolset = StaticToolset::new("limited")
        .with_timeout_ms(2_000)
        .with_max_retries(5)
        .with_tool(tool_override)
        .with_tool(echo("inherits", "Inherits the toolset limits"));
    let registry = ToolRegistry::new()
        .with_timeout_ms(9_000)
        .with_max_retries(7)
        .with_toolset(&Arc::new(toolset))
        .with_tool(echo("loose", "Registered without a toolset"));

    assert_eq!(registry.timeout_ms_for("tool_override"), Some(100));
    assert_eq!(registry.max_retries_for("tool_override"), 1);
    assert_eq!(registry.timeout_ms_for("inherits"), Some(2_000));
    assert_eq!(registry.max_retries_for("inherits"), 5);
    assert_eq!(registry.timeout_ms_for("loose"), Some(9_000));
    assert_eq!(registry.max_retries_for("loose"), 7);

    // Without registry defaults the global default retry budget applies.
    let bare = ToolRegistry::new().with_toolset(&Arc::new(
        StaticToolset::new("bare").with_tool(echo("plain", "Plain")),
    ));
    assert_eq!(bare.timeout_ms_for("plain"), None);
    assert_eq!(bare.max_retries_for("plain"), DEFAULT_MAX_RETRIES);
}

#[tokio::test]
async fn static_toolset_defaults_are_enforced_during_dispatch() {
    let runs = counter();
    let hanging = Arc::new(string_tool(
        "hangs",
        Some("Never finishes".to_string()),
        open_schema(),
        |_ctx: ToolContext, _args: Value| async move {
            std::future::pending::<()>().await;
            Ok(ToolResult::new(Value::Null))
        },
    ));
    let toolset = StaticToolset::new("limited")
        .with_timeout_ms(20)
        .with_max_retries(1)
        .with_tool(failing_tool("flaky", runs.clone()))
        .with_tool(hanging);
    let registry = ToolRegistry::new().with_toolset(&Arc::new(toolset));

    let part = registry
        .execute_call(ToolContext::default(), &call("c1", "flaky", json!({})))
        .await;
    assert_kind(&part, ToolReturnKind::ExecutionFailed);
    // One run plus the toolset's single retry.
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    assert_eq!(part.metadata["retry"]["attempts"], 2);
    assert_eq!(part.metadata["retry"]["max_retries"], 1);

    let part = registry
        .execute_call(ToolContext::default(), &call("c2", "hangs", json!({})))
        .await;
    assert_kind(&part, ToolReturnKind::Timeout);
}

// ---------------------------------------------------------------------------
// PrefixedToolset
// ---------------------------------------------------------------------------

#[tokio::test]
async fn prefixed_toolset_renames_tools_and_dispatches_to_inner_tool() {
    let inner: DynToolset = Arc::new(
        StaticToolset::new("files")
            .with_timeout_ms(1_500)
            .with_max_retries(2)
            .with_tool(tagged_echo("read", "Read a file", "files"))
            .with_instruction(ToolInstruction::new("files", "Read before writing.")),
    );
    let prefixed = PrefixedToolset::new("workspace", inner.clone());
    assert_eq!(prefixed.prefix(), "workspace");
    assert_eq!(prefixed.prefixed_name("read"), "workspace_read");
    assert_eq!(prefixed.name(), "workspace");
    assert_eq!(prefixed.timeout_ms(), Some(1_500));
    assert_eq!(prefixed.max_retries(), Some(2));
    assert_eq!(prefixed.get_instructions(), inner.get_instructions());

    let registry = ToolRegistry::new().with_toolset(&Arc::new(prefixed));
    assert_eq!(registry.names(), vec!["workspace_read"]);
    assert_eq!(
        registry
            .definition("workspace_read")
            .unwrap()
            .description
            .as_deref(),
        Some("Read a file")
    );
    // Inner toolset defaults survive the wrapping.
    assert_eq!(registry.timeout_ms_for("workspace_read"), Some(1_500));
    assert_eq!(registry.max_retries_for("workspace_read"), 2);

    let part = registry
        .execute_call(
            ToolContext::default(),
            &call("c1", "workspace_read", json!({"value": "a.txt"})),
        )
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    assert_eq!(part.tool_name, "workspace_read");
    assert_eq!(part.content, json!({"from": "files", "value": "a.txt"}));

    // Inner validation still applies.
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call("c2", "workspace_read", json!({"value": 3})),
        )
        .await;
    assert_kind(&part, ToolReturnKind::InvalidArguments);

    // The unprefixed name is not registered.
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call("c3", "read", json!({"value": "a.txt"})),
        )
        .await;
    assert_kind(&part, ToolReturnKind::NotFound);
}

#[tokio::test]
async fn two_prefixed_copies_of_one_toolset_coexist() {
    let counter = counter();
    let inner: DynToolset = Arc::new(
        StaticToolset::new("shared")
            .with_tool(tagged_echo("lookup", "Lookup", "shared"))
            .with_tool(counting_tool("count", counter.clone())),
    );
    let left: DynToolset = Arc::new(PrefixedToolset::new("left", inner.clone()));
    let right: DynToolset = Arc::new(PrefixedToolset::new("right", inner));
    let registry = ToolRegistry::new().with_toolset(&left).with_toolset(&right);
    assert_eq!(
        registry.names(),
        vec!["left_count", "left_lookup", "right_count", "right_lookup"]
    );

    for (id, name) in [("l", "left_lookup"), ("r", "right_lookup")] {
        let part = registry
            .execute_call(
                ToolContext::default(),
                &call(id, name, json!({"value": id})),
            )
            .await;
        assert_kind(&part, ToolReturnKind::Success);
        assert_eq!(part.content, json!({"from": "shared", "value": id}));
    }
    for name in ["left_count", "right_count"] {
        let part = registry
            .execute_call(ToolContext::default(), &call("c", name, json!({})))
            .await;
        assert_kind(&part, ToolReturnKind::Success);
    }
    assert_eq!(counter.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn prefixed_proxies_coexist_in_one_registry() {
    let docs: DynToolset =
        Arc::new(StaticToolset::new("docs").with_tool(echo("lookup_docs", "Look up docs")));
    let workspace: DynToolset = Arc::new(PrefixedToolset::new(
        "workspace",
        tool_proxy_toolset(vec![docs.clone()]),
    ));
    let remote: DynToolset = Arc::new(PrefixedToolset::new(
        "remote",
        tool_proxy_toolset(vec![docs]),
    ));
    let registry = ToolRegistry::new()
        .with_toolset(&workspace)
        .with_toolset(&remote);
    assert_eq!(
        registry.names(),
        vec![
            "remote_call_tool",
            "remote_search_tools",
            "workspace_call_tool",
            "workspace_search_tools",
        ]
    );
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "c",
                "remote_call_tool",
                json!({"name": "lookup_docs", "arguments": {"topic": "x"}}),
            ),
        )
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    assert_eq!(part.content, json!({"topic": "x"}));
}

// ---------------------------------------------------------------------------
// DeferredToolset
// ---------------------------------------------------------------------------

fn deferred_registry(runs: Arc<AtomicU32>) -> ToolRegistry {
    let worker = Arc::new(string_tool(
        "render_video",
        Some("Render a video on the farm".to_string()),
        json!({
            "type": "object",
            "properties": {"scene": {"type": "string"}},
            "required": ["scene"]
        }),
        move |_ctx: ToolContext, args: Value| {
            let runs = runs.clone();
            async move {
                runs.fetch_add(1, Ordering::SeqCst);
                Ok(ToolResult::new(args))
            }
        },
    ));
    let toolset = DeferredToolset::new("farm").with_tool(worker);
    ToolRegistry::new().with_toolset(&Arc::new(toolset))
}

#[tokio::test]
async fn deferred_toolset_marks_definitions_as_deferred() {
    let registry = deferred_registry(counter());
    let definition = registry.definition("render_video").unwrap();
    assert_eq!(
        tool_metadata_kind(&definition.metadata),
        Some(ToolKind::Deferred)
    );
    assert_eq!(
        definition.metadata[TOOL_KIND_METADATA_KEY],
        json!("deferred")
    );
    assert_eq!(definition.metadata[DEFERRED_CALL_METADATA_KEY], json!(true));
    let visible = registry.definitions_for_context(&AgentContext::default());
    assert_eq!(visible.len(), 1);
    assert_eq!(
        tool_metadata_kind(&visible[0].metadata),
        Some(ToolKind::Deferred)
    );
}

#[tokio::test]
async fn deferred_call_without_result_is_deferred_with_arguments() {
    let runs = counter();
    let registry = deferred_registry(runs.clone());
    let arguments = json!({"scene": "intro"});
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call("d1", "render_video", arguments.clone()),
        )
        .await;
    assert_kind(&part, ToolReturnKind::Deferred);
    assert!(!part.is_error);
    assert_eq!(part.metadata["arguments"], arguments);
    assert_eq!(part.metadata["request"]["kind"], "deferred_call");
    assert_eq!(part.content["status"], "deferred");
    assert_eq!(part.content["tool"], "render_video");
    // The wrapped tool never ran: the work belongs to an external worker.
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn deferred_call_with_deferred_result_returns_it_as_success() {
    let runs = counter();
    let registry = deferred_registry(runs.clone());
    let result = json!({"url": "https://farm.invalid/intro.mp4"});
    let part = registry
        .execute_call(
            ToolContext::default().with_deferred_result(result.clone()),
            &call("d1", "render_video", json!({"scene": "intro"})),
        )
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    assert!(!part.is_error);
    assert_eq!(part.content, result);
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn deferred_call_rejects_invalid_arguments_before_deferral() {
    let registry = deferred_registry(counter());
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call("d1", "render_video", json!({"scene": 42})),
        )
        .await;
    assert_kind(&part, ToolReturnKind::InvalidArguments);
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call("d2", "render_video", json!({})),
        )
        .await;
    assert_kind(&part, ToolReturnKind::InvalidArguments);
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct SceneArgs {
    /// Scene to render.
    scene: String,
}

#[tokio::test]
async fn deferred_typed_tool_rejects_invalid_arguments_before_deferral() {
    let typed = Arc::new(typed_tool::<SceneArgs, _, _>(
        "render_typed",
        Some("Render a scene".to_string()),
        |_ctx: ToolContext, args: SceneArgs| async move {
            Ok(ToolResult::new(json!({"scene": args.scene})))
        },
    ));
    let registry =
        ToolRegistry::new().with_toolset(&Arc::new(DeferredToolset::new("farm").with_tool(typed)));
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call("d1", "render_typed", json!({"scene": 42})),
        )
        .await;
    assert_kind(&part, ToolReturnKind::InvalidArguments);
}

// ---------------------------------------------------------------------------
// ToolProxyToolset
// ---------------------------------------------------------------------------

fn proxy_inner(runs: Arc<AtomicU32>, failures: Arc<AtomicU32>) -> Vec<DynToolset> {
    let docs: DynToolset = Arc::new(
        StaticToolset::new("docs")
            .with_tool(tagged_echo(
                "lookup_docs",
                "Look up documentation by topic",
                "docs",
            ))
            .with_instruction(ToolInstruction::new("docs", "Cite the docs.")),
    );
    let approval = Arc::new(
        string_tool(
            "delete_branch",
            Some("Delete a git branch".to_string()),
            json!({"type": "object", "properties": {"branch": {"type": "string"}}, "required": ["branch"]}),
            move |_ctx: ToolContext, args: Value| {
                let runs = runs.clone();
                async move {
                    runs.fetch_add(1, Ordering::SeqCst);
                    Ok(ToolResult::new(json!({"deleted": args["branch"]})))
                }
            },
        )
        .with_approval_required(true),
    );
    let git: DynToolset = Arc::new(
        StaticToolset::new("git")
            .with_tool(approval)
            .with_tool(failing_tool("flaky_fetch", failures))
            .with_tool(never_available(
                "secret_vault",
                "Open the secret vault of documentation",
            )),
    );
    vec![docs, git]
}

#[tokio::test]
async fn proxy_exposes_only_call_tool_and_search_tools() {
    let proxy = tool_proxy_toolset(proxy_inner(counter(), counter()));
    assert_eq!(proxy.name(), "tool_proxy");
    let registry = ToolRegistry::new().with_toolset(&proxy);
    assert_eq!(registry.names(), vec!["call_tool", "search_tools"]);
    assert_eq!(
        names_for(&registry, &AgentContext::default()),
        vec!["call_tool", "search_tools"]
    );
    // Usage instructions plus the inner toolsets' instructions.
    let groups: Vec<String> = registry
        .instructions()
        .into_iter()
        .map(|instruction| instruction.group)
        .collect();
    assert!(groups.contains(&"docs".to_string()), "{groups:?}");
    assert!(groups.len() >= 2, "{groups:?}");
}

#[tokio::test]
async fn proxy_search_tools_returns_names_descriptions_and_parameters() {
    let registry =
        ToolRegistry::new().with_toolset(&tool_proxy_toolset(proxy_inner(counter(), counter())));
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "s1",
                "search_tools",
                json!({"query": "lookup documentation"}),
            ),
        )
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    let tools = part.content["tools"].as_array().unwrap();
    assert!(!tools.is_empty());
    assert_eq!(tools[0]["name"], "lookup_docs");
    assert_eq!(tools[0]["description"], "Look up documentation by topic");
    assert_eq!(tools[0]["parameters"], value_schema());

    // The limit argument caps the results.
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "s2",
                "search_tools",
                json!({"query": "documentation branch fetch", "limit": 1}),
            ),
        )
        .await;
    assert_eq!(part.content["tools"].as_array().unwrap().len(), 1);

    // No match: an empty list, not an error.
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "s3",
                "search_tools",
                json!({"query": "quantum teleportation"}),
            ),
        )
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    assert_eq!(part.content["tools"], json!([]));

    // An empty query asks the model to retry.
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call("s4", "search_tools", json!({"query": "   "})),
        )
        .await;
    assert_kind(&part, ToolReturnKind::ModelRetry);
}

#[tokio::test]
async fn proxy_call_tool_runs_inner_tool_with_arguments() {
    let registry =
        ToolRegistry::new().with_toolset(&tool_proxy_toolset(proxy_inner(counter(), counter())));
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "c1",
                "call_tool",
                json!({"name": "lookup_docs", "arguments": {"value": "toolsets"}}),
            ),
        )
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    assert_eq!(part.tool_name, "call_tool");
    assert_eq!(part.content, json!({"from": "docs", "value": "toolsets"}));
}

#[tokio::test]
async fn proxy_call_tool_unknown_inner_name_is_model_retryable_not_found() {
    let registry =
        ToolRegistry::new().with_toolset(&tool_proxy_toolset(proxy_inner(counter(), counter())));
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "c1",
                "call_tool",
                json!({"name": "lookup_doc", "arguments": {}}),
            ),
        )
        .await;
    assert_kind(&part, ToolReturnKind::NotFound);
    assert!(part.kind.is_model_retry());
    assert!(part.is_error);
    assert_eq!(part.metadata["retry"]["class"], "model");
    let message = part.content["message"].as_str().unwrap();
    assert!(message.contains("lookup_doc"), "{message}");
}

#[tokio::test]
async fn proxy_call_tool_surfaces_inner_validation_errors() {
    let registry =
        ToolRegistry::new().with_toolset(&tool_proxy_toolset(proxy_inner(counter(), counter())));
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "c1",
                "call_tool",
                json!({"name": "lookup_docs", "arguments": {"value": 12}}),
            ),
        )
        .await;
    assert_kind(&part, ToolReturnKind::InvalidArguments);
    // Missing arguments default to `{}`, which misses the required field.
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call("c2", "call_tool", json!({"name": "lookup_docs"})),
        )
        .await;
    assert_kind(&part, ToolReturnKind::InvalidArguments);
}

#[tokio::test]
async fn proxy_call_tool_keeps_inner_approval_requirement() {
    let runs = counter();
    let registry =
        ToolRegistry::new().with_toolset(&tool_proxy_toolset(proxy_inner(runs.clone(), counter())));
    let request = call(
        "c1",
        "call_tool",
        json!({"name": "delete_branch", "arguments": {"branch": "old"}}),
    );
    let part = registry
        .execute_call(ToolContext::default(), &request)
        .await;
    assert_kind(&part, ToolReturnKind::ApprovalRequired);
    assert_eq!(runs.load(Ordering::SeqCst), 0);

    let part = registry
        .execute_call(ToolContext::default().with_approved(true), &request)
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    assert_eq!(part.content, json!({"deleted": "old"}));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn proxy_does_not_multiply_inner_internal_retries() {
    let failures = counter();
    let registry = ToolRegistry::new().with_toolset(&tool_proxy_toolset(proxy_inner(
        counter(),
        failures.clone(),
    )));
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "c1",
                "call_tool",
                json!({"name": "flaky_fetch", "arguments": {}}),
            ),
        )
        .await;
    assert_kind(&part, ToolReturnKind::ExecutionFailed);
    // One run plus the default budget of 3 internal retries, once.
    assert_eq!(failures.load(Ordering::SeqCst), 1 + DEFAULT_MAX_RETRIES);
    assert_eq!(failures.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn proxy_search_hides_unavailable_inner_tools_with_ambient_context() {
    let registry =
        ToolRegistry::new().with_toolset(&tool_proxy_toolset(proxy_inner(counter(), counter())));
    let query = call(
        "s1",
        "search_tools",
        json!({"query": "secret vault documentation"}),
    );

    let (_handle, ctx) = ambient_handle(AgentContext::default());
    let part = registry.execute_call(ctx.clone(), &query).await;
    assert_kind(&part, ToolReturnKind::Success);
    let found: Vec<&str> = part.content["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert!(!found.contains(&"secret_vault"), "{found:?}");
    assert!(found.contains(&"lookup_docs"), "{found:?}");

    // Calling it anyway is refused in the ambient context.
    let part = registry
        .execute_call(
            ctx,
            &call(
                "c1",
                "call_tool",
                json!({"name": "secret_vault", "arguments": {}}),
            ),
        )
        .await;
    assert_kind(&part, ToolReturnKind::NotFound);
}

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
    let loaded = payloads(&context, TOOL_SEARCH_LOADED_EVENT_KIND);
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
    let loaded = payloads(&context, TOOL_SEARCH_LOADED_EVENT_KIND);
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
    let failed = payloads(&context, TOOL_SEARCH_FAILED_EVENT_KIND);
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["toolset"], "tool_search");
    assert!(context.tool_search.is_empty());
    assert!(payloads(&context, TOOL_SEARCH_LOADED_EVENT_KIND).is_empty());

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
        payloads(&handle.snapshot(), TOOL_SEARCH_FAILED_EVENT_KIND).len(),
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
    let no_match = payloads(&context, TOOL_SEARCH_NO_MATCH_EVENT_KIND);
    assert_eq!(no_match.len(), 1);
    assert_eq!(no_match[0]["query"], "quantum teleportation");
    assert!(payloads(&context, TOOL_SEARCH_LOADED_EVENT_KIND).is_empty());
    assert!(payloads(&context, TOOL_SEARCH_FAILED_EVENT_KIND).is_empty());
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
    assert!(part.is_error);
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
    let loaded = payloads(&context, TOOL_SEARCH_LOADED_EVENT_KIND);
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
    let searched = payloads(&handle.snapshot(), TOOL_SEARCH_LOADED_EVENT_KIND);
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
    let events = payloads(&context, TOOL_SEARCH_INITIALIZED_EVENT_KIND);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0], serde_json::to_value(&published).unwrap());
    assert_eq!(events[0]["indexed_tools"], 7);
    assert_eq!(events[0]["available_tools"], 6);
    assert_eq!(events[0]["unavailable_tools"], 1);

    let published = search.publish_refresh_report(&mut context);
    let events = payloads(&context, TOOL_SEARCH_REFRESHED_EVENT_KIND);
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

    let refreshed = payloads(&context, TOOL_SEARCH_REFRESHED_EVENT_KIND);
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
        payloads(&context, TOOL_SEARCH_REFRESHED_EVENT_KIND)[0]["removed_tools"],
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

    let invalidated = payloads(&context, TOOL_SEARCH_INVALIDATED_EVENT_KIND);
    assert_eq!(invalidated.len(), 1);
    assert_eq!(invalidated[0]["removed_tools"], json!(["our_a"]));
    assert_eq!(invalidated[0]["removed_namespaces"], json!(["ours_ns"]));
    assert!(payloads(&context, TOOL_SEARCH_REFRESHED_EVENT_KIND).is_empty());
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
    assert_eq!(decision.reason, Some(ToolSearchRefreshReason::Interval));
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
    assert_eq!(decision.reason, Some(ToolSearchRefreshReason::Interval));
    assert!(binding
        .refresh_loaded_state_if_due(&search, &mut context, 1_000)
        .is_some());
    assert_eq!(binding.decision(1_500).wait_ms, Some(500));
    assert_eq!(
        payloads(&context, TOOL_SEARCH_REFRESHED_EVENT_KIND).len(),
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
    assert_eq!(decision.reason, Some(ToolSearchRefreshReason::WatchEvent));
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
        payloads(&context, TOOL_SEARCH_REFRESHED_EVENT_KIND).len(),
        1
    );

    // request_refresh is debounced too.
    binding.request_refresh(20_000);
    assert!(!binding.decision(20_050).due);
    let decision = binding.decision(20_100);
    assert!(decision.due);
    assert_eq!(decision.reason, Some(ToolSearchRefreshReason::Requested));
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
    assert_eq!(
        decision.reason,
        Some(ToolSearchRefreshReason::InventoryChanged)
    );
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

    let events = payloads(&context, TOOL_SEARCH_REFRESHED_EVENT_KIND);
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
        ToolSearchRefreshReason::InventoryChanged.as_str(),
        "inventory_changed"
    );
}

// ---------------------------------------------------------------------------
// Toolset lifecycle
// ---------------------------------------------------------------------------

/// A toolset that records its lifecycle calls.
struct LifecycleToolset {
    name: String,
    tools: Vec<DynTool>,
    policy: ToolsetLifecyclePolicy,
    fail_enter: bool,
    /// `None`: always available; `Some(key)`: available when
    /// `context.metadata[key] == true`.
    available_key: Option<&'static str>,
    entered: AtomicU32,
    exited: AtomicU32,
}

impl LifecycleToolset {
    fn new(name: &str, tool: &str, policy: ToolsetLifecyclePolicy) -> Self {
        Self {
            name: name.to_string(),
            tools: vec![echo(tool, "Lifecycle tool")],
            policy,
            fail_enter: false,
            available_key: None,
            entered: AtomicU32::new(0),
            exited: AtomicU32::new(0),
        }
    }

    fn failing(mut self) -> Self {
        self.fail_enter = true;
        self
    }

    fn available_when(mut self, key: &'static str) -> Self {
        self.available_key = Some(key);
        self
    }
}

impl Toolset for LifecycleToolset {
    fn name(&self) -> &str {
        &self.name
    }

    fn get_tools(&self) -> Vec<DynTool> {
        self.tools.clone()
    }

    fn is_available(&self, context: &AgentContext) -> bool {
        self.available_key.is_none_or(|key| {
            context
                .metadata
                .get(key)
                .and_then(Value::as_bool)
                .unwrap_or(false)
        })
    }

    fn lifecycle_policy(&self) -> ToolsetLifecyclePolicy {
        self.policy
    }

    fn enter_with_context<'a>(
        &'a self,
        context: &'a mut AgentContext,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        Box::pin(async move {
            self.entered.fetch_add(1, Ordering::SeqCst);
            if self.fail_enter {
                return Err(ToolError::user_error("backend unreachable"));
            }
            context
                .metadata
                .insert(format!("{}_entered", self.name), json!(true));
            Ok(())
        })
    }

    fn exit_with_context<'a>(
        &'a self,
        context: &'a mut AgentContext,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        Box::pin(async move {
            self.exited.fetch_add(1, Ordering::SeqCst);
            context
                .metadata
                .insert(format!("{}_exited", self.name), json!(true));
            Ok(())
        })
    }
}

const MANAGED: ToolsetLifecyclePolicy = ToolsetLifecyclePolicy {
    enter_before_prepare: true,
    exit_after_run: true,
};

#[tokio::test]
async fn lifecycle_enter_and_exit_publish_initialized_and_closed() {
    assert_eq!(ToolsetLifecyclePolicy::managed(), MANAGED);
    let toolset = Arc::new(LifecycleToolset::new("db", "db_query", MANAGED));
    let registry = ToolRegistry::new().with_toolset(&toolset);
    let mut context = AgentContext::default();

    let reports = registry.enter_toolsets(&mut context).await;
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].toolset, "db");
    assert_eq!(reports[0].status, ToolsetLifecycleStatus::Initialized);
    assert_eq!(reports[0].error, None);
    assert_eq!(toolset.entered.load(Ordering::SeqCst), 1);
    assert_eq!(context.metadata["db_entered"], json!(true));
    let initialized = payloads(&context, TOOLSET_INITIALIZED_EVENT_KIND);
    assert_eq!(initialized.len(), 1);
    assert_eq!(initialized[0]["toolset"], "db");
    assert_eq!(names_for(&registry, &context), vec!["db_query"]);

    let reports = registry.exit_toolsets(&mut context).await;
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].status, ToolsetLifecycleStatus::Closed);
    assert_eq!(toolset.exited.load(Ordering::SeqCst), 1);
    assert_eq!(context.metadata["db_exited"], json!(true));
    let closed = payloads(&context, TOOLSET_CLOSED_EVENT_KIND);
    assert_eq!(closed.len(), 1);
    assert_eq!(closed[0]["toolset"], "db");
    let kinds: Vec<&str> = context
        .events
        .events()
        .iter()
        .map(|event| event.kind.as_str())
        .collect();
    assert_eq!(
        kinds,
        vec![TOOLSET_INITIALIZED_EVENT_KIND, TOOLSET_CLOSED_EVENT_KIND]
    );
}

#[tokio::test]
async fn lifecycle_failed_enter_hides_tools_and_skips_exit() {
    let healthy = Arc::new(LifecycleToolset::new("cache", "cache_get", MANAGED));
    let broken = Arc::new(LifecycleToolset::new("remote", "remote_call", MANAGED).failing());
    let registry = ToolRegistry::new()
        .with_toolset(&healthy)
        .with_toolset(&broken);
    let mut context = AgentContext::default();
    assert_eq!(
        names_for(&registry, &context),
        vec!["cache_get", "remote_call"]
    );

    let reports = registry.enter_toolsets(&mut context).await;
    assert_eq!(reports.len(), 2);
    let failed_report = reports
        .iter()
        .find(|report| report.toolset == "remote")
        .unwrap();
    assert_eq!(failed_report.status, ToolsetLifecycleStatus::Failed);
    assert!(failed_report
        .error
        .as_deref()
        .unwrap()
        .contains("backend unreachable"));
    let failed = payloads(&context, TOOLSET_FAILED_EVENT_KIND);
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["toolset"], "remote");
    assert!(failed[0]["error"]
        .as_str()
        .unwrap()
        .contains("backend unreachable"));
    assert!(context.unavailable_toolsets.contains("remote"));

    assert_eq!(names_for(&registry, &context), vec!["cache_get"]);
    let report = registry.availability_report(&context);
    assert_eq!(report.available, vec!["cache_get"]);
    assert_eq!(report.unavailable, vec!["remote_call"]);

    // Its tools cannot be called in the ambient context either.
    let (_handle, ctx) = ambient_handle(context.clone());
    let part = registry
        .execute_call(ctx, &call("c1", "remote_call", json!({})))
        .await;
    assert_kind(&part, ToolReturnKind::NotFound);

    let reports = registry.exit_toolsets(&mut context).await;
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].toolset, "cache");
    assert_eq!(healthy.exited.load(Ordering::SeqCst), 1);
    assert_eq!(broken.exited.load(Ordering::SeqCst), 0);
    let closed = payloads(&context, TOOLSET_CLOSED_EVENT_KIND);
    assert_eq!(closed.len(), 1);
    assert_eq!(closed[0]["toolset"], "cache");
}

#[tokio::test]
async fn lifecycle_unavailable_toolset_publishes_unavailable() {
    let gated_set =
        Arc::new(LifecycleToolset::new("gpu", "gpu_render", MANAGED).available_when("gpu_present"));
    let registry = ToolRegistry::new().with_toolset(&gated_set);
    let mut context = AgentContext::default();

    let reports = registry.enter_toolsets(&mut context).await;
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].status, ToolsetLifecycleStatus::Unavailable);
    let unavailable = payloads(&context, TOOLSET_UNAVAILABLE_EVENT_KIND);
    assert_eq!(unavailable.len(), 1);
    assert_eq!(unavailable[0]["toolset"], "gpu");
    // Not entered, hidden, and not closed.
    assert_eq!(gated_set.entered.load(Ordering::SeqCst), 0);
    assert!(names_for(&registry, &context).is_empty());
    assert_eq!(
        registry.availability_report(&context).unavailable,
        vec!["gpu_render"]
    );
    assert!(registry.exit_toolsets(&mut context).await.is_empty());
    assert_eq!(gated_set.exited.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn lifecycle_default_policy_is_neither_entered_nor_exited() {
    let plain = Arc::new(LifecycleToolset::new(
        "plain",
        "plain_tool",
        ToolsetLifecyclePolicy::default(),
    ));
    assert_eq!(
        ToolsetLifecyclePolicy::default(),
        ToolsetLifecyclePolicy {
            enter_before_prepare: false,
            exit_after_run: false,
        }
    );
    let registry = ToolRegistry::new().with_toolset(&plain);
    let mut context = AgentContext::default();
    assert!(registry.enter_toolsets(&mut context).await.is_empty());
    assert!(registry.exit_toolsets(&mut context).await.is_empty());
    assert_eq!(plain.entered.load(Ordering::SeqCst), 0);
    assert_eq!(plain.exited.load(Ordering::SeqCst), 0);
    assert!(context.events.events().is_empty());
    assert_eq!(names_for(&registry, &context), vec!["plain_tool"]);
}

#[tokio::test]
async fn lifecycle_policy_of_static_and_prefixed_toolsets_is_forwarded() {
    let static_set = Arc::new(
        StaticToolset::new("managed_static")
            .with_tool(echo("static_tool", "Static"))
            .with_lifecycle_policy(MANAGED),
    );
    assert_eq!(static_set.lifecycle_policy(), MANAGED);
    let inner = Arc::new(LifecycleToolset::new("svc", "svc_tool", MANAGED));
    let prefixed = Arc::new(PrefixedToolset::new("p", inner.clone()));
    assert_eq!(prefixed.lifecycle_policy(), MANAGED);

    let registry = ToolRegistry::new().with_toolset(&prefixed);
    let mut context = AgentContext::default();
    let reports = registry.enter_toolsets(&mut context).await;
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].status, ToolsetLifecycleStatus::Initialized);
    assert_eq!(inner.entered.load(Ordering::SeqCst), 1);
    registry.exit_toolsets(&mut context).await;
    assert_eq!(inner.exited.load(Ordering::SeqCst), 1);
    assert_eq!(names_for(&registry, &context), vec!["p_svc_tool"]);
}

#[tokio::test]
async fn lifecycle_toolset_that_becomes_available_again_is_shown_again() {
    let toolset = Arc::new(
        LifecycleToolset::new("gpu", "gpu_render", ToolsetLifecyclePolicy::default())
            .available_when("gpu_present"),
    );
    let registry = ToolRegistry::new().with_toolset(&toolset);
    let mut context = AgentContext::default();
    registry.enter_toolsets(&mut context).await;
    assert!(names_for(&registry, &context).is_empty());

    context
        .metadata
        .insert("gpu_present".to_string(), json!(true));
    registry.enter_toolsets(&mut context).await;
    assert_eq!(names_for(&registry, &context), vec!["gpu_render"]);
}

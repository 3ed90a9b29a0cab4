//! `StaticToolset`, `PrefixedToolset` and `DeferredToolset`: names, ids,
//! instructions, defaults, prefixing and deferral.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use starweaver::model::ToolReturnKind;
use starweaver::tools::{
    DeferredToolset, DynTool, DEFAULT_MAX_RETRIES, DEFERRED_CALL_METADATA_KEY,
    TOOL_KIND_METADATA_KEY,
};
use starweaver::{
    string_tool, tool_metadata_kind, typed_tool, AgentContext, DynToolset, PrefixedToolset,
    StaticToolset, ToolContext, ToolInstruction, ToolKind, ToolRegistry, ToolResult, Toolset,
};

use crate::common::toolsets::{assert_kind, failing_tool, tagged_echo};
use crate::common::{call, counter, echo, open_schema, EchoArgs};

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
    assert!(!part.is_error());
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
    assert!(!part.is_error());
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
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: PrefixedToolset errors named the unprefixed tool.
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

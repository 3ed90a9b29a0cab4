//! Regression tests from the second review round: defects the first
//! round's fixes introduced or left behind, each found and fixed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use starweaver::model::{sample_value, ModelMessage, ModelResponse};
use starweaver::{
    string_tool, tool_proxy_toolset, AgentBuilder, AgentContext, AgentContextHandle,
    AgentHitlUserInteraction, AgentRunStatus, AgentStreamRecord, FunctionModel, StaticToolset,
    ToolContext, ToolError, ToolResult, ToolUserInputPreprocessResult,
};

mod common;
use common::{assert_sample_valid, call, open_schema, recording_tool, responses_so_far, Log};

// ---------------------------------------------------------------------------
// 1. An approval leaks to a later call that reuses the approved call's id
// ---------------------------------------------------------------------------

#[tokio::test]
async fn approval_does_not_carry_over_to_a_later_call_with_the_same_id() {
    let log: Log = Arc::default();
    // Many providers number calls per response ("call_0" every turn).
    let model = Arc::new(FunctionModel::new(|messages: &[ModelMessage], _| {
        Ok(match responses_so_far(messages) {
            0 => ModelResponse::tool_calls([call("call_0", "deploy", json!({"n": 1}))]),
            1 => ModelResponse::tool_calls([call("call_0", "deploy", json!({"n": 666}))]),
            _ => ModelResponse::text("done"),
        })
    }));
    let mut session = AgentBuilder::new(model)
        .tool(Arc::new(
            recording_tool("deploy", &log).with_approval_required(true),
        ))
        .build()
        .session();
    let first = session.run("deploy").await.unwrap();
    assert_eq!(first.status, AgentRunStatus::Waiting);
    let after = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("call_0"))
        .await
        .unwrap();
    // agent-runtime.md: "its approval holds for the rest of the run" -- for
    // *that* call. A new call (new step, other arguments) must ask again.
    let ran: Vec<Value> = log
        .lock()
        .unwrap()
        .iter()
        .map(|e| e["args"].clone())
        .collect();
    assert_eq!(
        after.status,
        AgentRunStatus::Waiting,
        "the second, never-approved deploy ran without approval; deploy ran with {ran:?}"
    );
    assert_eq!(ran, vec![json!({"n": 1})]);
}

// ---------------------------------------------------------------------------
// 7. Stream sequence numbers repeat after rejected HITL input
// ---------------------------------------------------------------------------

#[tokio::test]
async fn rejected_hitl_input_does_not_reuse_sequence_numbers() {
    let tool = string_tool(
        "write_file",
        Some("Write a reviewed file".to_string()),
        json!({"type": "object"}),
        |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
    )
    .with_approval_required(true)
    .with_user_input_preprocessor(|_ctx: ToolContext, user_input: Value| async move {
        if user_input == json!("bad") {
            return Err(ToolError::invalid_arguments("write_file", "say it again"));
        }
        Ok(ToolUserInputPreprocessResult::new()
            .with_override_arguments(json!({"path": user_input})))
    });
    let model = Arc::new(FunctionModel::new(|messages: &[ModelMessage], _| {
        Ok(match responses_so_far(messages) {
            0 => ModelResponse::tool_calls([call("w1", "write_file", json!({"path": "a"}))]),
            _ => ModelResponse::text("written"),
        })
    }));
    let mut session = AgentBuilder::new(model)
        .tool(Arc::new(tool))
        .build()
        .session();
    let records: Arc<Mutex<Vec<(String, u64, String)>>> = Arc::default();
    let sink_records = records.clone();
    let mut sink = move |record: &AgentStreamRecord| {
        sink_records.lock().unwrap().push((
            record.run_id.to_string(),
            record.sequence,
            format!("{:?}", record.event).chars().take(40).collect(),
        ));
    };
    session
        .run_with_events("go", starweaver::AgentRunOptions::new(), &mut sink)
        .await
        .unwrap();
    let rejected = session
        .resume_with_events(
            AgentHitlUserInteraction::approved("w1").with_user_input(json!("bad")),
            &mut sink,
        )
        .await;
    assert!(matches!(
        rejected,
        Err(starweaver::AgentError::InvalidHitlInput { .. })
    ));
    session
        .resume_with_events(
            AgentHitlUserInteraction::approved("w1").with_user_input(json!("b")),
            &mut sink,
        )
        .await
        .unwrap();
    let records = records.lock().unwrap().clone();
    let mut seen = std::collections::HashSet::new();
    let repeated: Vec<_> = records
        .iter()
        .filter(|(run, sequence, _)| !seen.insert((run.clone(), *sequence)))
        .collect();
    // agent-runtime.md: the fix promises a "continuous stream sequence";
    // hosts key records by (run_id, sequence).
    assert!(
        repeated.is_empty(),
        "reused (run_id, sequence): {repeated:?}\nall: {records:#?}"
    );
}

// ---------------------------------------------------------------------------
// 8. A dropped run leaves the half-run's context changes in the host's
//    context (docs say the context is left as before the segment)
// ---------------------------------------------------------------------------

#[tokio::test]
async fn dropped_run_hands_back_the_context_with_what_tools_already_did() {
    let note = Arc::new(string_tool(
        "remember",
        Some("Writes a note".to_string()),
        open_schema(),
        |ctx: ToolContext, _args: Value| async move {
            let handle = ctx.dependency::<AgentContextHandle>().unwrap();
            handle.update(|context| context.notes.set("half_run", "written"));
            Ok(ToolResult::new(json!({"ok": true})))
        },
    ));
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
        Ok(match responses_so_far(messages) {
            0 => ModelResponse::tool_calls([call("r1", "remember", json!({}))]),
            1 => ModelResponse::tool_calls([call("s1", "slow", json!({}))]),
            _ => ModelResponse::text("done"),
        })
    }));
    let agent = AgentBuilder::new(model).tool(note).tool(slow).build();
    let mut context = AgentContext::default();
    let outcome = tokio::time::timeout(
        Duration::from_millis(100),
        agent.run_with_context("go", &mut context),
    )
    .await;
    assert!(outcome.is_err(), "the run should have been cut off");
    // agent-runtime.md: a dropped run hands the context back (nothing is
    // lost, so what tools already did stays); a stateless run has no
    // session to keep its messages in.
    assert_eq!(context.notes.get("half_run"), Some("written"));
    assert_eq!(context.usage.requests, 2, "usage: {:?}", context.usage);
}

// ---------------------------------------------------------------------------
// 11.-14. Schema samples for unusual schemas
// ---------------------------------------------------------------------------

#[test]
fn integer_multiple_of_respects_the_upper_bound() {
    // agent-runtime.md: samples honour "bounds"; the fix added multipleOf.
    for schema in [
        json!({"type": "integer", "maximum": -3, "multipleOf": 2}),
        json!({"type": "integer", "exclusiveMaximum": 0, "multipleOf": 5}),
        json!({"type": "integer", "maximum": 3, "multipleOf": 5}),
    ] {
        assert_sample_valid(&schema);
    }
}

#[test]
fn tuple_samples_respect_min_items() {
    assert_sample_valid(&json!({
        "type": "array",
        "prefixItems": [{"type": "string"}],
        "items": {"type": "integer"},
        "minItems": 3
    }));
}

#[allow(dead_code)]
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct TreeNode {
    /// Node label.
    label: String,
    /// Child nodes.
    children: Vec<TreeNode>,
}

#[test]
fn recursive_typed_arguments_sample_validly() {
    // A typed tool over a recursive type: the test model must be able to
    // call it (agent-runtime.md: "arguments generated from the tool's JSON
    // Schema ... local $refs").
    let schema = serde_json::to_value(schemars::schema_for!(TreeNode)).unwrap();
    let value = sample_value(&schema);
    let parsed: Result<TreeNode, _> = serde_json::from_value(value.clone());
    assert!(parsed.is_ok(), "sample {value} does not parse: {parsed:?}");
    assert_sample_valid(&schema);
}

#[test]
fn large_min_length_samples_promptly() {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let value = sample_value(&json!({"type": "string", "minLength": 1_000_000}));
        let _ = sender.send(value.as_str().map_or(0, str::len));
    });
    // design.md: "nothing panics on input" -- nor should it spin; a tool
    // schema from MCP is input.
    let length = receiver.recv_timeout(Duration::from_secs(5));
    assert!(
        matches!(length, Ok(n) if n >= 1_000_000),
        "sampling one string with minLength 1e6 did not finish in 5 s: {length:?}"
    );
}

#[allow(dead_code)]
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum SearchMode {
    /// Exact match.
    Exact { field: String },
    /// Fuzzy match.
    Fuzzy { distance: u8 },
}

#[allow(dead_code)]
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct FlattenedArgs {
    /// Query text.
    query: String,
    #[serde(flatten)]
    mode: SearchMode,
}

#[test]
fn flattened_enum_arguments_sample_validly() {
    let schema = serde_json::to_value(schemars::schema_for!(FlattenedArgs)).unwrap();
    let value = sample_value(&schema);
    let parsed: Result<FlattenedArgs, _> = serde_json::from_value(value.clone());
    assert!(
        parsed.is_ok(),
        "sample {value} of {schema} does not parse: {parsed:?}"
    );
    assert_sample_valid(&schema);
}

// ---------------------------------------------------------------------------
// 15. Panics before a hook's or preprocessor's future exists escape
// ---------------------------------------------------------------------------

#[tokio::test]
async fn preprocessor_panicking_before_its_future_does_not_crash_the_resume() {
    let tool = string_tool(
        "write_file",
        Some("Write a reviewed file".to_string()),
        json!({"type": "object"}),
        |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
    )
    .with_approval_required(true)
    .with_user_input_preprocessor(|_ctx: ToolContext, user_input: Value| {
        // Reads the input synchronously, then builds the future.
        let path = user_input["path"].as_str().unwrap().to_string();
        async move {
            Ok(ToolUserInputPreprocessResult::new().with_override_arguments(json!({"path": path})))
        }
    });
    let model = Arc::new(FunctionModel::new(|messages: &[ModelMessage], _| {
        Ok(match responses_so_far(messages) {
            0 => ModelResponse::tool_calls([call("w1", "write_file", json!({"path": "a"}))]),
            _ => ModelResponse::text("written"),
        })
    }));
    let mut session = AgentBuilder::new(model)
        .tool(Arc::new(tool))
        .build()
        .session();
    session.run("write").await.unwrap();
    let handle = tokio::spawn(async move {
        // The user typed free text where the tool expected an object.
        session
            .resume_after_hitl(AgentHitlUserInteraction::approved("w1").with_user_input(json!("b")))
            .await
            .map(|result| result.status)
    });
    // tool-runtime.md: "Panics in validators, checks, preprocessors and
    // tools become execution_failed returns with the panic message."
    let outcome = handle.await;
    assert!(outcome.is_ok(), "resume_after_hitl panicked");
}

// ---------------------------------------------------------------------------
// 18. Scheduling looks only at call_tool, so a proxied sequential or
//     mutable-context tool runs concurrently with the rest of the batch
// ---------------------------------------------------------------------------

#[tokio::test]
async fn proxied_sequential_tool_makes_its_batch_sequential() {
    let exclusive = Arc::new(
        string_tool(
            "migrate_db",
            Some("Runs a migration; must not overlap other calls".to_string()),
            open_schema(),
            |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
        )
        .with_sequential(true),
    );
    let proxy = tool_proxy_toolset(vec![StaticToolset::new("db").with_tool(exclusive)]);
    let model = Arc::new(FunctionModel::new(|messages: &[ModelMessage], _| {
        Ok(match responses_so_far(messages) {
            0 => ModelResponse::tool_calls([
                call(
                    "m",
                    "call_tool",
                    json!({"name": "migrate_db", "arguments": {}}),
                ),
                call("o", "other", json!({})),
            ]),
            _ => ModelResponse::text("done"),
        })
    }));
    let stream = AgentBuilder::new(model)
        .toolset(&proxy)
        .tool(Arc::new(
            string_tool(
                "other",
                Some("A first-party style Filtered tool".to_string()),
                open_schema(),
                |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
            )
            .with_dependencies(starweaver::ToolDependencyRequirements::filtered(
                Vec::<String>::new(),
            )),
        ))
        .build()
        .run_stream("go")
        .await
        .unwrap();
    let batch = stream
        .events()
        .iter()
        .find_map(|record| match &record.event {
            starweaver::AgentStreamEvent::ToolBatch { mode, reason, .. } => {
                Some((mode.clone(), reason.clone()))
            }
            _ => None,
        })
        .unwrap();
    // tools.md: "The runtime falls back to model-order sequential execution
    // when ... any requested tool definition has sequential = true";
    // tool-runtime.md: wrapped tools keep their ... profiles.
    assert_eq!(batch.0, "sequential", "batch ran as {batch:?}");
}

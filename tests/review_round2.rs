//! Regression tests from the second review round: defects the first
//! round's fixes introduced or left behind, each found and fixed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use starweaver::model::{sample_value, ModelMessage, ModelResponse};
use starweaver::{
    string_tool, tool_proxy_toolset, tool_search_toolset, user_input_tools, AgentBuilder,
    AgentContext, AgentContextHandle, AgentHitlUserInteraction, AgentRunStatus, AgentStreamRecord,
    DynTool, DynToolset, FunctionModel, StaticToolset, ToolContext, ToolError, ToolRegistry,
    ToolResult, ToolReturnKind, ToolUserInputPreprocessResult, Toolset,
};

mod common;
use common::{
    ambient, assert_sample_valid, call, counter, described_echo, one_question, open_schema,
    recording_tool, responses_so_far, tool_returns, CountingLifecycle, Log,
};

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
// 2. The proxy drops the wrapped tool's user-input preprocessor
// ---------------------------------------------------------------------------

#[tokio::test]
async fn proxied_clarifying_question_returns_the_users_answer() {
    let proxy = tool_proxy_toolset(vec![user_input_tools()]);
    let model = Arc::new(FunctionModel::new(|messages: &[ModelMessage], _| {
        Ok(match responses_so_far(messages) {
            0 => ModelResponse::tool_calls([call(
                "ask",
                "call_tool",
                json!({"name": "ask_user_question", "arguments": {"questions": one_question()}}),
            )]),
            _ => ModelResponse::text("ok"),
        })
    }));
    let mut session = AgentBuilder::new(model).toolset(&proxy).build().session();
    let waiting = session.run("write it").await.unwrap();
    assert!(waiting.is_waiting(), "{waiting:#?}");
    assert_eq!(waiting.pending[0].request_kind(), "clarifying_questions");
    // tools.md: "Resolve the pending call with
    // AgentHitlUserInteraction::approved(tool_call_id).with_user_input(...)".
    let done = session
        .resume_after_hitl(
            AgentHitlUserInteraction::approved("ask")
                .with_user_input(json!({"answers": {"Which language?": "Rust"}})),
        )
        .await
        .unwrap();
    let part = &tool_returns(&done.messages)[0];
    // "The tool preprocessor stores normalized answers in approval
    // metadata, preserves the original questions, and returns both to the
    // model after resume_after_hitl."
    assert_eq!(
        part.metadata.get("answered"),
        Some(&json!(true)),
        "the user's answer never reached the model: {part:#?}"
    );
    assert!(
        part.content.to_string().contains("Rust"),
        "{}",
        part.content
    );
}

// ---------------------------------------------------------------------------
// 3. call_tool is Strict, and Strict now wipes the call's dependencies, so
//    every wrapped tool loses the dependencies its caller attached
// ---------------------------------------------------------------------------

#[derive(Debug)]
struct Environment;

fn needs_environment() -> DynTool {
    // A Legacy tool, like a third-party tool (tools.md: "Third-party ...
    // tools retain the Legacy compatibility default").
    Arc::new(string_tool(
        "read_env",
        Some("Reads from the attached environment".to_string()),
        open_schema(),
        |ctx: ToolContext, _args: Value| async move {
            ctx.dependency::<Environment>()
                .map(|_| ToolResult::new(json!({"ok": true})))
                .ok_or_else(|| ToolError::user_error("no environment attached"))
        },
    ))
}

#[tokio::test]
async fn proxied_legacy_tool_keeps_the_callers_dependencies() {
    let direct =
        ToolRegistry::new().with_toolset(&StaticToolset::new("env").with_tool(needs_environment()));
    let proxied = ToolRegistry::new()
        .with_toolset(&tool_proxy_toolset(vec![
            StaticToolset::new("env").with_tool(needs_environment())
        ]));
    // As in tools.md's shell example: dependencies on the ToolContext, no
    // agent context.
    let ctx = || ToolContext::default().with_dependency(Environment);
    let part = direct
        .execute_call(ctx(), &call("c", "read_env", json!({})))
        .await;
    assert!(part.is_success(), "{}", part.content);
    // tool-runtime.md: "wrapped tools keep their ... profiles".
    let part = proxied
        .execute_call(
            ctx(),
            &call(
                "c",
                "call_tool",
                json!({"name": "read_env", "arguments": {}}),
            ),
        )
        .await;
    assert!(
        part.is_success(),
        "the same Legacy tool behind the proxy lost its dependencies: {}",
        part.content
    );
    // The same happens with an agent context: base dependencies are gone.
    let part = proxied
        .execute_call(
            ambient(AgentContext::default()).with_dependency(Environment),
            &call(
                "c",
                "call_tool",
                json!({"name": "read_env", "arguments": {}}),
            ),
        )
        .await;
    assert!(part.is_success(), "with an agent context: {}", part.content);
}

// ---------------------------------------------------------------------------
// 4. A wrapped toolset's availability is never checked unless some wrapped
//    toolset also asks for setup
// ---------------------------------------------------------------------------

/// A toolset that cannot serve any context (no setup hook of its own).
#[derive(Clone)]
struct Offline {
    tools: Vec<DynTool>,
}

impl Toolset for Offline {
    fn name(&self) -> &str {
        "offline"
    }

    fn get_tools(&self) -> Vec<DynTool> {
        self.tools.clone()
    }

    fn is_available(&self, _context: &AgentContext) -> bool {
        false
    }
}

#[tokio::test]
async fn unavailable_toolset_behind_a_proxy_is_hidden() {
    let offline = || {
        Arc::new(Offline {
            tools: vec![described_echo("remote_query")],
        }) as DynToolset
    };
    // Directly registered, the toolset is hidden after enter_toolsets.
    let direct = ToolRegistry::new().with_toolset(&offline());
    let mut context = AgentContext::default();
    direct.enter_toolsets(&mut context).await;
    assert!(direct.definitions_for_context(&context).is_empty());

    // Behind a proxy (tool-runtime.md: "Proxy and search toolsets run the
    // lifecycle of the toolsets they wrap").
    let proxied = ToolRegistry::new().with_toolset(&tool_proxy_toolset(vec![offline()]));
    let mut context = AgentContext::default();
    proxied.enter_toolsets(&mut context).await;
    let part = proxied
        .execute_call(
            ambient(context.clone()),
            &call(
                "c",
                "call_tool",
                json!({"name": "remote_query", "arguments": {}}),
            ),
        )
        .await;
    assert_eq!(
        part.kind,
        ToolReturnKind::NotFound,
        "a tool of an unavailable toolset ran through the proxy: {}",
        part.content
    );

    // Behind tool search.
    let searched = ToolRegistry::new().with_toolset(&tool_search_toolset(vec![offline()]));
    let mut context = AgentContext::default();
    searched.enter_toolsets(&mut context).await;
    context.record_tool_search_loaded(["remote_query"], Vec::<String>::new());
    let names: Vec<String> = searched
        .definitions_for_context(&context)
        .into_iter()
        .map(|definition| definition.name)
        .collect();
    assert_eq!(
        names,
        vec!["tool_search"],
        "unavailable toolset's tool exposed"
    );
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
// 9. Argument errors of a proxied tool are renamed to `call_tool`
// ---------------------------------------------------------------------------

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct CountArgs {
    /// How many.
    count: u32,
}

#[tokio::test]
async fn proxied_argument_error_names_the_wrapped_tool() {
    let counter = Arc::new(starweaver::typed_tool::<CountArgs, _, _>(
        "count_items",
        Some("Count items".to_string()),
        |_ctx: ToolContext, args: CountArgs| async move {
            Ok(ToolResult::new(json!({"count": args.count})))
        },
    ));
    let registry = ToolRegistry::new()
        .with_toolset(&tool_proxy_toolset(vec![
            StaticToolset::new("items").with_tool(counter)
        ]));
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "c",
                "call_tool",
                json!({"name": "count_items", "arguments": {"count": "three"}}),
            ),
        )
        .await;
    assert_eq!(part.kind, ToolReturnKind::InvalidArguments);
    let message = part.content["message"].as_str().unwrap();
    // The model's call_tool arguments ({name, arguments}) were fine; the
    // error is about count_items' `count`. Saying "invalid arguments for
    // tool `call_tool`: at `count`" points the model at the wrong schema.
    assert!(
        message.contains("count_items"),
        "the error does not say which tool's arguments are wrong: {message}"
    );
}

// ---------------------------------------------------------------------------
// 10. Nested proxies: the approval request pairs the innermost tool's name
//     with the middle call_tool's arguments
// ---------------------------------------------------------------------------

#[tokio::test]
async fn nested_proxy_approval_names_tool_and_arguments_consistently() {
    let log: Log = Arc::default();
    let ops = StaticToolset::new("ops").with_tool(Arc::new(
        recording_tool("deploy", &log).with_approval_required(true),
    ));
    let inner = tool_proxy_toolset(vec![ops]);
    let outer = tool_proxy_toolset(vec![inner]);
    let registry = ToolRegistry::new().with_toolset(&outer);
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "c",
                "call_tool",
                json!({"name": "call_tool", "arguments": {"name": "deploy", "arguments": {"n": 7}}}),
            ),
        )
        .await;
    assert_eq!(part.kind, ToolReturnKind::ApprovalRequired);
    // tool-runtime.md: "An approval or deferral inside the proxy becomes a
    // request of call_tool itself, with the wrapped tool's name and
    // arguments as inner_tool / inner_arguments."
    let metadata = &part.metadata;
    assert_eq!(metadata["inner_tool"], json!("deploy"));
    assert_eq!(
        metadata["inner_arguments"],
        json!({"n": 7}),
        "a reviewer is shown tool `deploy` with arguments {}",
        metadata["inner_arguments"]
    );
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
// 16. Internal-retry bookkeeping through the proxy reports call_tool's one
//     attempt, not the wrapped tool's retries
// ---------------------------------------------------------------------------

#[tokio::test]
async fn proxied_execution_retry_metadata_counts_the_wrapped_attempts() {
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
    let direct = ToolRegistry::new().with_tool(flaky.clone());
    let part = direct
        .execute_call(ToolContext::default(), &call("c", "flaky", json!({})))
        .await;
    let direct_retry = part.metadata["retry"].clone();
    assert_eq!(direct_retry["attempts"], json!(4));

    runs.store(0, Ordering::SeqCst);
    let proxied = ToolRegistry::new()
        .with_toolset(&tool_proxy_toolset(vec![
            StaticToolset::new("inner").with_tool(flaky)
        ]));
    let part = proxied
        .execute_call(
            ToolContext::default(),
            &call("c", "call_tool", json!({"name": "flaky", "arguments": {}})),
        )
        .await;
    assert_eq!(part.kind, ToolReturnKind::ExecutionFailed);
    assert_eq!(runs.load(Ordering::SeqCst), 4);
    // tool-runtime.md: "Internal retries record {class: "execution",
    // attempts, max_retries, exhausted}".
    assert_eq!(
        part.metadata["retry"], direct_retry,
        "the wrapped tool ran 4 times; the record says {}",
        part.metadata["retry"]
    );
}

// ---------------------------------------------------------------------------
// 17. Two wrapped toolsets sharing a name: the proxy's registry drops the
//     first one's tools (re-insert = refresh) while its search still lists
//     them
// ---------------------------------------------------------------------------

#[tokio::test]
async fn proxy_can_call_every_tool_its_search_lists() {
    let proxy = tool_proxy_toolset(vec![
        StaticToolset::new("tools").with_tool(described_echo("fetch_weather")),
        StaticToolset::new("tools").with_tool(described_echo("fetch_news")),
    ]);
    let registry = ToolRegistry::new().with_toolset(&proxy);
    let found = registry
        .execute_call(
            ambient(AgentContext::default()),
            &call("s", "search_tools", json!({"query": "fetch weather"})),
        )
        .await;
    let listed: Vec<String> = found.content["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_string())
        .collect();
    assert!(listed.contains(&"fetch_weather".to_string()), "{listed:?}");
    let part = registry
        .execute_call(
            ambient(AgentContext::default()),
            &call(
                "c",
                "call_tool",
                json!({"name": "fetch_weather", "arguments": {}}),
            ),
        )
        .await;
    assert!(
        part.is_success(),
        "search_tools offered fetch_weather but call_tool says: {}",
        part.content
    );
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

// ---------------------------------------------------------------------------
// 19. extend() replaces a same-named toolset's lifecycle but keeps its old
//     tools exposed (run options and AgentBuilder::tool_registry use it)
// ---------------------------------------------------------------------------

#[tokio::test]
async fn extended_registry_never_exposes_tools_whose_toolset_was_not_entered() {
    let old = CountingLifecycle::new("mcp", vec![described_echo("old_remote")]);
    let new = CountingLifecycle::new("mcp", vec![described_echo("new_remote")]);
    let mut registry = ToolRegistry::new().with_toolset(&old);
    registry.extend(&ToolRegistry::new().with_toolset(&new));
    let mut context = AgentContext::default();
    registry.enter_toolsets(&mut context).await;
    let names: Vec<String> = registry
        .definitions_for_context(&context)
        .into_iter()
        .map(|definition| definition.name)
        .collect();
    // tools.md: "Set enter_before_prepare when a resource-backed toolset
    // needs setup before inventory is read" -- old_remote is exposed but
    // its toolset's setup never ran (tool-runtime.md: re-inserting a
    // toolset drops its old tools; extend does neither consistently).
    assert!(
        !names.contains(&"old_remote".to_string()) || old.enters.load(Ordering::SeqCst) == 1,
        "exposed {names:?}, but the toolset of old_remote was never entered"
    );
}

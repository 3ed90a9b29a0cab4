//! Tool scheduling in agent runs: parallel by default, model-order
//! sequential fallbacks with their reasons, and returns applied to history
//! in model call order. Deterministic: barriers, notifies and recorded
//! order, never sleeps.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use starweaver::agent::{AgentRunStatus, AgentRuntimePolicy, AgentStream, ToolExecutionPolicy};
use starweaver::context::{TaskContextHandle, CONTEXT_TASKS_CAPABILITY};
use starweaver::model::{FunctionModel, ModelMessage, ModelResponse, RequestPart, ToolCallPart};
use starweaver::tools::{FunctionTool, ToolDependencyRequirements};
use starweaver::{
    string_tool, tool_proxy_toolset, AgentBuilder, AgentStreamEvent, StaticToolset, TestModel,
    ToolContext, ToolResult,
};
use tokio::sync::{Barrier, Notify};

use crate::common::{call, echo, echo_tool, open_schema, record_label, responses_so_far};

type Log = Arc<Mutex<Vec<String>>>;

/// A tool that records `start:<name>`, yields once (so a concurrent
/// sibling would interleave), then records `end:<name>`.
fn recording_tool(name: &str, log: &Log) -> FunctionTool {
    let tool_name = name.to_string();
    let log = log.clone();
    string_tool(
        name,
        Some(format!("Recording tool {name}")),
        open_schema(),
        move |_ctx: ToolContext, args: Value| {
            let log = log.clone();
            let tool_name = tool_name.clone();
            async move {
                log.lock().unwrap().push(format!("start:{tool_name}"));
                tokio::task::yield_now().await;
                log.lock().unwrap().push(format!("end:{tool_name}"));
                Ok(ToolResult::new(json!({"tool": tool_name, "args": args})))
            }
        },
    )
}

fn two_calls(first: &str, second: &str) -> TestModel {
    TestModel::scripted(vec![
        ModelResponse::tool_calls([
            ToolCallPart::new("c1", first, json!({"n": 1})),
            ToolCallPart::new("c2", second, json!({"n": 2})),
        ]),
        ModelResponse::text("done"),
    ])
}

/// (mode, reason, calls) of every ToolBatch record.
fn batches(stream: &AgentStream) -> Vec<(String, Option<String>, usize)> {
    stream
        .events()
        .iter()
        .filter_map(|record| match &record.event {
            AgentStreamEvent::ToolBatch {
                mode,
                reason,
                calls,
            } => Some((mode.clone(), reason.clone(), *calls)),
            _ => None,
        })
        .collect()
}

fn recorded(log: &Log) -> Vec<String> {
    log.lock().unwrap().clone()
}

const SEQUENTIAL_ORDER: [&str; 4] = ["start:a", "end:a", "start:b", "end:b"];

/// Asserts the batch was sequential for `reason`, tools ran in model order
/// (start of the second after the end of the first) and the run finished.
fn assert_sequential(stream: &AgentStream, log: &Log, reason: &str) {
    assert_eq!(
        batches(stream),
        vec![("sequential".to_string(), Some(reason.to_string()), 2)]
    );
    assert_eq!(recorded(log), SEQUENTIAL_ORDER);
    assert_eq!(stream.result().status, AgentRunStatus::Completed);
    assert_eq!(stream.result().output, "done");
}

#[tokio::test]
async fn independent_calls_run_in_parallel() {
    let barrier = Arc::new(Barrier::new(2));
    let log: Log = Arc::default();
    let waiting_tool = |name: &str| {
        let barrier = barrier.clone();
        let log = log.clone();
        let tool_name = name.to_string();
        string_tool(
            name,
            Some("Waits for its sibling".to_string()),
            open_schema(),
            move |_ctx: ToolContext, _args: Value| {
                let barrier = barrier.clone();
                let log = log.clone();
                let tool_name = tool_name.clone();
                async move {
                    log.lock().unwrap().push(format!("start:{tool_name}"));
                    // Only returns once both calls are in flight at once.
                    barrier.wait().await;
                    log.lock().unwrap().push(format!("end:{tool_name}"));
                    Ok(ToolResult::new(json!({"tool": tool_name})))
                }
            },
        )
    };
    let agent = AgentBuilder::new(Arc::new(two_calls("a", "b")))
        .tool(Arc::new(waiting_tool("a")))
        .tool(Arc::new(waiting_tool("b")))
        .build();

    let stream = tokio::time::timeout(Duration::from_secs(5), agent.run_stream("go"))
        .await
        .expect("parallel tools must not deadlock on the barrier")
        .unwrap();

    assert_eq!(batches(&stream), vec![("parallel".to_string(), None, 2)]);
    assert_eq!(stream.result().status, AgentRunStatus::Completed);
    assert_eq!(stream.result().output, "done");
    let log = recorded(&log);
    assert_eq!(&log[..2], ["start:a", "start:b"]);
    assert_eq!(log.len(), 4);
}

#[tokio::test]
async fn parallel_batch_interleaves_yielding_tools() {
    // Control case for the sequential tests below: the same recording
    // tools interleave when nothing forces sequential execution.
    let log: Log = Arc::default();
    let agent = AgentBuilder::new(Arc::new(two_calls("a", "b")))
        .tool(Arc::new(recording_tool("a", &log)))
        .tool(Arc::new(recording_tool("b", &log)))
        .build();
    let stream = agent.run_stream("go").await.unwrap();
    assert_eq!(batches(&stream), vec![("parallel".to_string(), None, 2)]);
    // Both calls started before either finished (the order in which the
    // two are polled is not part of the contract).
    let order = recorded(&log);
    let mut starts: Vec<&str> = order[..2].iter().map(String::as_str).collect();
    let mut ends: Vec<&str> = order[2..].iter().map(String::as_str).collect();
    starts.sort_unstable();
    ends.sort_unstable();
    assert_eq!(starts, ["start:a", "start:b"], "{order:?}");
    assert_eq!(ends, ["end:a", "end:b"], "{order:?}");
}

#[tokio::test]
async fn sequential_policy_forces_model_order() {
    let log: Log = Arc::default();
    let agent = AgentBuilder::new(Arc::new(two_calls("a", "b")))
        .tool(Arc::new(recording_tool("a", &log)))
        .tool(Arc::new(recording_tool("b", &log)))
        .runtime_policy(AgentRuntimePolicy {
            tool_execution: ToolExecutionPolicy::Sequential,
            ..Default::default()
        })
        .build();
    let stream = agent.run_stream("go").await.unwrap();
    assert_sequential(&stream, &log, "policy");
}

#[tokio::test]
async fn sequential_tool_forces_model_order() {
    let log: Log = Arc::default();
    let agent = AgentBuilder::new(Arc::new(two_calls("a", "b")))
        .tool(Arc::new(recording_tool("a", &log)))
        .tool(Arc::new(recording_tool("b", &log).with_sequential(true)))
        .build();
    let stream = agent.run_stream("go").await.unwrap();
    assert_sequential(&stream, &log, "sequential_tool");
}

#[tokio::test]
async fn repeated_tool_forces_model_order() {
    let log: Log = Arc::default();
    let tool_name_log = log.clone();
    // One tool called twice; it records its `n` argument.
    let counter = string_tool(
        "count",
        Some("Counts".to_string()),
        json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
        move |_ctx: ToolContext, args: Value| {
            let log = tool_name_log.clone();
            async move {
                let n = args["n"].as_i64().unwrap_or_default();
                let name = if n == 1 { "a" } else { "b" };
                log.lock().unwrap().push(format!("start:{name}"));
                tokio::task::yield_now().await;
                log.lock().unwrap().push(format!("end:{name}"));
                Ok(ToolResult::new(json!({"n": n})))
            }
        },
    );
    let agent = AgentBuilder::new(Arc::new(two_calls("count", "count")))
        .tool(Arc::new(counter))
        .build();
    let stream = agent.run_stream("go").await.unwrap();
    assert_sequential(&stream, &log, "repeated_tool");
}

#[tokio::test]
async fn mixed_dependency_profiles_force_model_order() {
    let log: Log = Arc::default();
    let agent = AgentBuilder::new(Arc::new(two_calls("a", "b")))
        .tool(Arc::new(recording_tool("a", &log)))
        .tool(Arc::new(recording_tool("b", &log).with_dependencies(
            ToolDependencyRequirements::filtered(Vec::<String>::new()),
        )))
        .build();
    let stream = agent.run_stream("go").await.unwrap();
    assert_sequential(&stream, &log, "mixed_dependency_profiles");
}

#[tokio::test]
async fn two_filtered_tools_without_mutable_context_run_in_parallel() {
    let log: Log = Arc::default();
    let filtered = || ToolDependencyRequirements::filtered(Vec::<String>::new());
    let agent = AgentBuilder::new(Arc::new(two_calls("a", "b")))
        .tool(Arc::new(
            recording_tool("a", &log).with_dependencies(filtered()),
        ))
        .tool(Arc::new(
            recording_tool("b", &log).with_dependencies(filtered()),
        ))
        .build();
    let stream = agent.run_stream("go").await.unwrap();
    assert_eq!(batches(&stream), vec![("parallel".to_string(), None, 2)]);
}

#[tokio::test]
async fn mutable_context_capability_forces_model_order() {
    let log: Log = Arc::default();
    let handle_seen = Arc::new(Mutex::new(None));
    let a_log = log.clone();
    let seen = handle_seen.clone();
    let tasks_tool = string_tool(
        "a",
        Some("Edits the task list".to_string()),
        open_schema(),
        move |ctx: ToolContext, _args: Value| {
            let log = a_log.clone();
            let seen = seen.clone();
            async move {
                log.lock().unwrap().push("start:a".to_string());
                *seen.lock().unwrap() = Some(ctx.dependency::<TaskContextHandle>().is_some());
                tokio::task::yield_now().await;
                log.lock().unwrap().push("end:a".to_string());
                Ok(ToolResult::new(json!({})))
            }
        },
    )
    .with_dependencies(
        ToolDependencyRequirements::filtered(Vec::<String>::new())
            .with_context_capability(CONTEXT_TASKS_CAPABILITY),
    );
    let agent = AgentBuilder::new(Arc::new(two_calls("a", "b")))
        .tool(Arc::new(tasks_tool))
        .tool(Arc::new(recording_tool("b", &log).with_dependencies(
            ToolDependencyRequirements::filtered(Vec::<String>::new()),
        )))
        .build();
    let stream = agent.run_stream("go").await.unwrap();
    assert_sequential(&stream, &log, "mutable_context");
    assert_eq!(*handle_seen.lock().unwrap(), Some(true));
}

#[tokio::test]
async fn returns_follow_model_order_when_the_second_call_finishes_first() {
    let notify = Arc::new(Notify::new());
    let log: Log = Arc::default();

    let first_notify = notify.clone();
    let first_log = log.clone();
    let first = string_tool(
        "first",
        Some("Waits for second".to_string()),
        open_schema(),
        move |_ctx: ToolContext, _args: Value| {
            let notify = first_notify.clone();
            let log = first_log.clone();
            async move {
                notify.notified().await;
                log.lock().unwrap().push("end:first".to_string());
                Ok(ToolResult::new(json!({"from": "first"})))
            }
        },
    );
    let second_notify = notify.clone();
    let second_log = log.clone();
    let second = string_tool(
        "second",
        Some("Releases first".to_string()),
        open_schema(),
        move |_ctx: ToolContext, _args: Value| {
            let notify = second_notify.clone();
            let log = second_log.clone();
            async move {
                log.lock().unwrap().push("end:second".to_string());
                notify.notify_one();
                Ok(ToolResult::new(json!({"from": "second"})))
            }
        },
    );
    let model = Arc::new(two_calls("first", "second"));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(first))
        .tool(Arc::new(second))
        .build();

    let result = tokio::time::timeout(Duration::from_secs(5), agent.run("go"))
        .await
        .expect("first tool must be released by second")
        .unwrap();

    // The second call really finished first.
    assert_eq!(recorded(&log), ["end:second", "end:first"]);

    // History: user prompt, response with calls, request with returns in
    // model order, final response.
    let calls_at = result
        .messages
        .iter()
        .position(|message| {
            matches!(message, ModelMessage::Response(response) if response.calls().count() == 2)
        })
        .expect("response with calls");
    let ModelMessage::Request(request) = &result.messages[calls_at + 1] else {
        panic!("expected a request after the tool-call response");
    };
    let returns: Vec<(&str, &str, &Value)> = request
        .parts
        .iter()
        .map(|part| match part {
            RequestPart::ToolReturn(part) => (
                part.tool_call_id.as_str(),
                part.tool_name.as_str(),
                &part.content,
            ),
            other => panic!("unexpected part {other:?}"),
        })
        .collect();
    assert_eq!(
        returns,
        vec![
            ("c1", "first", &json!({"from": "first"})),
            ("c2", "second", &json!({"from": "second"})),
        ]
    );
    // The model saw the same order.
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[1].messages.last(),
        Some(&ModelMessage::Request(request.clone()))
    );
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: scheduling looked only at call_tool, so a proxied sequential tool ran concurrently.
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
            .with_dependencies(
                starweaver::tools::ToolDependencyRequirements::filtered(Vec::<String>::new()),
            ),
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

// Regression: a batch with `call_tool` ran sequentially for an undocumented reason.
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
        .find(|label| label.starts_with("batch:"))
        .unwrap();
    // docs/agent-runtime.md, Scheduling: a batch with the proxy's
    // `call_tool` runs sequentially, for the documented reason
    // `delegating_tool` (the wrapped tool's needs are unknown up front).
    assert_eq!(batch, "batch:sequential:delegating_tool");
}

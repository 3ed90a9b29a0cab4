//! The event stream of a run: record order and sequence numbers, tool
//! returns as calls finish, waiting and resumed runs, custom records.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::stream::{self, StreamExt};
use serde_json::{json, Value};
use starweaver::agent::{AgentHitlUserInteraction, AgentStreamRecord};
use starweaver::model::{
    FinishReason, FunctionModel, Model, ModelError, ModelMessage, ModelRequestParameters,
    ModelResponse, ModelResponseStream, ModelStreamEvent, ToolCallPart,
};
use starweaver::tools::{BoxFuture, DynTool};
use starweaver::{
    string_tool, AgentBuilder, AgentContextHandle, AgentRunOptions, AgentStreamEvent, DynToolset,
    TestModel, ToolContext, ToolError, ToolResult, ToolUserInputPreprocessResult,
};

use crate::common::{
    call, calls, counter, deploy_agent, deploy_script, echo, open_schema, record_label,
    recording_tool, responses_so_far, CountingLifecycle, Log,
};

use super::typed_echo;

#[tokio::test]
async fn waiting_run_is_reported_in_the_stream() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted(deploy_script("deployed")));
    let mut session = deploy_agent(&model, &log).session();
    let stream = session.run_stream("deploy").await.unwrap();
    assert!(stream.result().is_waiting());
    let waiting: Vec<_> = stream
        .events()
        .iter()
        .filter_map(|record| match &record.event {
            AgentStreamEvent::Waiting { requests } => Some(requests.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(waiting, vec![stream.result().pending.clone()]);
    assert!(!stream
        .events()
        .iter()
        .any(|record| matches!(record.event, AgentStreamEvent::RunCompleted { .. })));
    assert_eq!(
        waiting[0][0].metadata["request"],
        json!({"kind": "tool_approval", "tool": "deploy"})
    );
}

#[tokio::test]
async fn streamed_run_reports_events_in_order() {
    let runs = counter();
    let model = Arc::new(TestModel::scripted(vec![
        ModelResponse::tool_calls([
            ToolCallPart::new("c1", "echo", json!({"value": "a"})),
            ToolCallPart::new("c2", "echo", json!({"value": "b"})),
        ]),
        ModelResponse::text("all done"),
    ]));
    let agent = AgentBuilder::new(model)
        .tool(Arc::new(typed_echo(&runs)))
        .build();
    let stream = agent.run_stream("go").await.unwrap();
    let records = stream.events();
    for (index, record) in records.iter().enumerate() {
        assert_eq!(record.sequence, index as u64);
        assert_eq!(record.run_id, stream.result().run_id);
    }
    let kinds: Vec<String> = records
        .iter()
        .map(|record| match &record.event {
            AgentStreamEvent::RunStarted { .. } => "run_started".to_string(),
            AgentStreamEvent::ModelRequest { step, tools } => {
                format!("request:{step}:{}", tools.join(","))
            }
            AgentStreamEvent::TextDelta { delta } => format!("text:{delta}"),
            AgentStreamEvent::ToolBatch { mode, calls, .. } => format!("batch:{mode}:{calls}"),
            AgentStreamEvent::ToolCall { call } => format!("call:{}", call.id),
            AgentStreamEvent::ToolReturn { part } => format!("return:{}", part.tool_call_id),
            AgentStreamEvent::Custom { event } => format!("custom:{}", event.kind),
            AgentStreamEvent::Waiting { .. } => "waiting".to_string(),
            AgentStreamEvent::RunCompleted { output, .. } => format!("completed:{output}"),
            // The enum is non-exhaustive: kinds added later show here.
            other => format!("other:{other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "run_started",
            "request:1:echo",
            // Same tool twice: the repeated_tool fallback.
            "batch:sequential:2",
            "call:c1",
            "call:c2",
            "return:c1",
            "return:c2",
            "request:2:echo",
            "text:all done",
            "completed:all done",
        ]
    );
}

#[tokio::test]
async fn startup_events_reach_the_stream_as_custom_records() {
    let agent = AgentBuilder::new(Arc::new(TestModel::with_text("ok")))
        .startup_event(starweaver::context::ContextEvent::new(
            "skills_scanned",
            json!({"skills": 2, "diagnostics": []}),
        ))
        .build();
    let stream = agent.run_stream("hello").await.unwrap();
    assert!(stream.events().iter().any(|record| matches!(
        &record.event,
        AgentStreamEvent::Custom { event } if event.kind == "skills_scanned"
    )));
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: stream record sequence numbers restarted when a run resumed.
#[tokio::test]
async fn resumed_run_continues_its_record_sequence() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted([
        calls(&[("d1", "deploy", json!({"n": 1}))]),
        ModelResponse::text("done"),
    ]));
    let mut session = AgentBuilder::new(model)
        .tool(Arc::new(
            recording_tool("deploy", &log).with_approval_required(true),
        ))
        .build()
        .session();
    let records: Arc<Mutex<Vec<(String, u64)>>> = Arc::default();
    let sink_records = records.clone();
    let mut sink = move |record: &starweaver::agent::AgentStreamRecord| {
        sink_records
            .lock()
            .unwrap()
            .push((record.run_id.to_string(), record.sequence));
    };
    session
        .run_with_events("go", starweaver::AgentRunOptions::new(), &mut sink)
        .await
        .unwrap();
    session
        .resume_with_events(AgentHitlUserInteraction::approved("d1"), &mut sink)
        .await
        .unwrap();
    let records = records.lock().unwrap().clone();
    let mut seen = std::collections::HashSet::new();
    let repeated: Vec<_> = records
        .iter()
        .filter(|record| !seen.insert((*record).clone()))
        .collect();
    assert!(
        repeated.is_empty(),
        "records of one run share (run_id, sequence): {repeated:?}"
    );
}

// Regression: stream sequence numbers repeated after rejected HITL input.
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

/// A model that streams exactly the given events (and answers plain
/// requests with text, which streamed runs never use).
struct ScriptedStream {
    events: Vec<Result<ModelStreamEvent, ModelError>>,
}

impl Model for ScriptedStream {
    fn name(&self) -> &str {
        "scripted-stream"
    }

    fn request<'a>(
        &'a self,
        _messages: &'a [ModelMessage],
        _parameters: &'a ModelRequestParameters,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        Box::pin(async { Ok(ModelResponse::text("not streamed")) })
    }

    fn request_stream<'a>(
        &'a self,
        _messages: &'a [ModelMessage],
        _parameters: &'a ModelRequestParameters,
    ) -> BoxFuture<'a, Result<ModelResponseStream, ModelError>> {
        let events = self.events.clone();
        Box::pin(async move { Ok(stream::iter(events).boxed()) })
    }
}

// Regression: a model stream that ended without `Finished` was taken as complete.
#[tokio::test]
async fn stream_without_finished_is_not_taken_as_a_complete_answer() {
    // The connection dropped after one delta: no `Finished` ("always last").
    let model = Arc::new(ScriptedStream {
        events: vec![Ok(ModelStreamEvent::TextDelta("The answer is".to_string()))],
    });
    let agent = AgentBuilder::new(model).build();
    match agent.run_stream("question").await {
        // Reporting the truncated stream as a model error is one fix.
        Err(_) => {}
        // Keeping it is another, but then the response must not claim the
        // model stopped to call tools when it called none.
        Ok(stream) => {
            let Some(ModelMessage::Response(response)) = stream.result().messages.last() else {
                panic!("no response stored");
            };
            assert_ne!(
                response.finish_reason,
                Some(FinishReason::ToolCalls),
                "a text-only, truncated stream was stored as {response:?} and the run \
                 completed with output {:?}",
                stream.result().output
            );
        }
    }
}

// Regression: tool return records waited for the whole batch.
#[tokio::test]
async fn tool_return_records_are_delivered_as_calls_finish() {
    let fast_return_seen = Arc::new(tokio::sync::Notify::new());
    let fast = echo("fast", "Answers at once");
    let slow = {
        let seen = fast_return_seen.clone();
        string_tool(
            "slow",
            Some("Answers when the host has seen `fast` return".to_string()),
            open_schema(),
            move |_ctx: ToolContext, _args: Value| {
                let seen = seen.clone();
                async move {
                    let saw = tokio::time::timeout(Duration::from_millis(500), seen.notified())
                        .await
                        .is_ok();
                    Ok(ToolResult::new(json!({"host_saw_fast_return": saw})))
                }
            },
        )
    };
    let model = Arc::new(TestModel::scripted(vec![
        ModelResponse::tool_calls([call("f", "fast", json!({})), call("s", "slow", json!({}))]),
        ModelResponse::text("done"),
    ]));
    let mut session = AgentBuilder::new(model)
        .tool(fast)
        .tool(Arc::new(slow))
        .build()
        .session();
    let seen = fast_return_seen.clone();
    let mut sink = move |record: &AgentStreamRecord| {
        if matches!(&record.event, AgentStreamEvent::ToolReturn { part } if part.tool_name == "fast")
        {
            seen.notify_one();
        }
    };
    let result = session
        .run_with_events("go", AgentRunOptions::new(), &mut sink)
        .await
        .unwrap();
    let slow_return = crate::common::tool_returns(&result.messages)
        .into_iter()
        .find(|part| part.tool_name == "slow")
        .unwrap();
    // agent-runtime.md: `run_with_events` hands "each record to a
    // callback as it happens". `fast` returned at once, but its record
    // is held until `slow` ends.
    assert_eq!(
        slow_return.content["host_saw_fast_return"],
        json!(true),
        "the `fast` ToolReturn record was not delivered while `slow` ran"
    );
}

// Regression: RunCompleted was not the last record.
#[tokio::test]
async fn run_completed_is_the_last_record() {
    let model = Arc::new(TestModel::with_text("done"));
    let toolset: DynToolset = Arc::new(CountingLifecycle::new(
        "managed",
        vec![echo("managed_echo", "Echo")],
    ));
    let agent = AgentBuilder::new(model).toolset(&toolset).build();
    let stream = agent.run_stream("go").await.unwrap();
    let kinds: Vec<String> = stream
        .events()
        .iter()
        .map(|record| match &record.event {
            AgentStreamEvent::Custom { event } => format!("custom:{}", event.kind),
            other => format!("{other:?}")
                .split([' ', '{'])
                .next()
                .unwrap()
                .to_string(),
        })
        .collect();
    assert_eq!(
        kinds.last().map(String::as_str),
        Some("RunCompleted"),
        "a host that stops listening at RunCompleted misses: {kinds:?}"
    );
}

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

// Regression: context events of resumed calls came after every resumed call, not with each return.
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
    let position = |wanted: &str| labels.iter().position(|label| label == wanted).unwrap();
    // docs/agent-runtime.md, Streams: "a tool's return (and the context
    // events it published) is reported when that call finishes, not when
    // its batch does."
    assert!(
        position("event:announced:alpha") < position("return:beta"),
        "alpha's event was held back until beta had run: {labels:?}"
    );
}

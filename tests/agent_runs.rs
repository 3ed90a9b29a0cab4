//! Agent runs with scripted models: retry prompts and budgets, endless
//! loops, unavailable tools, the automatic test model, run options,
//! sessions, context access and usage.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use starweaver::model::{
    ModelError, ModelMessage, ModelResponse, RecordedRequest, RequestPart, ResponsePart,
    RetryPromptPart, ToolCallPart, ToolReturnPart,
};
use starweaver::{
    string_tool, typed_tool, AgentBuilder, AgentContext, AgentContextHandle, AgentError,
    AgentRunOptions, AgentRunStatus, AgentRuntimePolicy, AgentStreamEvent, FunctionModel,
    FunctionTool, JsonMap, ModelSettings, TestModel, ToolAvailabilityPolicy, ToolConfig,
    ToolContext, ToolError, ToolResult, TOOLS_UNAVAILABLE_EVENT_KIND,
};

mod common;
use common::{
    always_retry, assert_sample_valid, assert_valid, call_response, counter, last_request_parts,
    open_schema, tool_returns, EchoArgs,
};

/// Typed `echo` tool counting its executions.
fn typed_echo(runs: &Arc<AtomicU32>) -> starweaver::TypedFunctionTool<EchoArgs> {
    let runs = runs.clone();
    typed_tool::<EchoArgs, _, _>(
        "echo",
        Some("Echo input".to_string()),
        move |_ctx: ToolContext, args: EchoArgs| {
            let runs = runs.clone();
            async move {
                runs.fetch_add(1, Ordering::SeqCst);
                Ok(ToolResult::new(json!({"value": args.value})))
            }
        },
    )
}

fn retry_prompts(request: &RecordedRequest) -> Vec<RetryPromptPart> {
    last_request_parts(request)
        .into_iter()
        .filter_map(|part| match part {
            RequestPart::RetryPrompt(part) => Some(part),
            _ => None,
        })
        .collect()
}

fn tool_names(request: &RecordedRequest) -> Vec<String> {
    request
        .parameters
        .tools
        .iter()
        .map(|tool| tool.name.clone())
        .collect()
}

// ---------------------------------------------------------------------
// Retry prompts
// ---------------------------------------------------------------------

#[tokio::test]
async fn model_retry_becomes_a_retry_prompt_then_the_run_completes() {
    let retries_seen = Arc::new(Mutex::new(Vec::new()));
    let seen = retries_seen.clone();
    let flaky = string_tool(
        "flaky",
        Some("Fails once".to_string()),
        open_schema(),
        move |ctx: ToolContext, _args: Value| {
            let seen = seen.clone();
            async move {
                let mut seen = seen.lock().unwrap();
                seen.push(ctx.retry());
                if seen.len() == 1 {
                    Err(ToolError::model_retry("use a positive number"))
                } else {
                    Ok(ToolResult::new(json!({"ok": true})))
                }
            }
        },
    );
    let model = Arc::new(TestModel::scripted(vec![
        call_response("c1", "flaky", json!({})),
        call_response("c2", "flaky", json!({})),
        ModelResponse::text("done"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(flaky))
        .build();

    let result = agent.run("go").await.unwrap();
    assert_eq!(result.status, AgentRunStatus::Completed);
    assert_eq!(result.output, "done");

    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    let prompts = retry_prompts(&requests[1]);
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].tool_call_id.as_deref(), Some("c1"));
    assert_eq!(prompts[0].tool_name.as_deref(), Some("flaky"));
    assert!(
        prompts[0].content.contains("use a positive number"),
        "{}",
        prompts[0].content
    );
    // The second call succeeded and went back as a plain return.
    let returns: Vec<ToolReturnPart> = last_request_parts(&requests[2])
        .into_iter()
        .filter_map(|part| match part {
            RequestPart::ToolReturn(part) => Some(part),
            _ => None,
        })
        .collect();
    assert_eq!(returns.len(), 1);
    assert_eq!(returns[0].tool_call_id, "c2");
    assert_eq!(returns[0].content, json!({"ok": true}));
    // The retry counter reached the tool through ToolContext.
    assert_eq!(*retries_seen.lock().unwrap(), vec![0, 1]);
}

#[tokio::test]
async fn invalid_typed_arguments_get_a_retry_prompt() {
    let runs = counter();
    let model = Arc::new(TestModel::scripted(vec![
        call_response("c1", "echo", json!({"wrong": 1})),
        ModelResponse::text("done"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(typed_echo(&runs)))
        .build();

    let result = agent.run("go").await.unwrap();
    assert_eq!(result.output, "done");
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let prompts = retry_prompts(&model.requests()[1]);
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].tool_call_id.as_deref(), Some("c1"));
    assert_eq!(prompts[0].tool_name.as_deref(), Some("echo"));
    let content = &prompts[0].content;
    assert!(content.contains("echo"), "{content}");
    assert!(content.contains("value"), "{content}");
}

#[tokio::test]
async fn unknown_tool_gets_a_did_you_mean_retry_prompt() {
    let runs = counter();
    let model = Arc::new(TestModel::scripted(vec![
        call_response("c1", "ech", json!({"value": "x"})),
        ModelResponse::text("done"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(typed_echo(&runs)))
        .build();

    let result = agent.run("go").await.unwrap();
    assert_eq!(result.output, "done");
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let prompts = retry_prompts(&model.requests()[1]);
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].tool_call_id.as_deref(), Some("c1"));
    assert_eq!(prompts[0].tool_name.as_deref(), Some("ech"));
    let content = &prompts[0].content;
    assert!(content.contains("unknown tool `ech`"), "{content}");
    assert!(content.contains("Did you mean `echo`?"), "{content}");
}

#[tokio::test]
async fn malformed_json_arguments_get_a_retry_prompt() {
    let runs = counter();
    let model = Arc::new(TestModel::scripted(vec![
        ModelResponse::tool_calls([ToolCallPart::new("c1", "echo", "{oops")]),
        ModelResponse::text("done"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(typed_echo(&runs)))
        .build();

    let result = agent.run("go").await.unwrap();
    assert_eq!(result.output, "done");
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let prompts = retry_prompts(&model.requests()[1]);
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].tool_call_id.as_deref(), Some("c1"));
    let content = &prompts[0].content;
    assert!(content.contains("echo"), "{content}");
    assert!(content.contains("JSON"), "{content}");
}

// ---------------------------------------------------------------------
// Retry budgets
// ---------------------------------------------------------------------

/// A model that always calls `name`, with fresh call ids.
fn looping_model(name: &'static str, arguments: Value) -> FunctionModel {
    FunctionModel::new(move |messages, _parameters| {
        Ok(call_response(
            &format!("c{}", messages.len()),
            name,
            arguments.clone(),
        ))
    })
}

#[tokio::test]
async fn tool_retry_budget_exhaustion_fails_the_run() {
    let runs = counter();
    let model = Arc::new(looping_model("stubborn", json!({})));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(always_retry(&runs).with_max_retries(1)))
        .build();

    let error = agent.run("go").await.unwrap_err();
    match &error {
        AgentError::ToolRetriesExhausted {
            tool,
            max_retries,
            message,
        } => {
            assert_eq!(tool, "stubborn");
            assert_eq!(*max_retries, 1);
            assert!(message.contains("still wrong"), "{message}");
        }
        other => panic!("expected ToolRetriesExhausted, got {other:?}"),
    }
    assert!(error.to_string().contains("stubborn"), "{error}");
    // One retry was allowed: two calls, two model requests.
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test]
async fn agent_level_retry_budget_of_zero_fails_on_first_retry() {
    let runs = counter();
    let model = Arc::new(looping_model("stubborn", json!({})));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(always_retry(&runs)))
        .runtime_policy(AgentRuntimePolicy {
            max_retries: Some(0),
            ..Default::default()
        })
        .build();

    let error = agent.run("go").await.unwrap_err();
    assert!(
        matches!(
            &error,
            AgentError::ToolRetriesExhausted { tool, max_retries: 0, .. } if tool == "stubborn"
        ),
        "{error:?}"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(model.requests().len(), 1);
}

#[tokio::test]
async fn tool_level_budget_wins_over_agent_level_budget() {
    let runs = counter();
    let model = Arc::new(looping_model("stubborn", json!({})));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(always_retry(&runs).with_max_retries(2)))
        .runtime_policy(AgentRuntimePolicy {
            max_retries: Some(0),
            ..Default::default()
        })
        .build();

    let error = agent.run("go").await.unwrap_err();
    assert!(
        matches!(
            &error,
            AgentError::ToolRetriesExhausted { max_retries: 2, .. }
        ),
        "{error:?}"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn unknown_tool_loop_exhausts_the_retry_budget_cleanly() {
    let runs = counter();
    let model = Arc::new(looping_model("missing_tool", json!({})));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(typed_echo(&runs)))
        .build();
    let error = agent.run("go").await.unwrap_err();
    assert!(
        matches!(
            &error,
            AgentError::ToolRetriesExhausted { tool, max_retries: 3, .. } if tool == "missing_tool"
        ),
        "{error:?}"
    );
    assert_eq!(model.requests().len(), 4);
}

#[tokio::test]
async fn endless_tool_loop_stops_at_max_steps() {
    let runs = counter();
    let model = Arc::new(looping_model("echo", json!({"value": "again"})));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(typed_echo(&runs)))
        .max_steps(5)
        .build();

    let error = agent.run("loop").await.unwrap_err();
    assert!(
        matches!(error, AgentError::MaxStepsExceeded { max_steps: 5 }),
        "{error:?}"
    );
    assert!(error.to_string().contains('5'), "{error}");
    assert_eq!(model.requests().len(), 5);
    assert_eq!(runs.load(Ordering::SeqCst), 5);
}

// ---------------------------------------------------------------------
// Tool availability
// ---------------------------------------------------------------------

fn gated_tool() -> FunctionTool {
    string_tool(
        "gated",
        Some("Never available".to_string()),
        open_schema(),
        |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
    )
    .with_availability(|_context| false)
}

#[tokio::test]
async fn fail_run_policy_fails_before_the_model_is_called() {
    let model = Arc::new(TestModel::with_text("never"));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(gated_tool()))
        .tool_config(ToolConfig {
            unavailable_tool_policy: ToolAvailabilityPolicy::FailRun,
        })
        .build();

    let mut context = AgentContext::default();
    let error = agent
        .run_with_context("go", &mut context)
        .await
        .unwrap_err();
    match &error {
        AgentError::ToolsUnavailable(unavailable) => {
            assert_eq!(unavailable.tools, vec!["gated".to_string()]);
        }
        other => panic!("expected ToolsUnavailable, got {other:?}"),
    }
    assert!(model.requests().is_empty());
    let events: Vec<_> = context
        .events
        .of_kind(TOOLS_UNAVAILABLE_EVENT_KIND)
        .collect();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].payload["tools"], json!(["gated"]));
}

#[tokio::test]
async fn default_policy_skips_unavailable_tools_and_reports_them() {
    let runs = counter();
    let model = Arc::new(TestModel::with_text("fine"));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(gated_tool()))
        .tool(Arc::new(typed_echo(&runs)))
        .build();

    let stream = agent.run_stream("go").await.unwrap();
    assert_eq!(stream.result().status, AgentRunStatus::Completed);
    assert_eq!(stream.result().output, "fine");
    let requests = model.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(tool_names(&requests[0]), vec!["echo".to_string()]);
    assert!(stream.events().iter().any(|record| matches!(
        &record.event,
        AgentStreamEvent::Custom { event }
            if event.kind == TOOLS_UNAVAILABLE_EVENT_KIND && event.payload["tools"] == json!(["gated"])
    )));
}

// ---------------------------------------------------------------------
// TestModel modes
// ---------------------------------------------------------------------

#[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Fast,
    Slow,
}

#[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
struct Inner {
    flag: bool,
    #[schemars(length(min = 4))]
    label: String,
}

#[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
struct AutoArgs {
    #[schemars(length(min = 9))]
    name: String,
    #[schemars(range(min = 3, max = 7))]
    count: u32,
    mode: Mode,
    inner: Inner,
    #[schemars(length(min = 2))]
    tags: Vec<String>,
}

#[tokio::test]
async fn auto_model_calls_every_tool_once_with_valid_arguments_then_summarises() {
    let received: Arc<Mutex<Vec<(String, Value)>>> = Arc::default();

    let typed_received = received.clone();
    let typed = typed_tool::<AutoArgs, _, _>(
        "auto_typed",
        Some("Typed tool with constraints".to_string()),
        move |_ctx: ToolContext, args: AutoArgs| {
            let received = typed_received.clone();
            async move {
                let value = serde_json::to_value(&args).unwrap();
                received
                    .lock()
                    .unwrap()
                    .push(("auto_typed".to_string(), value));
                Ok(ToolResult::new(json!({"typed_name": args.name})))
            }
        },
    );
    let string_schema = json!({
        "type": "object",
        "properties": {
            "title": {"type": "string", "minLength": 10},
            "level": {"type": "integer", "minimum": 3, "maximum": 5},
            "color": {"enum": ["red", "green"]},
            "nested": {
                "type": "object",
                "properties": {
                    "x": {"type": "integer", "minimum": -2},
                    "optional": {"type": "string"}
                },
                "required": ["x"]
            },
            "items": {"type": "array", "items": {"type": "string", "minLength": 2}, "minItems": 2},
            "unused": {"type": "boolean"}
        },
        "required": ["title", "level", "color", "nested", "items"]
    });
    let string_received = received.clone();
    let manual = string_tool(
        "auto_string",
        Some("Manual schema tool".to_string()),
        string_schema.clone(),
        move |_ctx: ToolContext, args: Value| {
            let received = string_received.clone();
            async move {
                received
                    .lock()
                    .unwrap()
                    .push(("auto_string".to_string(), args.clone()));
                Ok(ToolResult::new(json!({"level": args["level"]})))
            }
        },
    );
    let model = Arc::new(TestModel::auto());
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(typed))
        .tool(Arc::new(manual))
        .build();

    let result = agent.run("try everything").await.unwrap();
    assert_eq!(result.status, AgentRunStatus::Completed);

    // First response: one call per exposed tool.
    let ModelMessage::Response(first) = &result.messages[1] else {
        panic!("expected the first response");
    };
    let mut called: Vec<&str> = first.calls().map(|call| call.name.as_str()).collect();
    called.sort_unstable();
    assert_eq!(called, ["auto_string", "auto_typed"]);

    // Every tool ran exactly once, successfully, with schema-valid args.
    let mut received = received.lock().unwrap().clone();
    received.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(received.len(), 2);
    let definitions = agent.tool_registry().definitions();
    for (name, arguments) in &received {
        let definition = definitions
            .iter()
            .find(|definition| &definition.name == name)
            .unwrap();
        assert_valid(&definition.parameters, arguments);
    }
    for call in first.calls() {
        let definition = definitions
            .iter()
            .find(|definition| definition.name == call.name)
            .unwrap();
        assert_valid(&definition.parameters, &call.arguments.to_json().unwrap());
    }
    assert_valid(&string_schema, &received[0].1);
    let returns = tool_returns(&result.messages);
    assert_eq!(returns.len(), 2);
    assert!(
        returns.iter().all(ToolReturnPart::is_success),
        "{returns:?}"
    );

    // Then a text answer built from the returns.
    assert_eq!(model.requests().len(), 2);
    assert!(result.output.contains("auto_typed"), "{}", result.output);
    assert!(result.output.contains("auto_string"), "{}", result.output);
}

#[tokio::test]
async fn auto_model_without_tools_answers_with_text() {
    let model = Arc::new(TestModel::auto());
    let agent = AgentBuilder::new(model.clone()).build();
    let result = agent.run("hello there").await.unwrap();
    assert_eq!(result.status, AgentRunStatus::Completed);
    assert!(!result.output.is_empty());
    assert!(result.output.contains("hello there"), "{}", result.output);
    assert_eq!(model.requests().len(), 1);
}

#[tokio::test]
async fn with_text_answers_with_fixed_text() {
    let model = Arc::new(TestModel::with_text("fixed answer"));
    let agent = AgentBuilder::new(model.clone()).build();
    let result = agent.run("anything").await.unwrap();
    assert_eq!(result.output, "fixed answer");
    assert_eq!(result.status, AgentRunStatus::Completed);
    assert!(result.pending.is_empty());
    let requests = model.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].messages,
        vec![ModelMessage::Request(
            starweaver::model::ModelRequest::user("anything")
        )]
    );
}

#[tokio::test]
async fn scripted_model_running_out_fails_the_run() {
    let runs = counter();
    let model = Arc::new(TestModel::scripted(vec![call_response(
        "c1",
        "echo",
        json!({"value": "x"}),
    )]));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(typed_echo(&runs)))
        .build();
    let error = agent.run("go").await.unwrap_err();
    match &error {
        AgentError::Model(ModelError::ScriptExhausted { model, request }) => {
            assert_eq!(model, "test");
            assert_eq!(*request, 2);
        }
        other => panic!("expected ScriptExhausted, got {other:?}"),
    }
    assert_eq!(runs.load(Ordering::SeqCst), 1);

    let empty = AgentBuilder::new(Arc::new(TestModel::scripted(Vec::new()))).build();
    assert!(matches!(
        empty.run("go").await,
        Err(AgentError::Model(ModelError::ScriptExhausted {
            request: 1,
            ..
        }))
    ));
}

#[tokio::test]
async fn function_model_sees_messages_and_parameters() {
    let model = Arc::new(FunctionModel::new(|messages, parameters| {
        let prompt = messages
            .iter()
            .find_map(|message| match message {
                ModelMessage::Request(request) => {
                    request.parts.iter().find_map(|part| match part {
                        RequestPart::UserPrompt(prompt) => Some(prompt.content.clone()),
                        _ => None,
                    })
                }
                ModelMessage::Response(_) => None,
            })
            .unwrap_or_default();
        Ok(ModelResponse::text(format!(
            "{prompt} / {} tool(s)",
            parameters.tools.len()
        )))
    }));
    let runs = counter();
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(typed_echo(&runs)))
        .build();
    let result = agent.run("ping").await.unwrap();
    assert_eq!(result.output, "ping / 1 tool(s)");
    let requests = model.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(tool_names(&requests[0]), vec!["echo".to_string()]);
    let ModelMessage::Response(response) = result.messages.last().unwrap() else {
        panic!("expected a final response");
    };
    assert_eq!(response.model_name.as_deref(), Some("function"));
    assert!(matches!(&response.parts[..], [ResponsePart::Text(_)]));
}

// ---------------------------------------------------------------------
// Run options
// ---------------------------------------------------------------------

#[tokio::test]
async fn run_options_are_scoped_to_one_run() {
    let seen_tenant = Arc::new(Mutex::new(None));
    let seen = seen_tenant.clone();
    let run_tool = string_tool(
        "run_echo",
        Some("Echo one run payload".to_string()),
        open_schema(),
        move |ctx: ToolContext, _args: Value| {
            let seen = seen.clone();
            async move {
                let handle = ctx
                    .dependency::<AgentContextHandle>()
                    .ok_or_else(|| ToolError::user_error("no agent context handle"))?;
                let tenant = handle.read(|context| context.metadata.get("tenant").cloned());
                *seen.lock().unwrap() = tenant.clone();
                Ok(ToolResult::new(json!({"tenant": tenant})))
            }
        },
    );
    let model = Arc::new(TestModel::scripted(vec![
        call_response("c1", "run_echo", json!({})),
        ModelResponse::text("done"),
        ModelResponse::text("second"),
    ]));
    let runs = counter();
    let agent = AgentBuilder::new(model.clone())
        .instructions("agent instruction")
        .model_settings(ModelSettings {
            max_tokens: Some(100),
            temperature: Some(0.9),
            ..Default::default()
        })
        .tool(Arc::new(typed_echo(&runs)))
        .build();
    let mut session = agent.session();

    let mut params = JsonMap::new();
    params.insert("tenant".to_string(), json!("acme"));
    let options = AgentRunOptions::new()
        .tool(Arc::new(run_tool))
        .instructions("run-only instruction")
        .settings(ModelSettings {
            temperature: Some(0.2),
            ..Default::default()
        })
        .params(params);
    let result = session.run_with_options("use it", options).await.unwrap();
    assert_eq!(result.output, "done");

    // Params were visible to the tool during the run, then removed.
    assert_eq!(*seen_tenant.lock().unwrap(), Some(json!("acme")));
    let returns = tool_returns(&result.messages);
    assert_eq!(returns.len(), 1);
    assert_eq!(returns[0].content, json!({"tenant": "acme"}));
    assert!(!session.context().metadata.contains_key("tenant"));

    let requests = model.requests();
    for request in &requests[..2] {
        assert_eq!(
            tool_names(request),
            vec!["echo".to_string(), "run_echo".to_string()]
        );
        let instructions = &request.parameters.instructions;
        assert_eq!(instructions.first().unwrap(), "agent instruction");
        assert_eq!(instructions.last().unwrap(), "run-only instruction");
        assert_eq!(request.parameters.settings.temperature, Some(0.2));
        assert_eq!(request.parameters.settings.max_tokens, Some(100));
    }

    // A second run without options: the agent is unchanged.
    let result = session.run("plain").await.unwrap();
    assert_eq!(result.output, "second");
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    let third = &requests[2];
    assert_eq!(tool_names(third), vec!["echo".to_string()]);
    assert_eq!(
        third.parameters.instructions,
        vec!["agent instruction".to_string()]
    );
    assert_eq!(third.parameters.settings.temperature, Some(0.9));
    assert_eq!(third.parameters.settings.max_tokens, Some(100));
    assert!(agent.tool_registry().get("run_echo").is_none());
}

#[tokio::test]
async fn run_params_restore_a_previous_metadata_value() {
    let model = Arc::new(TestModel::with_text("ok"));
    let mut context = AgentContext::default();
    context.metadata.insert("tenant".to_string(), json!("host"));
    let mut session = AgentBuilder::new(model.clone())
        .build()
        .session()
        .with_context(context);
    let mut params = JsonMap::new();
    params.insert("tenant".to_string(), json!("run"));
    params.insert("extra".to_string(), json!(1));
    session
        .run_with_options("go", AgentRunOptions::new().params(params))
        .await
        .unwrap();
    assert_eq!(
        session.context().metadata.get("tenant"),
        Some(&json!("host"))
    );
    assert!(!session.context().metadata.contains_key("extra"));
}

// ---------------------------------------------------------------------
// Sessions and context
// ---------------------------------------------------------------------

#[tokio::test]
async fn sessions_keep_history_across_runs() {
    let model = Arc::new(TestModel::with_text("reply"));
    let mut session = AgentBuilder::new(model.clone()).build_app().session();
    let first = session.run("first question").await.unwrap();
    assert_eq!(first.output, "reply");
    let second = session.run("second question").await.unwrap();
    assert_eq!(second.output, "reply");
    assert_eq!(session.messages().len(), 4);

    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let sent = &requests[1].messages;
    assert_eq!(sent.len(), 3);
    assert_eq!(
        sent[0],
        ModelMessage::Request(starweaver::model::ModelRequest::user("first question"))
    );
    assert!(
        matches!(&sent[1], ModelMessage::Response(response) if response.text_content() == "reply")
    );
    assert_eq!(
        sent[2],
        ModelMessage::Request(starweaver::model::ModelRequest::user("second question"))
    );

    // A plain agent run starts a fresh conversation every time.
    let fresh_model = Arc::new(TestModel::with_text("reply"));
    let agent = AgentBuilder::new(fresh_model.clone()).build();
    agent.run("one").await.unwrap();
    agent.run("two").await.unwrap();
    assert_eq!(fresh_model.requests()[1].messages.len(), 1);
}

#[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
struct ReadNoteArgs {
    /// Note key to read from AgentContext.
    key: String,
}

#[tokio::test]
async fn legacy_tool_reads_context_notes_through_the_handle() {
    let read_note = typed_tool::<ReadNoteArgs, _, _>(
        "read_note",
        Some("Read one AgentContext note".to_string()),
        |ctx: ToolContext, args: ReadNoteArgs| async move {
            let context_handle = ctx
                .dependency::<AgentContextHandle>()
                .ok_or_else(|| ToolError::user_error("agent context handle missing"))?;
            let context = context_handle.snapshot();
            let value = context.notes.get(&args.key).unwrap_or_default().to_string();
            Ok(ToolResult::new(json!({"value": value})))
        },
    );
    let model = Arc::new(TestModel::scripted(vec![
        call_response("n1", "read_note", json!({"key": "lang"})),
        ModelResponse::text("done"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(read_note))
        .build();
    let mut context = AgentContext::default();
    context.notes.set("lang", "Chinese");

    let result = agent
        .run_with_context("read note", &mut context)
        .await
        .unwrap();
    assert_eq!(result.output, "done");
    let returns = tool_returns(&result.messages);
    assert_eq!(returns.len(), 1);
    assert_eq!(returns[0].tool_call_id, "n1");
    assert!(returns[0].is_success(), "{:?}", returns[0]);
    assert_eq!(returns[0].content, json!({"value": "Chinese"}));
    // The model received it, and the host's context is intact.
    let sent = last_request_parts(&model.requests()[1]);
    assert!(
        matches!(&sent[..], [RequestPart::ToolReturn(part)] if part.content == json!({"value": "Chinese"}))
    );
    assert_eq!(context.notes.get("lang"), Some("Chinese"));
}

#[tokio::test]
async fn tool_context_updates_persist_in_the_session_context() {
    let writer = string_tool(
        "write_note",
        Some("Writes a note".to_string()),
        open_schema(),
        |ctx: ToolContext, _args: Value| async move {
            let handle = ctx
                .dependency::<AgentContextHandle>()
                .ok_or_else(|| ToolError::user_error("agent context handle missing"))?;
            handle.update(|context| context.notes.set("written", "yes"));
            Ok(ToolResult::new(json!({})))
        },
    );
    let model = Arc::new(TestModel::scripted(vec![
        call_response("w1", "write_note", json!({})),
        ModelResponse::text("done"),
    ]));
    let mut session = AgentBuilder::new(model)
        .tool(Arc::new(writer))
        .build()
        .session();
    session.run("write").await.unwrap();
    assert_eq!(session.context().notes.get("written"), Some("yes"));
}

// ---------------------------------------------------------------------
// Usage
// ---------------------------------------------------------------------

#[tokio::test]
async fn usage_counts_requests_and_tool_calls() {
    let runs = counter();
    let model = Arc::new(TestModel::scripted(vec![
        ModelResponse::tool_calls([
            ToolCallPart::new("c1", "echo", json!({"value": "a"})),
            ToolCallPart::new("c2", "echo", json!({"value": "b"})),
        ]),
        call_response("c3", "echo", json!({"value": "c"})),
        ModelResponse::text("done"),
    ]));
    let mut session = AgentBuilder::new(model)
        .tool(Arc::new(typed_echo(&runs)))
        .build()
        .session();
    let result = session.run("go").await.unwrap();
    assert_eq!(result.usage.requests, 3);
    assert_eq!(result.usage.tool_calls, 3);
    assert!(result.usage.input_tokens > 0);
    assert_eq!(runs.load(Ordering::SeqCst), 3);
    assert_eq!(session.context().usage.requests, 3);
    assert_eq!(session.context().usage.tool_calls, 3);
}

// ---------------------------------------------------------------------
// Robustness
// ---------------------------------------------------------------------

#[tokio::test]
async fn calling_an_unavailable_tool_gets_a_retry_prompt() {
    let model = Arc::new(TestModel::scripted(vec![
        call_response("g1", "gated", json!({})),
        ModelResponse::text("ok"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(gated_tool()))
        .build();
    let result = agent.run("go").await.unwrap();
    assert_eq!(result.output, "ok");
    let prompts = retry_prompts(&model.requests()[1]);
    assert_eq!(prompts.len(), 1);
    assert!(
        prompts[0].content.contains("not available"),
        "{}",
        prompts[0].content
    );
}

#[tokio::test]
async fn a_failed_session_run_is_kept_until_discarded_and_the_session_stays_usable() {
    let runs = counter();
    let model = Arc::new(TestModel::scripted(vec![
        ModelResponse::text("first answer"),
        call_response("c1", "stubborn", json!({})),
        call_response("c2", "stubborn", json!({})),
        ModelResponse::text("recovered"),
    ]));
    let mut session = AgentBuilder::new(model.clone())
        .tool(Arc::new(always_retry(&runs).with_max_retries(0)))
        .build()
        .session();
    session.run("hello").await.unwrap();
    assert_eq!(session.messages().len(), 2);

    let error = session.run("break it").await.unwrap_err();
    assert!(
        matches!(error, AgentError::ToolRetriesExhausted { .. }),
        "{error:?}"
    );
    // The failed run is kept (prompt, call, retry prompt), marked failed.
    assert_eq!(session.messages().len(), 5);
    assert_eq!(session.failed_run().unwrap().first_message, 2);
    assert!(!session.is_waiting());
    // Discarding it is the old rollback.
    assert_eq!(session.discard_failed_run().len(), 3);
    assert_eq!(session.messages().len(), 2);

    // Later runs continue from the last good state.
    let error = session.run("again").await.unwrap_err();
    assert!(
        matches!(error, AgentError::ToolRetriesExhausted { .. }),
        "{error:?}"
    );
    session.discard_failed_run();
    let result = session.run("once more").await.unwrap();
    assert_eq!(result.output, "recovered");
    let sent = &model.requests()[3].messages;
    assert_eq!(sent.len(), 3);
    assert_eq!(
        sent[2],
        ModelMessage::Request(starweaver::model::ModelRequest::user("once more"))
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
            AgentStreamEvent::RunCompleted { output } => format!("completed:{output}"),
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

// ---------------------------------------------------------------------
// Feedback, user errors, execution retries, timeouts, cancellation
// ---------------------------------------------------------------------

fn failing_tool(name: &str, error: ToolError, runs: &Arc<AtomicU32>) -> FunctionTool {
    let runs = runs.clone();
    string_tool(
        name,
        Some("Fails the same way every time".to_string()),
        open_schema(),
        move |_ctx: ToolContext, _args: Value| {
            let runs = runs.clone();
            let error = error.clone();
            async move {
                runs.fetch_add(1, Ordering::SeqCst);
                Err(error)
            }
        },
    )
}

#[tokio::test]
async fn feedback_and_user_errors_are_returns_that_cost_no_retry_budget() {
    for (error, kind, is_error) in [
        (
            ToolError::feedback("file not found"),
            starweaver::model::ToolReturnKind::Feedback,
            false,
        ),
        (
            ToolError::user_error("missing dependency"),
            starweaver::model::ToolReturnKind::UserError,
            true,
        ),
    ] {
        let runs = counter();
        let model = Arc::new(TestModel::scripted(vec![
            call_response("c1", "soft", json!({})),
            call_response("c2", "soft", json!({})),
            call_response("c3", "soft", json!({})),
            ModelResponse::text("coped"),
        ]));
        let agent = AgentBuilder::new(model.clone())
            .tool(Arc::new(
                failing_tool("soft", error, &runs).with_max_retries(0),
            ))
            .build();
        let result = agent.run("go").await.unwrap();
        assert_eq!(result.output, "coped");
        // Never retried internally either.
        assert_eq!(runs.load(Ordering::SeqCst), 3);
        let returns = tool_returns(&result.messages);
        assert_eq!(returns.len(), 3);
        for part in &returns {
            assert_eq!(part.kind, kind);
            assert_eq!(part.is_error, is_error);
            assert_eq!(part.content["success"], json!(false));
        }
        assert!(retry_prompts(&model.requests()[1]).is_empty());
    }
}

#[tokio::test]
async fn execution_failures_are_retried_internally_without_the_model() {
    let runs = counter();
    let counter = runs.clone();
    let flaky = string_tool(
        "flaky_io",
        Some("Fails once unexpectedly".to_string()),
        open_schema(),
        move |_ctx: ToolContext, _args: Value| {
            let counter = counter.clone();
            async move {
                if counter.fetch_add(1, Ordering::SeqCst) == 0 {
                    Err(ToolError::execution("connection reset"))
                } else {
                    Ok(ToolResult::new(json!({"ok": true})))
                }
            }
        },
    );
    let model = Arc::new(TestModel::scripted(vec![
        call_response("c1", "flaky_io", json!({})),
        ModelResponse::text("done"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(flaky))
        .build();
    let result = agent.run("go").await.unwrap();
    assert_eq!(result.output, "done");
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    assert_eq!(model.requests().len(), 2);
    let part = &tool_returns(&result.messages)[0];
    assert!(part.is_success(), "{part:?}");
    assert_eq!(part.metadata["retry"]["class"], json!("execution"));
    assert_eq!(part.metadata["retry"]["attempts"], json!(2));

    // Always failing: the budget runs out and the model gets an error
    // return, not a retry prompt and not a run failure.
    let always = crate::common::counter();
    let model = Arc::new(TestModel::scripted(vec![
        call_response("c1", "broken", json!({})),
        ModelResponse::text("gave up"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(
            failing_tool("broken", ToolError::execution("boom"), &always).with_max_retries(2),
        ))
        .build();
    let result = agent.run("go").await.unwrap();
    assert_eq!(result.output, "gave up");
    assert_eq!(always.load(Ordering::SeqCst), 3);
    let part = &tool_returns(&result.messages)[0];
    assert_eq!(
        part.kind,
        starweaver::model::ToolReturnKind::ExecutionFailed
    );
    assert_eq!(part.metadata["retry"]["exhausted"], json!(true));
}

#[tokio::test]
async fn panicking_tool_is_an_error_return_not_a_crash() {
    let model = Arc::new(TestModel::scripted(vec![
        call_response("c1", "explode", json!({})),
        ModelResponse::text("survived"),
    ]));
    let explode = string_tool(
        "explode",
        Some("Panics".to_string()),
        open_schema(),
        |_ctx: ToolContext, _args: Value| async move {
            if true {
                panic!("kaboom");
            }
            Ok(ToolResult::new(json!({})))
        },
    )
    .with_max_retries(0);
    let agent = AgentBuilder::new(model).tool(Arc::new(explode)).build();
    let result = agent.run("go").await.unwrap();
    assert_eq!(result.output, "survived");
    let part = &tool_returns(&result.messages)[0];
    assert_eq!(
        part.kind,
        starweaver::model::ToolReturnKind::ExecutionFailed
    );
    assert!(
        part.content["message"].as_str().unwrap().contains("kaboom"),
        "{part:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn agent_level_timeout_applies_to_tools() {
    let hang = string_tool(
        "hang",
        Some("Never finishes".to_string()),
        open_schema(),
        |_ctx: ToolContext, _args: Value| async move {
            std::future::pending::<()>().await;
            Ok(ToolResult::new(json!({})))
        },
    );
    let model = Arc::new(TestModel::scripted(vec![
        call_response("c1", "hang", json!({})),
        ModelResponse::text("timed out"),
    ]));
    let agent = AgentBuilder::new(model)
        .tool(Arc::new(hang))
        .runtime_policy(AgentRuntimePolicy {
            timeout_ms: Some(50),
            ..Default::default()
        })
        .build();
    let result = agent.run("go").await.unwrap();
    assert_eq!(result.output, "timed out");
    let part = &tool_returns(&result.messages)[0];
    assert_eq!(part.kind, starweaver::model::ToolReturnKind::Timeout);
    assert!(
        part.content["message"].as_str().unwrap().contains("50 ms"),
        "{part:?}"
    );
}

#[tokio::test]
async fn a_cancelled_token_ends_the_run_before_the_model_is_asked() {
    let runs = counter();
    let token = tokio_util::sync::CancellationToken::new();
    token.cancel();
    let model = Arc::new(TestModel::scripted(vec![
        call_response("c1", "echo", json!({"value": "x"})),
        ModelResponse::text("cancelled"),
    ]));
    let mut session = AgentBuilder::new(model.clone())
        .tool(Arc::new(typed_echo(&runs)))
        .build()
        .session();
    let result = session
        .run_with_options("go", AgentRunOptions::new().cancellation(token))
        .await;
    assert!(matches!(result, Err(AgentError::Cancelled)), "{result:?}");
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    assert!(model.requests().is_empty());
    // Only the prompt was kept, marked failed.
    assert_eq!(
        session.messages(),
        [ModelMessage::Request(
            starweaver::model::ModelRequest::user("go")
        )]
    );
    assert_eq!(session.failed_run().unwrap().error, "the run was cancelled");
}

// ---------------------------------------------------------------------
// Schema samples used by TestModel::auto
// ---------------------------------------------------------------------

#[test]
fn schema_samples_cover_the_common_tool_subset() {
    for schema in [
        json!({"type": "object", "properties": {"s": {"type": ["string", "null"], "minLength": 3}}, "required": ["s"]}),
        json!({"type": "object", "properties": {"n": {"type": "number", "exclusiveMaximum": 0}}, "required": ["n"]}),
        json!({"type": "object", "properties": {"n": {"type": "integer", "exclusiveMinimum": 0, "maximum": 4}}, "required": ["n"]}),
        json!({"type": "object", "properties": {"e": {"type": "string", "format": "email", "maxLength": 40}}, "required": ["e"]}),
        json!({"type": "object", "properties": {"c": {"const": "fixed"}}, "required": ["c"]}),
        json!({"type": "object", "properties": {"o": {"oneOf": [
            {"type": "object", "properties": {"A": {"type": "integer", "minimum": 2}}, "required": ["A"], "additionalProperties": false},
            {"type": "string", "enum": ["B"]}
        ]}}, "required": ["o"]}),
        json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "integer"}}}, "required": ["m"]}),
        json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer"}, "minItems": 3, "maxItems": 3}}, "required": ["a"]}),
        json!({"type": "object", "properties": {"x": {"allOf": [
            {"type": "object", "properties": {"p": {"type": "string"}}, "required": ["p"]},
            {"type": "object", "properties": {"q": {"type": "boolean"}}, "required": ["q"]}
        ]}}, "required": ["x"]}),
        json!({"type": "object", "properties": {"r": {"$ref": "#/$defs/R"}}, "required": ["r"],
               "$defs": {"R": {"type": "object", "properties": {"v": {"type": "string", "minLength": 12}}, "required": ["v"]}}}),
    ] {
        assert_sample_valid(&schema);
    }
}

#[test]
fn schema_samples_respect_large_min_items() {
    assert_sample_valid(&json!({
        "type": "object",
        "properties": {"tags": {"type": "array", "items": {"type": "string"}, "minItems": 6}},
        "required": ["tags"]
    }));
}

#[test]
fn schema_samples_respect_unique_items_with_min_items() {
    assert_sample_valid(&json!({
        "type": "object",
        "properties": {"picks": {
            "type": "array",
            "items": {"type": "string", "enum": ["a", "b", "c"]},
            "minItems": 2,
            "uniqueItems": true
        }},
        "required": ["picks"]
    }));
}

#[tokio::test]
async fn auto_model_arguments_validate_for_long_arrays() {
    let runs = counter();
    let counter = runs.clone();
    let tool = string_tool(
        "many",
        Some("Needs six tags".to_string()),
        json!({
            "type": "object",
            "properties": {"tags": {"type": "array", "items": {"type": "string"}, "minItems": 6}},
            "required": ["tags"]
        }),
        move |_ctx: ToolContext, args: Value| {
            let counter = counter.clone();
            async move {
                counter.fetch_add(1, Ordering::SeqCst);
                Ok(ToolResult::new(args))
            }
        },
    );
    let model = Arc::new(TestModel::auto());
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(tool))
        .build();
    let result = agent.run("go").await.unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 1, "{:?}", result.messages);
    assert!(retry_prompts(&model.requests()[1]).is_empty());
}

#[tokio::test]
async fn a_tool_name_providers_reject_stops_the_run_before_the_model() {
    let model = Arc::new(TestModel::with_text("never"));
    let tool = string_tool(
        "bad name",
        Some("Has a space".to_string()),
        open_schema(),
        |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
    );
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(tool))
        .build();
    match agent.run("hi").await {
        Err(AgentError::InvalidToolName { name, problem }) => {
            assert_eq!(name, "bad name");
            assert!(problem.contains("letters, digits"), "{problem}");
        }
        other => panic!("expected InvalidToolName, got {other:?}"),
    }
    assert!(model.requests().is_empty());
}

#[tokio::test]
async fn startup_events_reach_the_stream_as_custom_records() {
    let agent = AgentBuilder::new(Arc::new(TestModel::with_text("ok")))
        .startup_event(starweaver::ContextEvent::new(
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

//! The `test` model in runs: auto mode calling every tool with valid
//! arguments, fixed text, scripts running out and function models.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use starweaver::agent::AgentRunStatus;
use starweaver::model::{
    FunctionModel, ModelError, ModelMessage, ModelResponse, RequestPart, ResponsePart,
    ToolReturnPart,
};
use starweaver::{
    string_tool, typed_tool, AgentBuilder, AgentError, TestModel, ToolContext, ToolResult,
};

use crate::common::{assert_valid, call_response, counter, tool_returns};

use super::{retry_prompts, tool_names, typed_echo};

// ---------------------------------------------------------------------------
// TestModel modes
// ---------------------------------------------------------------------------

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

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct PingArgs {
    /// Host to ping.
    address: std::net::Ipv4Addr,
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: the test model sent invalid values for string formats of std types.
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
        starweaver::tools::schema_for_type::<PingArgs>(),
        starweaver::model::sample_value(&starweaver::tools::schema_for_type::<PingArgs>()),
        result.output
    );
}

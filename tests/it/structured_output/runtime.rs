//! The runtime side: the output tool, validation, retries and typed runs.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use starweaver::agent::{OutputSpec, OUTPUT_TOOL_NAME};
use starweaver::model::{ModelMessage, ModelResponse, RequestPart, ResponsePart, TextPart};
use starweaver::tools::ToolKind;
use starweaver::{string_tool, AgentBuilder, AgentError, TestModel, ToolResult};

use crate::common::{call_response, counter, open_schema};

/// The triage answer: a severity out of two and a summary.
fn triage_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "severity": {"enum": ["low", "high"]},
            "summary": {"type": "string"}
        },
        "required": ["severity", "summary"]
    })
}

/// A `lookup` tool that counts its runs.
fn lookup(runs: Arc<std::sync::atomic::AtomicU32>) -> starweaver::tools::DynTool {
    Arc::new(string_tool(
        "lookup",
        Some("Looks up the ticket.".into()),
        open_schema(),
        move |_ctx, _args| {
            runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async { Ok(ToolResult::new(json!({"ticket": "disk full on db-1"}))) }
        },
    ))
}

/// The tool names each recorded request offered.
fn offered(model: &TestModel) -> Vec<Vec<String>> {
    model
        .requests()
        .iter()
        .map(|request| {
            request
                .parameters
                .tools
                .iter()
                .map(|tool| tool.name.clone())
                .collect()
        })
        .collect()
}

/// Regression: a schema sent on every turn made an agent stop calling its tools. Here the
/// output tool is offered beside `lookup` on every request, the model calls `lookup` first and
/// then answers through the output tool, in shape.
#[tokio::test]
async fn an_agent_with_an_output_schema_still_calls_its_tools_then_answers_in_shape() {
    let model = Arc::new(TestModel::auto());
    let runs = counter();
    let agent = AgentBuilder::new(model.clone())
        .tool(lookup(runs.clone()))
        .output(OutputSpec::new(triage_schema()))
        .build();
    let result = agent
        .run("Triage the ticket about the full disk")
        .await
        .unwrap();
    assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 1);
    let offered = offered(&model);
    assert!(offered.len() >= 2, "{offered:?}");
    for tools in &offered {
        assert!(tools.contains(&"lookup".to_string()), "{offered:?}");
        assert!(tools.contains(&OUTPUT_TOOL_NAME.to_string()), "{offered:?}");
    }
    let value = result.structured_output.expect("a structured answer");
    let validator = jsonschema::validator_for(&triage_schema()).unwrap();
    assert!(validator.is_valid(&value), "{value}");
    // The output tool's definition carries its kind.
    let definition = &model.requests()[0].parameters.tools;
    let output = definition
        .iter()
        .find(|tool| tool.name == OUTPUT_TOOL_NAME)
        .unwrap();
    assert_eq!(
        output.metadata["starweaver_tool_kind"],
        ToolKind::Output.as_str()
    );
    assert_eq!(output.parameters, triage_schema());
    // The final text is the test model's summary, naming the tool it called.
    assert!(result.output.contains("lookup"), "{}", result.output);
}

#[tokio::test]
async fn an_invalid_answer_is_retried_with_its_errors_then_accepted() {
    let model = Arc::new(TestModel::scripted([
        call_response(
            "a1",
            OUTPUT_TOOL_NAME,
            json!({"severity": "medium", "summary": "disk"}),
        ),
        call_response(
            "a2",
            OUTPUT_TOOL_NAME,
            json!({"severity": "high", "summary": "disk full"}),
        ),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .output(OutputSpec::new(triage_schema()))
        .build();
    let result = agent.run("Triage").await.unwrap();
    assert_eq!(
        result.structured_output,
        Some(json!({"severity": "high", "summary": "disk full"}))
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let Some(ModelMessage::Request(retry)) = requests[1].messages.last() else {
        panic!("the second request ends with the retry");
    };
    let prompt = retry
        .parts
        .iter()
        .find_map(|part| match part {
            RequestPart::RetryPrompt(prompt) => Some(prompt.content.clone()),
            _ => None,
        })
        .expect("a retry prompt");
    assert!(prompt.contains("/severity"), "{prompt}");
    assert!(prompt.contains("medium"), "{prompt}");
}

#[tokio::test]
async fn a_text_answer_counts_as_invalid_and_is_told_to_call_the_output_tool() {
    let model = Arc::new(TestModel::scripted([
        ModelResponse::text("It is high."),
        call_response(
            "a1",
            OUTPUT_TOOL_NAME,
            json!({"severity": "high", "summary": "disk"}),
        ),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .output(OutputSpec::new(triage_schema()))
        .build();
    let result = agent.run("Triage").await.unwrap();
    assert_eq!(result.structured_output.unwrap()["severity"], "high");
    let requests = model.requests();
    let Some(ModelMessage::Request(retry)) = requests[1].messages.last() else {
        panic!("the second request ends with the retry");
    };
    assert!(retry.parts.iter().any(|part| matches!(
        part,
        RequestPart::RetryPrompt(prompt) if prompt.content.contains("call `final_answer` to finish")
    )));
}

#[tokio::test]
async fn invalid_every_time_fails_with_the_errors_and_no_further_request() {
    let invalid = || call_response("a", OUTPUT_TOOL_NAME, json!({"summary": 7}));
    let model = Arc::new(TestModel::scripted([
        invalid(),
        invalid(),
        invalid(),
        invalid(),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .output(OutputSpec::new(triage_schema()).with_retries(1))
        .build();
    let error = agent.run("Triage").await.unwrap_err();
    let AgentError::OutputInvalid {
        tool,
        attempts,
        message,
    } = &error
    else {
        panic!("{error:?}");
    };
    assert_eq!(tool, OUTPUT_TOOL_NAME);
    assert_eq!(*attempts, 2);
    assert!(message.contains("severity"), "{message}");
    assert!(message.contains("/summary"), "{message}");
    // retries 1: two answers, and no request after the last.
    assert_eq!(model.requests().len(), 2);
    assert!(error.to_string().contains("required"), "{error}");
}

#[tokio::test]
async fn text_every_time_fails_after_the_retries() {
    let model = Arc::new(TestModel::with_text("no tools for me"));
    let agent = AgentBuilder::new(model.clone())
        .output(OutputSpec::new(triage_schema()))
        .build();
    let error = agent.run("Triage").await.unwrap_err();
    assert!(
        matches!(&error, AgentError::OutputInvalid { attempts: 3, message, .. } if message.contains("without calling")),
        "{error:?}"
    );
    assert_eq!(model.requests().len(), 3);
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Severity {
    Low,
    High,
}

/// A typed answer.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Triage {
    severity: Severity,
    summary: String,
}

#[tokio::test]
async fn run_typed_round_trips_through_the_schema_of_the_type() {
    let model = Arc::new(TestModel::scripted([call_response(
        "a",
        OUTPUT_TOOL_NAME,
        json!({"severity": "low", "summary": "fine"}),
    )]));
    // The agent asks for no output itself: the type's schema is the run's.
    let agent = AgentBuilder::new(model.clone()).build();
    let mut session = agent.session();
    let (value, result) = session.run_typed::<Triage>("Triage").await.unwrap();
    assert_eq!(
        value,
        Some(Triage {
            severity: Severity::Low,
            summary: "fine".into()
        })
    );
    assert_eq!(result.structured_output.unwrap()["summary"], "fine");
    let tools = &model.requests()[0].parameters.tools;
    let output = tools
        .iter()
        .find(|tool| tool.name == OUTPUT_TOOL_NAME)
        .unwrap();
    assert_eq!(
        output.parameters,
        starweaver::tools::schema_for_type::<Triage>()
    );
    // The test model answers any typed run with an instance of the type.
    let (value, _) = AgentBuilder::new(Arc::new(TestModel::auto()))
        .build()
        .run_typed::<Triage>("Triage")
        .await
        .unwrap();
    assert!(value.is_some());
}

#[tokio::test]
async fn a_schema_that_is_not_an_object_is_wrapped_and_unwrapped() {
    let model = Arc::new(TestModel::scripted([call_response(
        "a",
        OUTPUT_TOOL_NAME,
        json!({"value": ["a", "b"]}),
    )]));
    let agent = AgentBuilder::new(model)
        .output(OutputSpec::new(
            json!({"type": "array", "items": {"type": "string"}}),
        ))
        .build();
    let (value, _) = agent.run_typed::<Vec<String>>("List").await.unwrap();
    assert_eq!(value, Some(vec!["a".to_string(), "b".to_string()]));
}

#[tokio::test]
async fn without_an_output_spec_no_output_tool_is_offered() {
    let model = Arc::new(TestModel::auto());
    let agent = AgentBuilder::new(model.clone())
        .tool(lookup(counter()))
        .build();
    let result = agent.run("Triage the ticket").await.unwrap();
    assert_eq!(result.structured_output, None);
    for tools in offered(&model) {
        assert_eq!(tools, vec!["lookup".to_string()]);
    }
    let last = result.messages.last().unwrap();
    assert!(matches!(
        last,
        ModelMessage::Response(response)
            if matches!(response.parts.as_slice(), [ResponsePart::Text(TextPart { .. })])
    ));
}

#[tokio::test]
async fn a_tool_with_the_output_tools_name_is_refused_before_any_request() {
    let model = Arc::new(TestModel::with_text("hi"));
    let clash = Arc::new(string_tool(
        OUTPUT_TOOL_NAME,
        None,
        open_schema(),
        |_ctx, _args| async { Ok(ToolResult::new(json!({}))) },
    ));
    let agent = AgentBuilder::new(model.clone())
        .tool(clash)
        .output(OutputSpec::new(triage_schema()))
        .build();
    let error = agent.run("Triage").await.unwrap_err();
    assert!(
        matches!(&error, AgentError::OutputToolClash { tool } if tool == OUTPUT_TOOL_NAME),
        "{error:?}"
    );
    assert!(model.requests().is_empty());
}

/// The last stream record carries the validated object, so a host reading the stream has the
/// answer without the result; a text run's record has no such key when serialized.
#[tokio::test]
async fn the_run_completed_record_carries_the_object_and_a_text_run_has_none() {
    use starweaver::agent::AgentStreamEvent;

    let answer = json!({"severity": "low", "summary": "fine"});
    let model = Arc::new(TestModel::scripted(vec![call_response(
        "a1",
        OUTPUT_TOOL_NAME,
        answer.clone(),
    )]));
    let agent = AgentBuilder::new(model)
        .output(OutputSpec::new(triage_schema()))
        .build();
    let stream = agent.run_stream("triage").await.unwrap();
    let last = &stream.events().last().unwrap().event;
    match last {
        AgentStreamEvent::RunCompleted {
            structured_output, ..
        } => assert_eq!(structured_output.as_ref(), Some(&answer)),
        other => panic!("expected run_completed last, got {other:?}"),
    }
    let serialized = serde_json::to_value(last).unwrap();
    assert_eq!(serialized["structured_output"], answer);

    let text = AgentBuilder::new(Arc::new(TestModel::with_text("hello"))).build();
    let stream = text.run_stream("hi").await.unwrap();
    let last = serde_json::to_value(&stream.events().last().unwrap().event).unwrap();
    assert_eq!(last["type"], "run_completed");
    assert_eq!(last["output"], "hello");
    assert!(last.get("structured_output").is_none(), "{last}");
}

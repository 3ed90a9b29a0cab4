//! Tools in runs: the unavailable-tool policies, calls to unavailable
//! tools and tool names providers reject.

use std::sync::Arc;

use serde_json::{json, Value};
use starweaver::agent::AgentRunStatus;
use starweaver::context::ContextEventKind;
use starweaver::model::ModelResponse;
use starweaver::tools::FunctionTool;
use starweaver::{
    string_tool, AgentBuilder, AgentContext, AgentError, AgentStreamEvent, TestModel,
    ToolAvailabilityPolicy, ToolConfig, ToolContext, ToolResult,
};

use crate::common::{call_response, counter, open_schema};

use super::{retry_prompts, tool_names, typed_echo};

// ---------------------------------------------------------------------------
// Tool availability
// ---------------------------------------------------------------------------

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
        .of_kind(ContextEventKind::ToolsUnavailable)
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
            if event.kind == ContextEventKind::ToolsUnavailable && event.payload["tools"] == json!(["gated"])
    )));
}

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

// ---------------------------------------------------------------------------
// Tool names
// ---------------------------------------------------------------------------

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

//! What a model says it adapts or leaves out of a request (`Model::request_notices`) reaches
//! the run as one `model_request_adjusted` event per distinct notice, and a tool the model
//! cannot take fails the run under the FailRun policy before any request is sent.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::json;
use starweaver::context::ContextEventKind;
use starweaver::model::{
    Model, ModelError, ModelMessage, ModelRequestParameters, ModelResponse, RequestNotice,
};
use starweaver::tools::BoxFuture;
use starweaver::{
    string_tool, AgentBuilder, AgentError, AgentStreamEvent, ToolAvailabilityPolicy, ToolConfig,
    ToolResult,
};

/// Calls `good` once, then answers; cannot take a tool named `bad` and drops `temperature`.
#[derive(Default)]
struct Picky {
    requests: AtomicUsize,
}

impl Model for Picky {
    fn name(&self) -> &str {
        "picky"
    }

    fn request_notices(&self, parameters: &ModelRequestParameters) -> Vec<RequestNotice> {
        let mut notices: Vec<RequestNotice> = parameters
            .tools
            .iter()
            .filter(|tool| tool.name == "bad")
            .map(|tool| RequestNotice::tool_left_out(&tool.name, "its schema root is a string"))
            .collect();
        if parameters.settings.temperature.is_some() {
            notices.push(RequestNotice::setting_left_out("temperature", "not taken"));
        }
        notices
    }

    fn request<'a>(
        &'a self,
        _messages: &'a [ModelMessage],
        _parameters: &'a ModelRequestParameters,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        Box::pin(async move {
            if self.requests.fetch_add(1, Ordering::SeqCst) == 0 {
                Ok(ModelResponse::tool_calls([
                    starweaver::model::ToolCallPart::new("c1", "good", json!({})),
                ]))
            } else {
                Ok(ModelResponse::text("done"))
            }
        })
    }
}

fn tool(name: &str, schema: serde_json::Value) -> starweaver::tools::DynTool {
    Arc::new(string_tool(name, None, schema, |_ctx, _args| async move {
        Ok(ToolResult::new(json!("ok")))
    }))
}

fn builder(model: Arc<Picky>) -> AgentBuilder {
    AgentBuilder::new(model)
        .tool(tool("good", json!({"type": "object", "properties": {}})))
        .tool(tool("bad", json!({"type": "string"})))
        .model_settings(starweaver::model::ModelSettings {
            temperature: Some(0.3),
            ..Default::default()
        })
}

#[tokio::test]
async fn each_notice_is_published_once_per_run_and_the_run_goes_on() {
    let model = Arc::new(Picky::default());
    let stream = builder(model.clone())
        .build()
        .run_stream("go")
        .await
        .unwrap();
    let adjusted: Vec<_> = stream
        .events()
        .iter()
        .filter_map(|record| match &record.event {
            AgentStreamEvent::Custom { event }
                if event.kind == ContextEventKind::ModelRequestAdjusted =>
            {
                Some(event.payload.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(model.requests.load(Ordering::SeqCst), 2, "two steps ran");
    assert_eq!(
        adjusted.len(),
        1,
        "the second step repeats no notice: {adjusted:?}"
    );
    assert_eq!(adjusted[0]["model"], "picky");
    let subjects: Vec<&str> = adjusted[0]["notices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|notice| notice["subject"].as_str().unwrap())
        .collect();
    assert_eq!(subjects, ["bad", "temperature"]);
    assert_eq!(adjusted[0]["notices"][0]["kind"], "tool_left_out");
    assert!(stream
        .events()
        .iter()
        .any(|record| matches!(&record.event, AgentStreamEvent::RunCompleted { .. })));
}

#[tokio::test]
async fn a_tool_the_model_cannot_take_fails_the_run_under_fail_run() {
    let model = Arc::new(Picky::default());
    let agent = builder(model.clone())
        .tool_config(ToolConfig {
            unavailable_tool_policy: ToolAvailabilityPolicy::FailRun,
        })
        .build();
    let mut session = agent.session();
    let error = session.run("go").await.unwrap_err();
    let AgentError::ToolsRefusedByModel {
        model: name,
        tools,
        reason,
    } = &error
    else {
        panic!("expected ToolsRefusedByModel, got {error:?}");
    };
    assert_eq!(
        (name.as_str(), tools.as_slice()),
        ("picky", ["bad".to_string()].as_slice())
    );
    assert_eq!(reason, "its schema root is a string");
    let text = error.to_string();
    assert!(text.contains("unavailable_tools: skip"), "{text}");
    assert_eq!(model.requests.load(Ordering::SeqCst), 0, "nothing was sent");
    let published = session
        .context()
        .events
        .of_kind(ContextEventKind::ModelRequestAdjusted)
        .count();
    assert_eq!(published, 1, "the notice is published before the run fails");
}

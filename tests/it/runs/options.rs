//! Run options scoped to one run, run parameters, usage and `Send` run
//! futures.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use starweaver::agent::AgentHitlResults;
use starweaver::model::{
    FunctionModel, Model, ModelError, ModelMessage, ModelResponse, ModelSettings, ToolCallPart,
};
use starweaver::tools::{BoxFuture, JsonMap};
use starweaver::{
    string_tool, AgentBuilder, AgentContext, AgentContextHandle, AgentRunOptions, TestModel,
    ToolContext, ToolError, ToolResult,
};

use crate::common::{
    call_response, calls, counter, open_schema, recording_tool, tool_returns, Log,
};

use super::{tool_names, typed_echo};

// ---------------------------------------------------------------------------
// Run options
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Usage
// ---------------------------------------------------------------------------

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

struct BareModel;

impl Model for BareModel {
    fn name(&self) -> &str {
        "bare"
    }

    fn request<'a>(
        &'a self,
        _messages: &'a [ModelMessage],
        _parameters: &'a starweaver::model::ModelRequestParameters,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        // A provider that reports no usage at all.
        Box::pin(async { Ok(ModelResponse::text("hi")) })
    }
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: run usage and context usage disagreed on the number of requests.
#[tokio::test]
async fn run_usage_counts_requests_like_the_context() {
    let agent = AgentBuilder::new(Arc::new(BareModel)).build();
    let mut session = agent.session();
    let result = session.run("hello").await.unwrap();
    assert_eq!(session.context().usage.requests, 1);
    assert_eq!(
        result.usage.requests, 1,
        "one model request was made but the run's usage says {}",
        result.usage.requests
    );
}

// Regression: usage overflow from bad model output panicked.
#[tokio::test]
async fn huge_usage_from_a_model_does_not_panic() {
    let model = FunctionModel::new(|messages, _| {
        let mut response = if messages.len() < 3 {
            calls(&[("c", "plain", json!({}))])
        } else {
            ModelResponse::text("done")
        };
        response.usage.input_tokens = u64::MAX;
        Ok(response)
    });
    let log: Log = Arc::default();
    let agent = AgentBuilder::new(Arc::new(model))
        .tool(Arc::new(recording_tool("plain", &log)))
        .build();
    let outcome =
        futures::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(agent.run("go"))).await;
    assert!(
        outcome.is_ok(),
        "the run panicked on the model's reported usage"
    );
}

/// Autoref probe: `(&Probe::of(&value)).is_send()` is true exactly when
/// the value's concrete type is `Send`, without a compile error.
struct Probe<T>(std::marker::PhantomData<T>);

impl<T> Probe<T> {
    fn of(_: &T) -> Self {
        Self(std::marker::PhantomData)
    }
}

trait SendYes {
    fn is_send(&self) -> bool {
        true
    }
}

impl<T: Send> SendYes for Probe<T> {}

trait SendNo {
    fn is_send(&self) -> bool {
        false
    }
}

impl<T> SendNo for &Probe<T> {}

// Regression: run futures were not Send (no tokio::spawn, no axum handlers).
#[tokio::test]
#[allow(clippy::needless_borrow)] // the borrow drives the autoref probe
async fn run_futures_are_send() {
    let agent = AgentBuilder::new(Arc::new(TestModel::with_text("ok"))).build();
    let mut session = agent.session();

    let run = agent.run("hello");
    let agent_run_is_send = (&Probe::of(&run)).is_send();
    drop(run);

    let session_run = session.run("hello");
    let session_run_is_send = (&Probe::of(&session_run)).is_send();
    drop(session_run);

    let resume = session.resume_after_hitl(AgentHitlResults::new());
    let resume_is_send = (&Probe::of(&resume)).is_send();
    drop(resume);

    // Sanity check of the probe itself.
    let plain = async {};
    assert!((&Probe::of(&plain)).is_send());
    let rc = std::rc::Rc::new(());
    assert!(!(&Probe::of(&rc)).is_send());

    assert!(
        agent_run_is_send && session_run_is_send && resume_is_send,
        "Agent::run Send: {agent_run_is_send}, AgentSession::run Send: {session_run_is_send}, \
         resume_after_hitl Send: {resume_is_send}"
    );
}

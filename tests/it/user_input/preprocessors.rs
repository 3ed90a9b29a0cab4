//! User-input preprocessors of approval tools: overridden arguments, the
//! call id they see, input without a preprocessor, and panics.

use std::sync::Arc;

use serde_json::{json, Value};
use starweaver::agent::{AgentHitlUserInteraction, AgentRunStatus};
use starweaver::model::{FunctionModel, ModelMessage, ModelResponse};
use starweaver::{
    string_tool, AgentBuilder, TestModel, ToolContext, ToolResult, ToolUserInputPreprocessResult,
};

use crate::common::{
    call, calls, deploy_agent, deploy_script, deploy_tool, recording_tool, responses_so_far,
    tool_return, Log,
};

#[tokio::test]
async fn user_input_preprocessor_overrides_arguments() {
    let log: Log = Arc::default();
    let tool = deploy_tool(&log).with_user_input_preprocessor(
        |_ctx: ToolContext, user_input: Value| async move {
            Ok(ToolUserInputPreprocessResult::new()
                .with_override_arguments(user_input)
                .with_approval_metadata("edited", json!(true)))
        },
    );
    let model = Arc::new(TestModel::scripted(deploy_script("deployed")));
    let mut session = AgentBuilder::new(model.clone())
        .tool(Arc::new(tool))
        .build()
        .session();

    session.run("deploy").await.unwrap();
    let done = session
        .resume_after_hitl(
            AgentHitlUserInteraction::approved("d1").with_user_input(json!({"service": "web"})),
        )
        .await
        .unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    assert_eq!(*log.lock().unwrap(), vec![json!({"service": "web"})]);
    let part = tool_return(&done.messages, "d1");
    assert_eq!(part.content, json!({"deployed": "web"}));
    assert_eq!(part.metadata["approval"]["approved"], json!(true));
    assert_eq!(part.metadata["approval"]["edited"], json!(true));
}

#[tokio::test]
async fn user_input_without_preprocessor_is_recorded_on_the_approval() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted(deploy_script("deployed")));
    let mut session = deploy_agent(&model, &log).session();
    session.run("deploy").await.unwrap();
    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1").with_user_input(json!("lgtm")))
        .await
        .unwrap();
    assert_eq!(*log.lock().unwrap(), vec![json!({"service": "api"})]);
    let part = tool_return(&done.messages, "d1");
    assert_eq!(part.metadata["approval"]["user_input"], json!("lgtm"));
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: a user-input preprocessor did not see the call id.
#[tokio::test]
async fn preprocessor_sees_the_call_id() {
    let seen: Log = Arc::default();
    let seen_in_tool = seen.clone();
    let log: Log = Arc::default();
    let tool = recording_tool("write", &log)
        .with_approval_required(true)
        .with_user_input_preprocessor(move |ctx: ToolContext, _input: Value| {
            let seen = seen_in_tool.clone();
            async move {
                seen.lock().unwrap().push(json!(ctx.tool_call_id()));
                Ok(ToolUserInputPreprocessResult::new())
            }
        });
    let model = Arc::new(TestModel::scripted([
        calls(&[("w1", "write", json!({"n": 1}))]),
        ModelResponse::text("done"),
    ]));
    let mut session = AgentBuilder::new(model)
        .tool(Arc::new(tool))
        .build()
        .session();
    session.run("go").await.unwrap();
    session
        .resume_after_hitl(AgentHitlUserInteraction::approved("w1").with_user_input("edit"))
        .await
        .unwrap();
    assert_eq!(seen.lock().unwrap().as_slice(), &[json!("w1")]);
}

// Regression: user-input preprocessors saw an empty tool_call_id.
#[tokio::test]
async fn preprocessor_sees_the_call_id_before_its_future_starts() {
    use starweaver::agent::AgentHitlUserInteraction;
    use starweaver::model::ModelResponse;
    use starweaver::{TestModel, ToolUserInputPreprocessResult};

    let seen: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
    let tool = {
        let seen = seen.clone();
        string_tool(
            "write_file",
            Some("Write a reviewed file".to_string()),
            json!({"type": "object"}),
            |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
        )
        .with_approval_required(true)
        .with_user_input_preprocessor(move |ctx: ToolContext, user_input: Value| {
            seen.lock().unwrap().push(ctx.tool_call_id().to_string());
            async move {
                Ok(ToolUserInputPreprocessResult::new().with_override_arguments(user_input))
            }
        })
    };
    let model = Arc::new(TestModel::scripted(vec![
        ModelResponse::tool_calls([call("w1", "write_file", json!({"path": "a"}))]),
        ModelResponse::text("written"),
    ]));
    let mut session = AgentBuilder::new(model)
        .tool(Arc::new(tool))
        .build()
        .session();
    session.run("write").await.unwrap();
    session
        .resume_after_hitl(
            AgentHitlUserInteraction::approved("w1").with_user_input(json!({"path": "b"})),
        )
        .await
        .unwrap();
    // Spec: "ToolContext carries execution metadata"; the registry sets the
    // call id for execution, but not for preprocessing.
    assert_eq!(*seen.lock().unwrap(), vec!["w1".to_string()]);
}

// Regression: a preprocessor panicking before its future existed crashed the resume.
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

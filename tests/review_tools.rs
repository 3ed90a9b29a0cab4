//! Regression tests from the first review of the tool layer: each pins a
//! defect that was found and fixed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use starweaver::model::{ModelMessage, ModelResponse};
use starweaver::{string_tool, AgentBuilder, AgentContext, FunctionModel, ToolContext, ToolResult};

mod common;
use common::{call, open_schema, NamedDb};

// ---------------------------------------------------------------------------
// 17. User-input preprocessors see an empty tool_call_id
// ---------------------------------------------------------------------------

#[tokio::test]
async fn preprocessor_sees_the_call_id_before_its_future_starts() {
    use starweaver::model::ModelResponse;
    use starweaver::{AgentHitlUserInteraction, TestModel, ToolUserInputPreprocessResult};

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

// ---------------------------------------------------------------------------
// 18. Dropping a run (host timeout / select) wipes the caller's AgentContext
// ---------------------------------------------------------------------------

#[tokio::test]
async fn cancelled_run_keeps_the_host_context() {
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
        Ok(if messages.len() < 2 {
            ModelResponse::tool_calls([call("s1", "slow", json!({}))])
        } else {
            ModelResponse::text("done")
        })
    }));
    let agent = AgentBuilder::new(model).tool(slow).build();
    let mut context = AgentContext::default();
    context.notes.set("customer", "acme");
    context.insert_named_dependency("db", NamedDb);
    let outcome = tokio::time::timeout(
        Duration::from_millis(50),
        agent.run_with_context("go", &mut context),
    )
    .await;
    assert!(outcome.is_err(), "the run should have been cut off");
    // Design: "nothing is lost".
    assert_eq!(context.notes.get("customer"), Some("acme"));
    assert!(context.dependencies.contains_named("db"));
}

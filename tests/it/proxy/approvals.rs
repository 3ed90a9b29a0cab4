//! Approvals, clarifying questions and nested proxies: HITL requests of
//! wrapped tools become requests of `call_tool` that can be resumed.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::{json, Value};
use starweaver::agent::AgentHitlUserInteraction;
use starweaver::bundles::user_input_tools;
use starweaver::model::{FunctionModel, ModelMessage, ModelResponse, ToolReturnKind};
use starweaver::{
    string_tool, tool_proxy_toolset, AgentBuilder, DynToolset, StaticToolset, TestModel,
    ToolContext, ToolRegistry, ToolResult,
};

use crate::common::toolsets::assert_kind;
use crate::common::{
    call, calls, counter, one_question, recording_tool, responses_so_far, tool_returns, Log,
};

use super::proxy_inner;

#[tokio::test]
async fn proxy_call_tool_keeps_inner_approval_requirement() {
    let runs = counter();
    let registry =
        ToolRegistry::new().with_toolset(&tool_proxy_toolset(proxy_inner(runs.clone(), counter())));
    let request = call(
        "c1",
        "call_tool",
        json!({"name": "delete_branch", "arguments": {"branch": "old"}}),
    );
    let part = registry
        .execute_call(ToolContext::default(), &request)
        .await;
    assert_kind(&part, ToolReturnKind::ApprovalRequired);
    assert_eq!(runs.load(Ordering::SeqCst), 0);

    let part = registry
        .execute_call(ToolContext::default().with_approved(true), &request)
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    assert_eq!(part.content, json!({"deleted": "old"}));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: an approval-gated tool behind a tool proxy could never run.
#[tokio::test]
async fn approved_call_through_a_tool_proxy_runs_the_tool() {
    let log: Log = Arc::default();
    let ops = starweaver::StaticToolset::new("ops").with_tool(Arc::new(
        recording_tool("deploy", &log).with_approval_required(true),
    ));
    let proxy = starweaver::tool_proxy_toolset(vec![ops]);
    let model = Arc::new(TestModel::scripted([
        calls(&[(
            "p1",
            "call_tool",
            json!({"name": "deploy", "arguments": {"n": 7}}),
        )]),
        ModelResponse::text("done"),
    ]));
    let mut session = AgentBuilder::new(model).toolset(&proxy).build().session();
    let waiting = session.run("deploy").await.unwrap();
    assert!(waiting.is_waiting(), "{waiting:#?}");
    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("p1"))
        .await
        .unwrap();
    let part = &tool_returns(&done.messages)[0];
    assert_eq!(
        log.lock().unwrap().len(),
        1,
        "the approved deploy never ran; the model got {}",
        part.content
    );
    assert!(part.is_success(), "{part:#?}");
}

// Regression: approvals of tools behind the proxy could not be resumed.
#[tokio::test]
async fn proxied_approval_round_trip() {
    use starweaver::agent::{AgentHitlUserInteraction, AgentRunStatus};
    use starweaver::model::ModelResponse;
    use starweaver::TestModel;

    let log: Arc<std::sync::Mutex<Vec<Value>>> = Arc::default();
    let deploy = {
        let log = log.clone();
        Arc::new(
            string_tool(
                "deploy",
                Some("Deploys a service".to_string()),
                json!({"type": "object", "properties": {"service": {"type": "string"}}, "required": ["service"]}),
                move |_ctx: ToolContext, args: Value| {
                    let log = log.clone();
                    async move {
                        log.lock().unwrap().push(args.clone());
                        Ok(ToolResult::new(json!({"deployed": args["service"]})))
                    }
                },
            )
            .with_approval_required(true),
        )
    };
    let proxy = tool_proxy_toolset(vec![
        Arc::new(StaticToolset::new("ops").with_tool(deploy)) as DynToolset
    ]);
    let model = Arc::new(TestModel::scripted(vec![
        ModelResponse::tool_calls([call(
            "p1",
            "call_tool",
            json!({"name": "deploy", "arguments": {"service": "api"}}),
        )]),
        ModelResponse::text("deployed"),
    ]));
    let mut session = AgentBuilder::new(model).toolset(&proxy).build().session();
    let waiting = session.run("deploy the api").await.unwrap();
    assert_eq!(waiting.status, AgentRunStatus::Waiting);
    // tool-runtime.md: "wrapped tools keep their ... approvals".
    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("p1"))
        .await;
    assert!(done.is_ok(), "{:?}", done.err());
    assert_eq!(*log.lock().unwrap(), vec![json!({"service": "api"})]);
}

// Regression: the proxy dropped the wrapped tool's user-input preprocessor.
#[tokio::test]
async fn proxied_clarifying_question_returns_the_users_answer() {
    let proxy = tool_proxy_toolset(vec![user_input_tools()]);
    let model = Arc::new(FunctionModel::new(|messages: &[ModelMessage], _| {
        Ok(match responses_so_far(messages) {
            0 => ModelResponse::tool_calls([call(
                "ask",
                "call_tool",
                json!({"name": "ask_user_question", "arguments": {"questions": one_question()}}),
            )]),
            _ => ModelResponse::text("ok"),
        })
    }));
    let mut session = AgentBuilder::new(model).toolset(&proxy).build().session();
    let waiting = session.run("write it").await.unwrap();
    assert!(waiting.is_waiting(), "{waiting:#?}");
    assert_eq!(waiting.pending[0].request_kind(), "clarifying_questions");
    // tools.md: "Resolve the pending call with
    // AgentHitlUserInteraction::approved(tool_call_id).with_user_input(...)".
    let done = session
        .resume_after_hitl(
            AgentHitlUserInteraction::approved("ask")
                .with_user_input(json!({"answers": {"Which language?": "Rust"}})),
        )
        .await
        .unwrap();
    let part = &tool_returns(&done.messages)[0];
    // "The tool preprocessor stores normalized answers in approval
    // metadata, preserves the original questions, and returns both to the
    // model after resume_after_hitl."
    assert_eq!(
        part.metadata.get("answered"),
        Some(&json!(true)),
        "the user's answer never reached the model: {part:#?}"
    );
    assert!(
        part.content.to_string().contains("Rust"),
        "{}",
        part.content
    );
}

// Regression: nested proxies paired the innermost tool's name with the middle call's arguments.
#[tokio::test]
async fn nested_proxy_approval_names_tool_and_arguments_consistently() {
    let log: Log = Arc::default();
    let ops = StaticToolset::new("ops").with_tool(Arc::new(
        recording_tool("deploy", &log).with_approval_required(true),
    ));
    let inner = tool_proxy_toolset(vec![ops]);
    let outer = tool_proxy_toolset(vec![inner]);
    let registry = ToolRegistry::new().with_toolset(&outer);
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "c",
                "call_tool",
                json!({"name": "call_tool", "arguments": {"name": "deploy", "arguments": {"n": 7}}}),
            ),
        )
        .await;
    assert_eq!(part.kind, ToolReturnKind::ApprovalRequired);
    // tool-runtime.md: "An approval or deferral inside the proxy becomes a
    // request of call_tool itself, with the wrapped tool's name and
    // arguments as inner_tool / inner_arguments."
    let metadata = &part.metadata;
    assert_eq!(metadata["inner_tool"], json!("deploy"));
    assert_eq!(
        metadata["inner_arguments"],
        json!({"n": 7}),
        "a reviewer is shown tool `deploy` with arguments {}",
        metadata["inner_arguments"]
    );
}

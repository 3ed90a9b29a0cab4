//! Deferred calls: results handed back by a worker, invalid arguments,
//! deferred calls that also need approval, and round trips across export
//! and restore.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use starweaver::agent::{
    Agent, AgentHitlRequestKind, AgentHitlResults, AgentHitlUserInteraction, AgentRunStatus,
    AgentSessionState,
};
use starweaver::model::{ModelResponse, RequestPart};
use starweaver::tools::DeferredToolset;
use starweaver::{typed_tool, AgentBuilder, AgentSession, TestModel, ToolContext, ToolResult};

use crate::common::{call_response, calls, last_request_parts, recording_tool, tool_return, Log};

#[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
struct RenderArgs {
    /// Scene to render.
    scene: String,
}

fn jobs_agent(model: &Arc<TestModel>, ran: &Log) -> Agent {
    let ran = ran.clone();
    let render = typed_tool::<RenderArgs, _, _>(
        "render_video",
        Some("Render a video scene".to_string()),
        move |_ctx: ToolContext, args: RenderArgs| {
            let ran = ran.clone();
            async move {
                ran.lock().unwrap().push(json!(args.scene));
                Ok(ToolResult::new(json!({"inline": true})))
            }
        },
    );
    AgentBuilder::new(model.clone())
        .toolset(&Arc::new(
            DeferredToolset::new("jobs").with_tool(Arc::new(render)),
        ))
        .build()
}

#[tokio::test]
async fn deferred_round_trip_across_export_and_restore() {
    let ran: Log = Arc::default();
    let first_model = Arc::new(TestModel::scripted(vec![
        call_response("r1", "render_video", json!({"scene": "intro"})),
        ModelResponse::text("unused by the first process"),
    ]));
    let mut session = jobs_agent(&first_model, &ran).session();
    session.context_mut().notes.set("job_owner", "alice");

    let waiting = session.run("render the intro").await.unwrap();
    assert_eq!(waiting.status, AgentRunStatus::Waiting);
    assert_eq!(waiting.pending.len(), 1);
    let request = &waiting.pending[0];
    assert_eq!(request.tool_call_id, "r1");
    assert_eq!(request.tool_name, "render_video");
    assert_eq!(request.kind, AgentHitlRequestKind::Deferred);
    assert_eq!(request.request_kind(), "deferred_call");
    assert_eq!(request.arguments, json!({"scene": "intro"}));

    let state = session.export_state();
    assert_eq!(state.version, AgentSessionState::VERSION);
    assert_eq!(state.pending(), waiting.pending.as_slice());
    let json = state.to_json().unwrap();
    drop(session);
    drop(first_model);

    // A fresh process: same agent shape, new model whose script starts at
    // the post-resume response.
    let second_model = Arc::new(TestModel::scripted(vec![ModelResponse::text(
        "video ready",
    )]));
    let restored_state = AgentSessionState::from_json(&json).unwrap();
    let mut restored = AgentSession::restore(jobs_agent(&second_model, &ran), restored_state);
    assert!(restored.is_waiting());
    assert_eq!(restored.pending(), waiting.pending.as_slice());
    assert_eq!(restored.context().notes.get("job_owner"), Some("alice"));

    let done = restored
        .resume_after_hitl(AgentHitlResults::deferred_result(
            "r1",
            json!({"url": "https://cdn.example/intro.mp4"}),
        ))
        .await
        .unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    assert_eq!(done.output, "video ready");
    assert!(!restored.is_waiting());
    assert!(
        ran.lock().unwrap().is_empty(),
        "a deferred tool's own body never runs"
    );

    let part = tool_return(&done.messages, "r1");
    assert!(part.is_success(), "{part:?}");
    assert_eq!(part.tool_name, "render_video");
    assert_eq!(
        part.content,
        json!({"url": "https://cdn.example/intro.mp4"})
    );
    let requests = second_model.requests();
    assert_eq!(requests.len(), 1);
    let parts = last_request_parts(&requests[0]);
    assert!(matches!(
        &parts[..],
        [RequestPart::ToolReturn(sent)] if sent.tool_call_id == "r1" && sent.content == part.content
    ));
    // The whole conversation came along: prompt, call, return, answer.
    assert_eq!(done.messages.len(), 4);
    assert_eq!(restored.context().notes.get("job_owner"), Some("alice"));
}

#[tokio::test]
async fn deferred_call_with_invalid_arguments_is_a_retry_not_a_wait() {
    let ran: Log = Arc::default();
    let model = Arc::new(TestModel::scripted(vec![
        call_response("r1", "render_video", json!({"scen": "typo"})),
        ModelResponse::text("fixed"),
    ]));
    let mut session = jobs_agent(&model, &ran).session();
    let result = session.run("render").await.unwrap();
    assert_eq!(result.status, AgentRunStatus::Completed);
    let parts = last_request_parts(&model.requests()[1]);
    assert!(matches!(
        &parts[..],
        [RequestPart::RetryPrompt(prompt)] if prompt.tool_call_id.as_deref() == Some("r1")
    ));
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: a deferred tool that also needs approval never completed.
#[tokio::test]
async fn approved_deferred_call_completes_with_its_result() {
    let log: Log = Arc::default();
    let jobs = DeferredToolset::new("jobs").with_tool(Arc::new(
        recording_tool("render", &log).with_approval_required(true),
    ));
    let model = Arc::new(TestModel::scripted([
        calls(&[("r1", "render", json!({"n": 1}))]),
        ModelResponse::text("rendered"),
    ]));
    let mut session = AgentBuilder::new(model).toolset(&jobs).build().session();
    let first = session.run("render").await.unwrap();
    assert!(first.is_waiting());
    let mut result = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("r1"))
        .await
        .unwrap();
    let mut rounds = 0;
    while result.is_waiting() && rounds < 4 {
        rounds += 1;
        let pending = result.pending[0].clone();
        let answer = match pending.kind {
            starweaver::agent::AgentHitlRequestKind::Approval => {
                AgentHitlResults::interaction(AgentHitlUserInteraction::approved("r1"))
            }
            starweaver::agent::AgentHitlRequestKind::Deferred => {
                AgentHitlResults::deferred_result("r1", json!({"video": "ok"}))
            }
        };
        result = session.resume_after_hitl(answer).await.unwrap();
    }
    assert_eq!(
        result.output, "rendered",
        "after approval and the deferred result the run still waits: {:?}",
        result.pending
    );
    assert!(rounds <= 1, "needed {rounds} extra rounds");
}

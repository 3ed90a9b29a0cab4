//! Approval-gated calls: approved, denied, several at once, with plain
//! calls in the same batch, and their ids and arguments.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use starweaver::agent::{AgentHitlRequestKind, AgentHitlUserInteraction, AgentRunStatus};
use starweaver::model::{FunctionModel, ModelMessage, ModelResponse, RequestPart, ToolCallPart};
use starweaver::tools::{BoxFuture, ToolExecutionHook, ToolHookInput};
use starweaver::{
    string_tool, AgentBuilder, AgentError, TestModel, ToolContext, ToolError, ToolRegistry,
    ToolResult,
};

use crate::common::{
    call, call_response, calls, deploy_agent, deploy_script, deploy_tool, last_request_parts,
    open_schema, recording_tool, responses_so_far, tool_return, tool_returns, Log,
};

// ---------------------------------------------------------------------------
// Approvals
// ---------------------------------------------------------------------------

#[tokio::test]
async fn approved_call_runs_after_resume() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted(deploy_script("deployed")));
    let mut session = deploy_agent(&model, &log).session();

    let waiting = session.run("deploy the api").await.unwrap();
    assert_eq!(waiting.status, AgentRunStatus::Waiting);
    assert!(waiting.is_waiting());
    assert_eq!(waiting.output, "");
    assert_eq!(waiting.pending.len(), 1);
    let request = &waiting.pending[0];
    assert_eq!(request.tool_call_id, "d1");
    assert_eq!(request.tool_name, "deploy");
    assert_eq!(request.kind, AgentHitlRequestKind::Approval);
    assert_eq!(request.request_kind(), "tool_approval");
    assert_eq!(request.arguments, json!({"service": "api"}));
    assert!(log.lock().unwrap().is_empty(), "the tool must not run yet");
    assert!(session.is_waiting());
    assert_eq!(session.pending(), waiting.pending.as_slice());
    assert_eq!(model.requests().len(), 1);

    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    assert_eq!(done.output, "deployed");
    assert!(done.pending.is_empty());
    assert!(!session.is_waiting());
    assert_eq!(*log.lock().unwrap(), vec![json!({"service": "api"})]);

    let part = tool_return(&done.messages, "d1");
    assert!(part.is_success(), "{part:?}");
    assert_eq!(part.content, json!({"deployed": "api"}));
    assert_eq!(part.metadata["approval"]["approved"], json!(true));
    // Exactly one return for the call, and the model saw it.
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert!(matches!(
        &last_request_parts(&requests[1])[..],
        [RequestPart::ToolReturn(sent)] if sent.tool_call_id == "d1" && sent.content == part.content
    ));
}

#[tokio::test]
async fn denied_call_never_runs_and_the_model_is_told() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted(deploy_script("not deployed")));
    let mut session = deploy_agent(&model, &log).session();

    let waiting = session.run("deploy the api").await.unwrap();
    assert!(waiting.is_waiting());
    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::denied("d1").with_reason("no"))
        .await
        .unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    assert_eq!(done.output, "not deployed");
    assert!(log.lock().unwrap().is_empty());

    let part = tool_return(&done.messages, "d1");
    assert_eq!(part.metadata["approval"]["approved"], json!(false));
    let message = part.content["message"].as_str().unwrap();
    assert!(message.contains("denied"), "{message}");
    assert!(message.contains("no"), "{message}");
    let requests = model.requests();
    assert!(matches!(
        &last_request_parts(&requests[1])[..],
        [RequestPart::ToolReturn(sent)] if sent.tool_call_id == "d1" && sent.content["message"] == json!(message)
    ));
}

#[tokio::test]
async fn approval_and_plain_call_in_one_response() {
    // The plain call runs at once; its return is kept while the run waits
    // and both returns reach the model in model order after the resume.
    let log: Log = Arc::default();
    let plain_log: Log = Arc::default();
    let plain_runs = plain_log.clone();
    let plain = string_tool(
        "status",
        Some("Reads status".to_string()),
        open_schema(),
        move |_ctx: ToolContext, _args: Value| {
            let log = plain_runs.clone();
            async move {
                log.lock().unwrap().push(json!("ran"));
                Ok(ToolResult::new(json!({"status": "green"})))
            }
        },
    );
    let model = Arc::new(TestModel::scripted(vec![
        ModelResponse::tool_calls([
            ToolCallPart::new("d1", "deploy", json!({"service": "api"})),
            ToolCallPart::new("s1", "status", json!({})),
        ]),
        ModelResponse::text("both done"),
    ]));
    let mut session = AgentBuilder::new(model.clone())
        .tool(Arc::new(deploy_tool(&log)))
        .tool(Arc::new(plain))
        .build()
        .session();
    let waiting = session.run("go").await.unwrap();
    assert_eq!(waiting.pending.len(), 1);
    assert_eq!(waiting.pending[0].tool_call_id, "d1");
    assert_eq!(plain_log.lock().unwrap().len(), 1);

    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap();
    assert_eq!(done.output, "both done");
    assert_eq!(plain_log.lock().unwrap().len(), 1, "status must not rerun");
    let parts = last_request_parts(&model.requests()[1]);
    let ids: Vec<&str> = parts
        .iter()
        .map(|part| match part {
            RequestPart::ToolReturn(part) => part.tool_call_id.as_str(),
            other => panic!("unexpected part {other:?}"),
        })
        .collect();
    assert_eq!(ids, ["d1", "s1"]);
}

// ---------------------------------------------------------------------------
// More approval shapes
// ---------------------------------------------------------------------------

#[tokio::test]
async fn several_approvals_are_answered_together() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted(vec![
        ModelResponse::tool_calls([
            ToolCallPart::new("d1", "deploy", json!({"service": "api"})),
            ToolCallPart::new("d2", "deploy", json!({"service": "db"})),
        ]),
        ModelResponse::text("partly deployed"),
    ]));
    let mut session = deploy_agent(&model, &log).session();
    let waiting = session.run("deploy both").await.unwrap();
    let ids: Vec<&str> = waiting
        .pending
        .iter()
        .map(|request| request.tool_call_id.as_str())
        .collect();
    assert_eq!(ids, ["d1", "d2"]);

    // Answering only one of them is refused.
    let error = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, AgentError::MissingHitlResult { tool_call_id } if tool_call_id == "d2"),
        "{error:?}"
    );
    assert_eq!(session.pending().len(), 2);

    let done = session
        .resume_after_hitl(vec![
            AgentHitlUserInteraction::denied("d2"),
            AgentHitlUserInteraction::approved("d1"),
        ])
        .await
        .unwrap();
    assert_eq!(done.output, "partly deployed");
    assert_eq!(*log.lock().unwrap(), vec![json!({"service": "api"})]);
    let parts = last_request_parts(&model.requests()[1]);
    let summary: Vec<(String, Value)> = parts
        .iter()
        .map(|part| match part {
            RequestPart::ToolReturn(part) => (
                part.tool_call_id.to_string(),
                part.metadata["approval"]["approved"].clone(),
            ),
            other => panic!("unexpected part {other:?}"),
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            ("d1".to_string(), json!(true)),
            ("d2".to_string(), json!(false))
        ]
    );
}

#[tokio::test]
async fn run_scoped_approval_tool_and_params_survive_the_wait() {
    let log: Log = Arc::default();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen_in_tool = seen.clone();
    let tool = string_tool(
        "scoped_deploy",
        Some("Run-scoped deploy".to_string()),
        open_schema(),
        move |ctx: ToolContext, _args: Value| {
            let seen = seen_in_tool.clone();
            async move {
                let handle = ctx
                    .dependency::<starweaver::AgentContextHandle>()
                    .ok_or_else(|| ToolError::user_error("no handle"))?;
                seen.lock()
                    .unwrap()
                    .push(handle.read(|context| context.metadata.get("tenant").cloned()));
                Ok(ToolResult::new(json!({"ok": true})))
            }
        },
    )
    .with_approval_required(true);
    let model = Arc::new(TestModel::scripted(vec![
        call_response("s1", "scoped_deploy", json!({})),
        ModelResponse::text("done"),
    ]));
    let mut session = deploy_agent(&model, &log).session();
    let mut params = starweaver::tools::JsonMap::new();
    params.insert("tenant".to_string(), json!("acme"));
    let waiting = session
        .run_with_options(
            "go",
            starweaver::AgentRunOptions::new()
                .tool(Arc::new(tool))
                .params(params),
        )
        .await
        .unwrap();
    assert!(waiting.is_waiting());
    assert!(!session.context().metadata.contains_key("tenant"));

    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("s1"))
        .await
        .unwrap();
    assert_eq!(done.output, "done");
    assert_eq!(*seen.lock().unwrap(), vec![Some(json!("acme"))]);
    assert_eq!(
        tool_return(&done.messages, "s1").content,
        json!({"ok": true})
    );
    assert!(!session.context().metadata.contains_key("tenant"));
    // The resumed request still offered the run-scoped tool.
    let names: Vec<String> = model.requests()[1]
        .parameters
        .tools
        .iter()
        .map(|tool| tool.name.clone())
        .collect();
    assert!(names.contains(&"scoped_deploy".to_string()), "{names:?}");
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: with duplicate tool-call ids, resumed results landed on the wrong call.
#[tokio::test]
async fn duplicate_call_ids_keep_every_return_on_its_own_call() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted([
        calls(&[
            ("dup", "plain", json!({"n": 1})),
            ("dup", "deploy", json!({"n": 2})),
        ]),
        ModelResponse::text("done"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(recording_tool("plain", &log)))
        .tool(Arc::new(
            recording_tool("deploy", &log).with_approval_required(true),
        ))
        .build();
    let mut session = agent.session();
    let waiting = session.run("go").await.unwrap();
    assert_eq!(waiting.status, AgentRunStatus::Waiting);
    assert_eq!(waiting.pending[0].tool_name, "deploy");
    // Duplicate ids are made distinct when the response arrives; the
    // pending request names the id to answer.
    let pending_id = waiting.pending[0].tool_call_id.clone();
    assert_ne!(pending_id, "dup");

    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved(pending_id))
        .await
        .unwrap();
    assert_eq!(done.output, "done");
    // The approved tool must have run (it is the one the human approved).
    let ran: Vec<String> = log
        .lock()
        .unwrap()
        .iter()
        .map(|entry| entry["tool"].as_str().unwrap().to_string())
        .collect();
    assert!(
        ran.contains(&"deploy".to_string()),
        "the approved `deploy` call never ran; tools that ran: {ran:?}"
    );
    // Both calls of the batch must have a return in the history.
    let returns = tool_returns(session.messages());
    let names: Vec<&str> = returns.iter().map(|part| part.tool_name.as_str()).collect();
    assert_eq!(names, vec!["plain", "deploy"], "returns: {returns:#?}");
}

struct Increment;

impl ToolExecutionHook for Increment {
    fn before_execute<'a>(
        &'a self,
        input: ToolHookInput<'a>,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        let n = input.arguments["n"].as_i64().unwrap_or(0);
        input.arguments["n"] = json!(n + 1);
        Box::pin(async { Ok(()) })
    }
}

// Regression: input hooks ran twice on approved calls.
#[tokio::test]
async fn approved_call_runs_with_the_approved_arguments() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted([
        calls(&[("d1", "deploy", json!({"n": 1}))]),
        ModelResponse::text("done"),
    ]));
    let registry = ToolRegistry::new()
        .with_execution_hook(Arc::new(Increment))
        .with_tool(Arc::new(
            recording_tool("deploy", &log).with_approval_required(true),
        ));
    let agent = AgentBuilder::new(model.clone())
        .tool_registry(registry)
        .build();
    let mut session = agent.session();
    let waiting = session.run("go").await.unwrap();
    let approved_arguments = waiting.pending[0].arguments.clone();
    session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap();
    let ran = log.lock().unwrap()[0]["args"].clone();
    assert_eq!(
        ran, approved_arguments,
        "the human approved {approved_arguments} but the tool ran with {ran}"
    );
}

// Regression: a batch past its retry budget still paused for approval, ran, then rolled back.
#[tokio::test]
async fn exhausted_retry_budget_fails_before_waiting_for_approval() {
    let log: Log = Arc::default();
    let bad = string_tool(
        "bad",
        Some("Always asks for a retry".to_string()),
        open_schema(),
        |_ctx: ToolContext, _args: Value| async move {
            Err::<ToolResult, _>(ToolError::model_retry("wrong"))
        },
    )
    .with_max_retries(0);
    let model = Arc::new(TestModel::scripted([
        calls(&[("b1", "bad", json!({})), ("d1", "deploy", json!({"n": 1}))]),
        ModelResponse::text("done"),
    ]));
    let mut session = AgentBuilder::new(model)
        .tool(Arc::new(bad))
        .tool(Arc::new(
            recording_tool("deploy", &log).with_approval_required(true),
        ))
        .build()
        .session();
    let first = session.run("go").await;
    if let Ok(result) = &first {
        assert!(result.is_waiting());
        let resumed = session
            .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
            .await;
        assert!(resumed.is_err());
        panic!(
            "the run paused for approval although `bad` had already exhausted its budget; \
             after approval `deploy` ran {} time(s) and the run failed anyway, erasing it from history",
            log.lock().unwrap().len()
        );
    }
    assert!(matches!(
        first,
        Err(starweaver::AgentError::ToolRetriesExhausted { .. })
    ));
}

// Regression: an approval leaked to a later call that reused the approved call's id.
#[tokio::test]
async fn approval_does_not_carry_over_to_a_later_call_with_the_same_id() {
    let log: Log = Arc::default();
    // Many providers number calls per response ("call_0" every turn).
    let model = Arc::new(FunctionModel::new(|messages: &[ModelMessage], _| {
        Ok(match responses_so_far(messages) {
            0 => ModelResponse::tool_calls([call("call_0", "deploy", json!({"n": 1}))]),
            1 => ModelResponse::tool_calls([call("call_0", "deploy", json!({"n": 666}))]),
            _ => ModelResponse::text("done"),
        })
    }));
    let mut session = AgentBuilder::new(model)
        .tool(Arc::new(
            recording_tool("deploy", &log).with_approval_required(true),
        ))
        .build()
        .session();
    let first = session.run("deploy").await.unwrap();
    assert_eq!(first.status, AgentRunStatus::Waiting);
    let after = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("call_0"))
        .await
        .unwrap();
    // agent-runtime.md: "its approval holds for the rest of the run" -- for
    // *that* call. A new call (new step, other arguments) must ask again.
    let ran: Vec<Value> = log
        .lock()
        .unwrap()
        .iter()
        .map(|e| e["args"].clone())
        .collect();
    assert_eq!(
        after.status,
        AgentRunStatus::Waiting,
        "the second, never-approved deploy ran without approval; deploy ran with {ran:?}"
    );
    assert_eq!(ran, vec![json!({"n": 1})]);
}

//! Resuming paused runs: resume errors, export and restore of a waiting
//! session, and restoring onto an agent that lacks the pending tool.

use std::sync::Arc;

use serde_json::json;
use starweaver::agent::{
    AgentHitlResults, AgentHitlUserInteraction, AgentRunStatus, AgentSessionState,
};
use starweaver::model::ModelResponse;
use starweaver::{AgentBuilder, AgentError, AgentSession, TestModel};

use crate::common::{
    call_response, deploy_agent, deploy_script, echo_deploy_agent, tool_return, Log,
};

// ---------------------------------------------------------------------------
// Resume errors
// ---------------------------------------------------------------------------

#[tokio::test]
async fn resume_errors_leave_the_session_waiting() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted(deploy_script("deployed")));
    let mut session = deploy_agent(&model, &log).session();

    // Not waiting yet.
    let error = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap_err();
    assert!(matches!(error, AgentError::NotWaiting), "{error:?}");

    let waiting = session.run("deploy").await.unwrap();
    let pending = waiting.pending.clone();
    let messages = session.messages().to_vec();

    // An answer for a call that is not pending.
    let error = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("nope"))
        .await
        .unwrap_err();
    match &error {
        AgentError::UnknownHitlResult {
            tool_call_id,
            pending,
        } => {
            assert_eq!(tool_call_id, "nope");
            assert!(pending.contains("d1"), "{pending}");
        }
        other => panic!("expected UnknownHitlResult, got {other:?}"),
    }
    assert!(session.is_waiting());
    assert_eq!(session.pending(), pending.as_slice());

    // No answer at all.
    let error = session
        .resume_after_hitl(AgentHitlResults::new())
        .await
        .unwrap_err();
    assert!(
        matches!(&error, AgentError::MissingHitlResult { tool_call_id } if tool_call_id == "d1"),
        "{error:?}"
    );
    assert!(session.is_waiting());
    assert_eq!(session.pending(), pending.as_slice());

    // A deferred result for an approval is not an answer for it either.
    let error = session
        .resume_after_hitl(AgentHitlResults::deferred_result("d1", json!({})))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, AgentError::MissingHitlResult { tool_call_id } if tool_call_id == "d1"),
        "{error:?}"
    );

    // A new prompt while waiting.
    let error = session.run("something else").await.unwrap_err();
    assert!(
        matches!(error, AgentError::SessionWaiting { pending: 1 }),
        "{error:?}"
    );
    assert!(session.is_waiting());
    assert_eq!(session.pending(), pending.as_slice());
    assert_eq!(session.messages(), messages.as_slice());
    assert!(log.lock().unwrap().is_empty());
    assert_eq!(model.requests().len(), 1);

    // The session still resumes normally afterwards.
    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    assert_eq!(log.lock().unwrap().len(), 1);

    // And is not waiting any more.
    let error = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap_err();
    assert!(matches!(error, AgentError::NotWaiting), "{error:?}");
}

// ---------------------------------------------------------------------------
// Export and restore of a waiting session
// ---------------------------------------------------------------------------

#[tokio::test]
async fn approval_round_trip_across_export_and_restore() {
    let first_log: Log = Arc::default();
    let first_model = Arc::new(TestModel::scripted(deploy_script("unused")));
    let mut session = deploy_agent(&first_model, &first_log).session();
    session.context_mut().notes.set("ticket", "OPS-1");
    let waiting = session.run("deploy").await.unwrap();
    assert_eq!(waiting.pending[0].request_kind(), "tool_approval");
    let json = session.export_state().to_json().unwrap();
    drop(session);

    let second_log: Log = Arc::default();
    let second_model = Arc::new(TestModel::scripted(vec![ModelResponse::text("deployed")]));
    let mut restored = AgentSession::restore(
        deploy_agent(&second_model, &second_log),
        AgentSessionState::from_json(&json).unwrap(),
    );
    assert!(restored.is_waiting());
    assert_eq!(restored.pending(), waiting.pending.as_slice());

    // Resume errors behave the same on a restored session.
    assert!(matches!(
        restored
            .resume_after_hitl(AgentHitlUserInteraction::approved("other"))
            .await,
        Err(AgentError::UnknownHitlResult { .. })
    ));
    assert!(restored.is_waiting());

    let done = restored
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    assert_eq!(done.output, "deployed");
    assert!(first_log.lock().unwrap().is_empty());
    assert_eq!(*second_log.lock().unwrap(), vec![json!({"service": "api"})]);
    let part = tool_return(&done.messages, "d1");
    assert_eq!(part.content, json!({"deployed": "api"}));
    assert_eq!(part.metadata["approval"]["approved"], json!(true));
    assert_eq!(restored.context().notes.get("ticket"), Some("OPS-1"));
    assert_eq!(second_model.requests().len(), 1);
}

// ---------------------------------------------------------------------------
// Restoring onto another agent, failing resumes
// ---------------------------------------------------------------------------

#[tokio::test]
async fn restoring_onto_an_agent_without_the_tool_names_the_missing_tool() {
    let log: Log = Arc::default();
    let first_model = Arc::new(TestModel::scripted(deploy_script("unused")));
    let mut session = deploy_agent(&first_model, &log).session();
    session.run("deploy").await.unwrap();
    let json = session.export_state().to_json().unwrap();

    let second_model = Arc::new(TestModel::scripted(vec![ModelResponse::text("gone")]));
    let mut restored = AgentSession::restore(
        AgentBuilder::new(second_model.clone()).build(),
        AgentSessionState::from_json(&json).unwrap(),
    );
    let error = restored
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, AgentError::MissingTool { tool_call_id, tool } if tool_call_id == "d1" && tool == "deploy"),
        "{error:?}"
    );
    // Nothing ran, the model was not asked, and the session still waits.
    assert!(log.lock().unwrap().is_empty());
    assert!(second_model.requests().is_empty());
    assert!(restored.is_waiting());
}

#[tokio::test]
async fn a_failing_resume_ends_the_paused_run_and_keeps_it_marked_failed() {
    let log: Log = Arc::default();
    // No response scripted after the approval.
    let model = Arc::new(TestModel::scripted(vec![call_response(
        "d1",
        "deploy",
        json!({"service": "api"}),
    )]));
    let mut session = deploy_agent(&model, &log).session();
    session.run("deploy").await.unwrap();
    assert!(session.is_waiting());
    let error = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap_err();
    assert!(matches!(error, AgentError::Model(_)), "{error:?}");
    assert!(!session.is_waiting());
    // The whole paused run stays: prompt, call and the approved return.
    assert_eq!(session.messages().len(), 3);
    assert!(tool_return(session.messages(), "d1").is_success());
    assert_eq!(session.failed_run().unwrap().first_message, 0);
    assert_eq!(log.lock().unwrap().len(), 1);
    assert!(matches!(
        session
            .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
            .await,
        Err(AgentError::NotWaiting)
    ));
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: resuming onto an agent that lacks the pending tool did not name the tool.
#[tokio::test]
async fn resume_of_a_tool_the_restored_agent_lacks_names_the_missing_tool() {
    let model = Arc::new(TestModel::scripted(vec![
        call_response("d1", "deploy", json!({"service": "web"})),
        ModelResponse::text("deployed"),
    ]));
    let mut session = echo_deploy_agent(model.clone()).session();
    session.run("deploy").await.unwrap();
    let json = session.export_state().to_json().unwrap();
    // The new process builds the agent without `deploy`.
    let bare = || AgentBuilder::new(model.clone()).build();

    // With user input: "the input ... was rejected ...; ask the user
    // again and resume" sends the host to the user, who cannot fix it.
    let mut restored = AgentSession::restore(bare(), AgentSessionState::from_json(&json).unwrap());
    let error = restored
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1").with_user_input(json!("ok")))
        .await
        .unwrap_err();
    assert!(
        !matches!(error, AgentError::InvalidHitlInput { .. }),
        "reported as rejected user input: {error}"
    );

    // Without user input: the approved call silently never runs; the
    // model is told the tool it called does not exist and the run goes on.
    let mut restored = AgentSession::restore(bare(), AgentSessionState::from_json(&json).unwrap());
    let outcome = restored
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await;
    assert!(
        outcome.is_err(),
        "the approved `deploy` was dropped and the run completed: {:?}",
        outcome.map(|result| crate::common::tool_returns(&result.messages))
    );
}

// ---------------------------------------------------------------------------
// Cancelling a restored session's resume
// ---------------------------------------------------------------------------

/// An agent whose approval-gated `slow` tool says when it starts, then runs until cancelled.
fn slow_agent(
    model: Arc<TestModel>,
    started: Arc<tokio::sync::Notify>,
) -> starweaver::agent::Agent {
    let slow = starweaver::string_tool(
        "slow",
        Some("Takes its time".to_string()),
        json!({"type": "object", "properties": {}}),
        move |_ctx, _args| {
            let started = started.clone();
            async move {
                started.notify_one();
                tokio::time::sleep(std::time::Duration::from_secs(600)).await;
                Ok(starweaver::ToolResult::new(json!("finished")))
            }
        },
    )
    .with_approval_required(true);
    AgentBuilder::new(model).tool(Arc::new(slow)).build()
}

// Regression: a restored session's resume ran with no options, so no token could cancel it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restored_resume_is_cancelled_through_its_options() {
    let started = Arc::new(tokio::sync::Notify::new());
    let model = Arc::new(TestModel::scripted([
        call_response("s1", "slow", json!({})),
        starweaver::model::ModelResponse::text("never asked"),
    ]));
    let mut first = slow_agent(model.clone(), started.clone()).session();
    assert!(first.run("go").await.unwrap().is_waiting());
    let mut session = crate::common::round_trip(&first, slow_agent(model.clone(), started.clone()));
    let history = session.messages().to_vec();

    let token = tokio_util::sync::CancellationToken::new();
    let canceller = token.clone();
    tokio::spawn(async move {
        started.notified().await;
        canceller.cancel();
    });
    let mut kinds = Vec::new();
    let mut sink = |record: &starweaver::agent::AgentStreamRecord| kinds.push(record.event.clone());
    let resumed = tokio::time::timeout(
        std::time::Duration::from_secs(120),
        session.resume_with_options(
            AgentHitlUserInteraction::approved("s1"),
            starweaver::AgentRunOptions::new().cancellation(token),
            &mut sink,
        ),
    )
    .await
    .expect("the token ends the resume");
    assert!(matches!(resumed, Err(AgentError::Cancelled)), "{resumed:?}");
    // No model request after the cancel: only the first run's.
    assert_eq!(model.requests().len(), 1);
    // The history stays, with the call's cancelled return, marked as a failed run.
    assert!(
        session.messages().starts_with(&history),
        "{:#?}",
        session.messages()
    );
    let part = tool_return(session.messages(), "s1");
    assert_eq!(
        part.kind,
        starweaver::model::ToolReturnKind::Cancelled,
        "{part:?}"
    );
    assert!(!session.is_waiting());
    assert_eq!(session.failed_run().unwrap().error, "the run was cancelled");
    // The sink heard the cancelled return too.
    assert!(
        kinds.iter().any(|event| matches!(
            event,
            starweaver::AgentStreamEvent::ToolReturn { part }
                if part.kind == starweaver::model::ToolReturnKind::Cancelled
        )),
        "{kinds:?}"
    );
}

//! Failed session runs keep their history: what is kept, how it is
//! marked, that the next request is well-formed, discarding, export and
//! restore, and the errors that ran nothing and change nothing.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use starweaver::agent::{
    Agent, AgentHitlUserInteraction, AgentRuntimePolicy, AgentSessionState, ToolExecutionPolicy,
};
use starweaver::bundles::user_input_tools;
use starweaver::model::{
    FunctionModel, ModelError, ModelMessage, ModelRequest, ModelResponse, RequestPart,
    ToolReturnKind,
};
use starweaver::{
    string_tool, AgentBuilder, AgentError, AgentRunOptions, AgentSession, TestModel,
    ToolAvailabilityPolicy, ToolConfig, ToolContext, ToolError, ToolResult,
};
use tokio_util::sync::CancellationToken;

use crate::common::{
    always_retry, call, call_response, counter, open_schema, recording_tool, tool_return, Log,
};

/// Every tool call is answered by the request right after its response.
fn assert_well_formed(messages: &[ModelMessage]) {
    for (index, message) in messages.iter().enumerate() {
        let ModelMessage::Response(response) = message else {
            continue;
        };
        let answered: HashSet<&str> = match messages.get(index + 1) {
            Some(ModelMessage::Request(request)) => request
                .parts
                .iter()
                .filter_map(|part| match part {
                    RequestPart::ToolReturn(part) => Some(part.tool_call_id.as_str()),
                    RequestPart::RetryPrompt(part) => part.tool_call_id.as_deref(),
                    _ => None,
                })
                .collect(),
            _ => HashSet::new(),
        };
        for call in response.calls() {
            assert!(
                answered.contains(call.id.as_str()),
                "call `{}` has no return in {messages:#?}",
                call.id
            );
        }
    }
}

fn user(text: &str) -> ModelMessage {
    ModelMessage::Request(ModelRequest::user(text))
}

fn model_down() -> ModelError {
    ModelError::Request {
        model: "function".to_string(),
        message: "provider is down".to_string(),
    }
}

/// A model whose `n`-th request (0-based, counted across runs) is
/// answered by `respond(n)`; it records every request.
fn counting_model(
    respond: impl Fn(u32) -> Result<ModelResponse, ModelError> + Send + Sync + 'static,
) -> Arc<FunctionModel> {
    let asked = AtomicU32::new(0);
    Arc::new(FunctionModel::new(move |_messages, _params| {
        respond(asked.fetch_add(1, Ordering::SeqCst))
    }))
}

/// A `write` tool that logs its arguments: the side effect a host must see.
fn write_agent(model: Arc<FunctionModel>, log: &Log) -> Agent {
    AgentBuilder::new(model)
        .tool(Arc::new(recording_tool("write", log)))
        .build()
}

// ---------------------------------------------------------------------------
// What a failed run keeps
// ---------------------------------------------------------------------------

// A model error after a tool ran rolled the prompt, call and return away.
#[tokio::test]
async fn a_model_failure_after_a_tool_ran_keeps_the_run_marked_failed() {
    let log: Log = Arc::default();
    let model = counting_model(|asked| match asked {
        0 => Ok(call_response("w1", "write", json!({"n": 1}))),
        1 => Err(model_down()),
        _ => Ok(ModelResponse::text("continued")),
    });
    let mut session = write_agent(model.clone(), &log).session();
    let error = session.run("edit the file").await.unwrap_err();
    assert!(matches!(error, AgentError::Model(_)), "{error:?}");
    assert_eq!(log.lock().unwrap().len(), 1);

    let messages = session.messages().to_vec();
    assert_eq!(messages.len(), 3, "{messages:#?}");
    assert_eq!(messages[0], user("edit the file"));
    assert!(tool_return(&messages, "w1").is_success());
    let failed = session.failed_run().unwrap();
    assert_eq!(failed.first_message, 0);
    assert!(failed.error.contains("provider is down"), "{failed:?}");
    assert!(!session.is_waiting());

    // The host continues: the model sees the kept run, every call answered.
    let result = session.run("go on").await.unwrap();
    assert_eq!(result.output, "continued");
    assert!(session.failed_run().is_none());
    let sent = &model.requests()[2].messages;
    assert_eq!(sent[..3], messages[..]);
    assert_eq!(sent[3], user("go on"));
    assert_well_formed(sent);
}

// Running out of steps dropped the returns of the tools that already ran.
#[tokio::test]
async fn max_steps_keeps_every_step_of_the_run() {
    let log: Log = Arc::default();
    let model = counting_model(|asked| Ok(call_response(&format!("w{asked}"), "write", json!({}))));
    let mut session = AgentBuilder::new(model.clone())
        .tool(Arc::new(recording_tool("write", &log)))
        .runtime_policy(AgentRuntimePolicy {
            max_steps: 2,
            ..Default::default()
        })
        .build()
        .session();
    let error = session.run("loop").await.unwrap_err();
    assert!(
        matches!(error, AgentError::MaxStepsExceeded { max_steps: 2 }),
        "{error:?}"
    );
    assert_eq!(log.lock().unwrap().len(), 2);
    let messages = session.messages();
    // Prompt, then two calls each with its return.
    assert_eq!(messages.len(), 5, "{messages:#?}");
    assert!(tool_return(messages, "w0").is_success());
    assert!(tool_return(messages, "w1").is_success());
    assert_well_formed(messages);
    assert!(session
        .failed_run()
        .unwrap()
        .error
        .contains("2 model steps"));
}

// A run had no token budget: a model that kept calling tools spent without limit.
#[tokio::test]
async fn a_token_budget_stops_the_run_before_the_next_request() {
    let log: Log = Arc::default();
    let model = counting_model(|asked| {
        let mut response = call_response(&format!("w{asked}"), "write", json!({}));
        response.usage.input_tokens = 40;
        response.usage.output_tokens = 10;
        Ok(response)
    });
    let mut session = AgentBuilder::new(model.clone())
        .tool(Arc::new(recording_tool("write", &log)))
        .max_tokens(100)
        .build()
        .session();
    let error = session.run("loop").await.unwrap_err();
    assert!(
        matches!(
            error,
            AgentError::TokenBudgetExceeded {
                max_tokens: 100,
                used: 100
            }
        ),
        "{error:?}"
    );
    // Two responses of 50 tokens each; no third request was made.
    assert_eq!(model.requests().len(), 2);
    assert_eq!(log.lock().unwrap().len(), 2);
    let messages = session.messages();
    assert!(tool_return(messages, "w1").is_success());
    assert_well_formed(messages);
    assert!(session
        .failed_run()
        .unwrap()
        .error
        .contains("budget of 100"));
}

// A FailRun availability policy dropped the prompt of the failed run.
#[tokio::test]
async fn an_availability_failure_keeps_the_prompt() {
    let gated = string_tool(
        "gated",
        Some("Never available".to_string()),
        open_schema(),
        |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
    )
    .with_availability(|_context| false);
    let model = Arc::new(TestModel::with_text("never"));
    let mut session = AgentBuilder::new(model.clone())
        .tool(Arc::new(gated))
        .tool_config(ToolConfig {
            unavailable_tool_policy: ToolAvailabilityPolicy::FailRun,
        })
        .build()
        .session();
    let error = session.run("go").await.unwrap_err();
    assert!(
        matches!(error, AgentError::ToolsUnavailable(_)),
        "{error:?}"
    );
    assert!(model.requests().is_empty());
    assert_eq!(session.messages(), [user("go")]);
    assert_eq!(session.failed_run().unwrap().first_message, 0);
}

// A cancelled run lost the return of the call that ran and left nothing
// for the call that never did.
#[tokio::test]
async fn cancellation_mid_run_answers_the_calls_that_never_ran() {
    let token = CancellationToken::new();
    let later_runs = counter();
    let cancel = {
        let token = token.clone();
        string_tool(
            "cancel",
            Some("Cancels the run".to_string()),
            open_schema(),
            move |_ctx: ToolContext, _args: Value| {
                let token = token.clone();
                async move {
                    token.cancel();
                    Ok(ToolResult::new(json!({"cancelled": true})))
                }
            },
        )
    };
    let later = {
        let runs = later_runs.clone();
        string_tool(
            "later",
            Some("Runs after cancel".to_string()),
            open_schema(),
            move |_ctx: ToolContext, _args: Value| {
                let runs = runs.clone();
                async move {
                    runs.fetch_add(1, Ordering::SeqCst);
                    Ok(ToolResult::new(json!({})))
                }
            },
        )
    };
    let model = counting_model(|asked| match asked {
        0 => Ok(ModelResponse::tool_calls([
            call("c1", "cancel", json!({})),
            call("c2", "later", json!({})),
        ])),
        _ => Ok(ModelResponse::text("after")),
    });
    let mut session = AgentBuilder::new(model.clone())
        .tool(Arc::new(cancel))
        .tool(Arc::new(later))
        .runtime_policy(AgentRuntimePolicy {
            tool_execution: ToolExecutionPolicy::Sequential,
            ..Default::default()
        })
        .build()
        .session();
    let error = session
        .run_with_options("go", AgentRunOptions::new().cancellation(token))
        .await
        .unwrap_err();
    assert!(matches!(error, AgentError::Cancelled), "{error:?}");
    assert_eq!(later_runs.load(Ordering::SeqCst), 0);
    assert_eq!(model.requests().len(), 1);
    let messages = session.messages().to_vec();
    assert!(tool_return(&messages, "c1").is_success());
    assert_eq!(tool_return(&messages, "c2").kind, ToolReturnKind::Cancelled);
    assert_well_formed(&messages);
    assert_eq!(session.failed_run().unwrap().error, "the run was cancelled");

    // The next run (without the fired token) sends that history as is.
    session.run("again").await.unwrap();
    assert_well_formed(&model.requests()[1].messages);
}

// A batch that exhausted a retry budget left an approval call without a
// return (and dropped the retry prompt) in the history.
#[tokio::test]
async fn a_call_that_never_ran_gets_a_synthesized_return() {
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
    let model = counting_model(|asked| match asked {
        0 => Ok(ModelResponse::tool_calls([
            call("b1", "bad", json!({})),
            call("d1", "deploy", json!({"n": 1})),
        ])),
        _ => Ok(ModelResponse::text("done")),
    });
    let mut session = AgentBuilder::new(model.clone())
        .tool(Arc::new(bad))
        .tool(Arc::new(
            recording_tool("deploy", &log).with_approval_required(true),
        ))
        .build()
        .session();
    let error = session.run("go").await.unwrap_err();
    assert!(
        matches!(error, AgentError::ToolRetriesExhausted { .. }),
        "{error:?}"
    );
    assert!(log.lock().unwrap().is_empty());
    assert!(!session.is_waiting());
    let messages = session.messages().to_vec();
    assert_well_formed(&messages);
    let ModelMessage::Request(request) = &messages[2] else {
        panic!("{messages:#?}");
    };
    // The retry prompt answers b1, in call order, then d1's synthesized return.
    assert!(matches!(
        &request.parts[0],
        RequestPart::RetryPrompt(part) if part.tool_call_id.as_deref() == Some("b1")
    ));
    let RequestPart::ToolReturn(d1) = &request.parts[1] else {
        panic!("{request:#?}");
    };
    assert_eq!(d1.tool_call_id, "d1");
    assert_eq!(d1.kind, ToolReturnKind::Cancelled);
    assert!(d1.is_error());
    assert_eq!(d1.content["error_kind"], "cancelled");
    let message = d1.content["message"].as_str().unwrap();
    assert!(
        message.contains("did not return") && message.contains("retry budget"),
        "{message}"
    );
    let run_id = session.failed_run().unwrap().run_id.clone();
    assert_eq!(d1.metadata["run_failed"]["run_id"], run_id.as_str());
}

// A run future dropped half-way lost the returns of the tools that ran.
#[tokio::test]
async fn a_dropped_run_keeps_what_it_recorded_marked_failed() {
    let log: Log = Arc::default();
    let (started, started_rx) = tokio::sync::oneshot::channel::<()>();
    let started = Mutex::new(Some(started));
    let hang = string_tool(
        "hang",
        Some("Never finishes".to_string()),
        open_schema(),
        move |_ctx: ToolContext, _args: Value| {
            if let Some(started) = started.lock().unwrap().take() {
                let _ = started.send(());
            }
            async move {
                std::future::pending::<()>().await;
                Ok(ToolResult::new(json!({})))
            }
        },
    );
    let model = counting_model(|asked| match asked {
        0 => Ok(call_response("w1", "write", json!({}))),
        1 => Ok(call_response("h1", "hang", json!({}))),
        _ => Ok(ModelResponse::text("done")),
    });
    let mut session = AgentBuilder::new(model)
        .tool(Arc::new(recording_tool("write", &log)))
        .tool(Arc::new(hang))
        .build()
        .session();
    tokio::select! {
        outcome = session.run("go") => panic!("the run should hang, got {outcome:?}"),
        _ = started_rx => {}
    }
    let messages = session.messages().to_vec();
    assert_eq!(messages.len(), 5, "{messages:#?}");
    assert!(tool_return(&messages, "w1").is_success());
    let h1 = tool_return(&messages, "h1");
    assert_eq!(h1.kind, ToolReturnKind::Cancelled);
    assert!(h1.content["message"]
        .as_str()
        .unwrap()
        .contains("may have run"));
    assert_well_formed(&messages);
    assert!(session.failed_run().unwrap().error.contains("dropped"));
    assert!(!session.is_waiting());
}

// ---------------------------------------------------------------------------
// Resumes
// ---------------------------------------------------------------------------

// A resume that failed after the approved call ran rolled the paused run
// away, so the host could not see that the deploy happened.
#[tokio::test]
async fn a_failed_resume_keeps_the_whole_paused_run() {
    let log: Log = Arc::default();
    let model = counting_model(|asked| match asked {
        0 => Ok(ModelResponse::text("hi")),
        1 => Ok(ModelResponse::tool_calls([
            call("p1", "plain", json!({"n": 1})),
            call("d1", "deploy", json!({"n": 2})),
        ])),
        2 => Err(model_down()),
        _ => Ok(ModelResponse::text("done")),
    });
    let mut session = AgentBuilder::new(model.clone())
        .tool(Arc::new(recording_tool("plain", &log)))
        .tool(Arc::new(
            recording_tool("deploy", &log).with_approval_required(true),
        ))
        .build()
        .session();
    session.run("hello").await.unwrap();
    assert!(session.run("deploy").await.unwrap().is_waiting());
    let error = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap_err();
    assert!(matches!(error, AgentError::Model(_)), "{error:?}");
    assert_eq!(log.lock().unwrap().len(), 2);
    assert!(!session.is_waiting());

    let messages = session.messages().to_vec();
    assert_eq!(messages.len(), 5, "{messages:#?}");
    assert_eq!(messages[2], user("deploy"));
    assert!(tool_return(&messages, "p1").is_success());
    assert!(tool_return(&messages, "d1").is_success());
    assert_well_formed(&messages);
    assert_eq!(session.failed_run().unwrap().first_message, 2);

    session.run("status?").await.unwrap();
    assert_well_formed(&model.requests()[3].messages);
}

// ---------------------------------------------------------------------------
// Discarding, export and restore
// ---------------------------------------------------------------------------

// With the failed run kept, the host had no way back to the old rollback.
#[tokio::test]
async fn discarding_the_failed_run_restores_the_conversation_before_it() {
    let log: Log = Arc::default();
    let model = counting_model(|asked| match asked {
        0 => Ok(ModelResponse::text("hi")),
        1 => Ok(call_response("w1", "write", json!({}))),
        2 => Err(model_down()),
        _ => Ok(ModelResponse::text("fresh")),
    });
    let mut session = write_agent(model.clone(), &log).session();
    assert!(session.discard_failed_run().is_empty());
    session.run("hello").await.unwrap();
    let before = session.messages().to_vec();
    assert!(session.discard_failed_run().is_empty());
    assert_eq!(session.messages(), before);

    session.run("write").await.unwrap_err();
    let kept = session.messages()[before.len()..].to_vec();
    let discarded = session.discard_failed_run();
    assert_eq!(discarded, kept);
    assert_eq!(discarded.len(), 3);
    assert_eq!(session.messages(), before);
    assert!(session.failed_run().is_none());
    // The tool's side effect is not undone, only forgotten by the history.
    assert_eq!(log.lock().unwrap().len(), 1);

    session.run("retry").await.unwrap();
    let sent = &model.requests()[3].messages;
    assert_eq!(sent[..before.len()], before[..]);
    assert_eq!(sent[before.len()..], [user("retry")]);
}

// The failed-run marker was not part of the exported state.
#[tokio::test]
async fn export_and_restore_keep_the_failed_run() {
    let log: Log = Arc::default();
    let model = counting_model(|asked| match asked {
        0 => Ok(call_response("w1", "write", json!({}))),
        1 => Err(model_down()),
        _ => Ok(ModelResponse::text("resumed elsewhere")),
    });
    let agent = write_agent(model, &log);
    let mut session = agent.session();
    session.run("write").await.unwrap_err();
    let failed = session.failed_run().cloned().unwrap();

    let state = session.export_state();
    assert_eq!(state.failed_run(), Some(&failed));
    let json = state.to_json().unwrap();
    let read = AgentSessionState::from_json(&json).unwrap();
    let mut restored = AgentSession::restore(agent.clone(), read);
    assert_eq!(restored.failed_run(), Some(&failed));
    assert_eq!(restored.messages(), session.messages());
    // The restored marker is the host's to act on: the next run clears it.
    restored.run("next").await.unwrap();
    assert!(restored.failed_run().is_none());
    let mut restored = AgentSession::restore(agent.clone(), session.export_state());
    assert_eq!(restored.discard_failed_run().len(), 3);
    assert!(restored.messages().is_empty());

    // A state exported before failed runs were kept still loads.
    let mut old: Value = serde_json::from_str(&json).unwrap();
    old.as_object_mut().unwrap().remove("failed_run");
    let old = AgentSessionState::from_json(&old.to_string()).unwrap();
    assert!(old.failed_run().is_none());
    let restored = AgentSession::restore(agent, old);
    assert!(restored.failed_run().is_none());
    assert_eq!(restored.messages().len(), 3);
}

// ---------------------------------------------------------------------------
// Errors that ran nothing
// ---------------------------------------------------------------------------

// A clean session state, to compare before and after an error.
fn snapshot(session: &AgentSession) -> String {
    session.export_state().to_json().unwrap()
}

// Errors raised before anything ran must not mark or trim the session.
#[tokio::test]
async fn errors_that_ran_nothing_change_nothing() {
    let log: Log = Arc::default();
    let model = counting_model(|asked| match asked {
        0 => Ok(call_response("w1", "write", json!({}))),
        1 => Err(model_down()),
        2 => Ok(call_response("d1", "deploy", json!({"n": 1}))),
        _ => Ok(ModelResponse::text("done")),
    });
    let agent = AgentBuilder::new(model)
        .tool(Arc::new(recording_tool("write", &log)))
        .tool(Arc::new(
            recording_tool("deploy", &log).with_approval_required(true),
        ))
        .build();
    let mut session = agent.session();
    session.run("write").await.unwrap_err();
    let failed = snapshot(&session);

    // Not waiting: the failed run stays as it was.
    let error = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("w1"))
        .await
        .unwrap_err();
    assert!(matches!(error, AgentError::NotWaiting), "{error:?}");
    assert_eq!(snapshot(&session), failed);

    // An invalid tool name: the run did not start, the marker stays.
    let bad_name = AgentBuilder::new(Arc::new(TestModel::with_text("never")))
        .tool(Arc::new(recording_tool("bad name", &log)))
        .build();
    let mut restored = AgentSession::restore(bad_name, session.export_state());
    let error = restored.run("again").await.unwrap_err();
    assert!(
        matches!(error, AgentError::InvalidToolName { .. }),
        "{error:?}"
    );
    assert_eq!(snapshot(&restored), failed);

    // Waiting: every mistake leaves the paused run untouched.
    assert!(session.run("deploy").await.unwrap().is_waiting());
    let waiting = snapshot(&session);
    let ran = log.lock().unwrap().len();
    let error = session.run("other").await.unwrap_err();
    assert!(
        matches!(error, AgentError::SessionWaiting { .. }),
        "{error:?}"
    );
    let error = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("nope"))
        .await
        .unwrap_err();
    assert!(
        matches!(error, AgentError::UnknownHitlResult { .. }),
        "{error:?}"
    );
    let error = session
        .resume_after_hitl(starweaver::agent::AgentHitlResults::default())
        .await
        .unwrap_err();
    assert!(
        matches!(error, AgentError::MissingHitlResult { .. }),
        "{error:?}"
    );
    assert_eq!(snapshot(&session), waiting);
    let without_deploy = AgentBuilder::new(Arc::new(TestModel::with_text("never")))
        .tool(Arc::new(recording_tool("write", &log)))
        .build();
    let mut elsewhere = AgentSession::restore(without_deploy, session.export_state());
    let error = elsewhere
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap_err();
    assert!(matches!(error, AgentError::MissingTool { .. }), "{error:?}");
    assert_eq!(snapshot(&elsewhere), waiting);
    // A resume on an agent with a tool name providers reject runs nothing
    // either (it used to end the paused run).
    let bad_name = AgentBuilder::new(Arc::new(TestModel::with_text("never")))
        .tool(Arc::new(
            recording_tool("deploy", &log).with_approval_required(true),
        ))
        .tool(Arc::new(recording_tool("bad name", &log)))
        .build();
    let mut elsewhere = AgentSession::restore(bad_name, session.export_state());
    let error = elsewhere
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap_err();
    assert!(
        matches!(error, AgentError::InvalidToolName { .. }),
        "{error:?}"
    );
    assert!(elsewhere.is_waiting());
    assert_eq!(snapshot(&elsewhere), waiting);
    assert_eq!(log.lock().unwrap().len(), ran);
    assert!(session.failed_run().is_none());
}

// Rejected HITL input ran nothing: the session must keep waiting, unmarked.
#[tokio::test]
async fn rejected_user_input_leaves_the_paused_run_as_it_was() {
    let model = Arc::new(TestModel::scripted([
        call_response(
            "ask",
            "ask_user_question",
            json!({"questions": crate::common::one_question()}),
        ),
        ModelResponse::text("ok"),
    ]));
    let mut session = AgentBuilder::new(model)
        .toolset(&user_input_tools())
        .build()
        .session();
    assert!(session.run("ask me").await.unwrap().is_waiting());
    let before = snapshot(&session);
    let error = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("ask"))
        .await
        .unwrap_err();
    assert!(
        matches!(error, AgentError::InvalidHitlInput { .. }),
        "{error:?}"
    );
    assert!(session.is_waiting());
    assert!(session.failed_run().is_none());
    assert_eq!(session.messages().len(), 2);
    // Only the stream sequence may move on (records were sent).
    let mut after: Value = serde_json::from_str(&snapshot(&session)).unwrap();
    let mut before: Value = serde_json::from_str(&before).unwrap();
    after["waiting"]["progress"]["next_sequence"] = Value::Null;
    before["waiting"]["progress"]["next_sequence"] = Value::Null;
    assert_eq!(after, before);
}

// ---------------------------------------------------------------------------
// A failed run across a session
// ---------------------------------------------------------------------------

#[tokio::test]
async fn a_failed_session_run_is_kept_until_discarded_and_the_session_stays_usable() {
    let runs = counter();
    let model = Arc::new(TestModel::scripted(vec![
        ModelResponse::text("first answer"),
        call_response("c1", "stubborn", json!({})),
        call_response("c2", "stubborn", json!({})),
        ModelResponse::text("recovered"),
    ]));
    let mut session = AgentBuilder::new(model.clone())
        .tool(Arc::new(always_retry(&runs).with_max_retries(0)))
        .build()
        .session();
    session.run("hello").await.unwrap();
    assert_eq!(session.messages().len(), 2);

    let error = session.run("break it").await.unwrap_err();
    assert!(
        matches!(error, AgentError::ToolRetriesExhausted { .. }),
        "{error:?}"
    );
    // The failed run is kept (prompt, call, retry prompt), marked failed.
    assert_eq!(session.messages().len(), 5);
    assert_eq!(session.failed_run().unwrap().first_message, 2);
    assert!(!session.is_waiting());
    // Discarding it is the old rollback.
    assert_eq!(session.discard_failed_run().len(), 3);
    assert_eq!(session.messages().len(), 2);

    // Later runs continue from the last good state.
    let error = session.run("again").await.unwrap_err();
    assert!(
        matches!(error, AgentError::ToolRetriesExhausted { .. }),
        "{error:?}"
    );
    session.discard_failed_run();
    let result = session.run("once more").await.unwrap();
    assert_eq!(result.output, "recovered");
    let sent = &model.requests()[3].messages;
    assert_eq!(sent.len(), 3);
    assert_eq!(
        sent[2],
        ModelMessage::Request(starweaver::model::ModelRequest::user("once more"))
    );
}

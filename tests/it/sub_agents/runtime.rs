//! The runtime side: a tree of agents, what crosses each boundary (answers, usage, records,
//! requests that wait, cancellation) and calls that run side by side.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::{json, Value};
use starweaver::agent::{AgentHitlResults, AgentHitlUserInteraction, AgentSessionState};
use starweaver::model::{FunctionModel, ModelMessage, ModelResponse, RequestPart};
use starweaver::{
    string_tool, AgentBuilder, AgentError, AgentRunOptions, AgentSession, AgentStreamEvent,
    SubAgent, ToolResult,
};
use tokio_util::sync::CancellationToken;

use crate::common::{call_response, calls, counter, open_schema};

/// A response that costs `input` and `output` tokens.
fn costing(mut response: ModelResponse, input: u64, output: u64) -> ModelResponse {
    response.usage.input_tokens = input;
    response.usage.output_tokens = output;
    response
}

/// An agent on a model that answers with `responses` in order, usage as given.
fn scripted(responses: Vec<ModelResponse>) -> AgentBuilder {
    let queue = std::sync::Mutex::new(std::collections::VecDeque::from(responses));
    AgentBuilder::new(Arc::new(FunctionModel::new(
        move |_messages, _parameters| {
            let next = queue.lock().ok().and_then(|mut queue| queue.pop_front());
            Ok(next.unwrap_or_else(|| ModelResponse::text("out of script")))
        },
    )))
}

/// A `deploy` tool that needs approval and counts its runs.
fn deploy(runs: Arc<std::sync::atomic::AtomicU32>) -> starweaver::tools::DynTool {
    Arc::new(
        string_tool(
            "deploy",
            Some("Deploys the build.".into()),
            open_schema(),
            move |_ctx, _args| {
                runs.fetch_add(1, Ordering::SeqCst);
                async { Ok(ToolResult::new(json!({"deployed": true}))) }
            },
        )
        .with_approval_required(true),
    )
}

/// The tree the tests share: `lead` calls `researcher` and `release` in one step; `release`
/// calls its own sub-agent `deployer`, whose `deploy` tool needs approval. Every response
/// costs tokens, so the sums show.
fn tree(deploys: Arc<std::sync::atomic::AtomicU32>) -> starweaver::agent::Agent {
    let deployer = scripted(vec![
        costing(call_response("d1", "deploy", json!({})), 5, 1),
        costing(ModelResponse::text("Deployed build 42."), 5, 1),
    ])
    .tool(deploy(deploys))
    .build();
    let release = scripted(vec![
        costing(
            call_response("r1", "deployer", json!({"task": "deploy build 42"})),
            10,
            2,
        ),
        costing(
            ModelResponse::text("Release done: deployed build 42."),
            10,
            2,
        ),
    ])
    .tool(SubAgent::new("deployer", deployer).into_tool())
    .build();
    let researcher = scripted(vec![costing(
        ModelResponse::text("Build 42 passed every check."),
        20,
        4,
    )])
    .build();
    scripted(vec![
        costing(
            calls(&[
                ("l1", "researcher", json!({"task": "check build 42"})),
                ("l2", "release", json!({"task": "release build 42"})),
            ]),
            100,
            10,
        ),
        costing(
            ModelResponse::text("Build 42 is checked and released."),
            100,
            10,
        ),
    ])
    .tool(SubAgent::new("researcher", researcher).into_tool())
    .tool(SubAgent::new("release", release).into_tool())
    .build()
}

/// The contents of the tool returns the lead's second request carried, by tool.
fn returns_of(messages: &[ModelMessage]) -> Vec<(String, Value)> {
    messages
        .iter()
        .filter_map(|message| match message {
            ModelMessage::Request(request) => Some(&request.parts),
            ModelMessage::Response(_) => None,
        })
        .flatten()
        .filter_map(|part| match part {
            RequestPart::ToolReturn(part) => {
                Some((part.tool_name.to_string(), part.content.clone()))
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_tree_answers_with_final_answers_only_sums_usage_and_waits_for_a_deep_approval() {
    let deploys = counter();
    let mut session = AgentSession::new(tree(deploys.clone()));
    let first = session.run("Check and release build 42.").await.unwrap();
    // The approval two levels down makes the whole tree wait, named by its path.
    assert!(first.is_waiting());
    assert_eq!(first.pending.len(), 1, "{:?}", first.pending);
    let request = &first.pending[0];
    assert_eq!(request.agent, vec!["release", "deployer"]);
    assert_eq!(request.tool_name, "deploy");
    assert_eq!(request.tool_call_id, "l2/r1/d1");
    assert_eq!(deploys.load(Ordering::SeqCst), 0, "never runs unapproved");

    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("l2/r1/d1"))
        .await
        .unwrap();
    assert!(!done.is_waiting());
    assert_eq!(done.output, "Build 42 is checked and released.");
    assert_eq!(deploys.load(Ordering::SeqCst), 1);
    // Each sub-agent's return is its final answer, not its transcript.
    let returns = returns_of(&done.messages);
    assert_eq!(
        returns,
        vec![
            (
                "researcher".to_string(),
                json!("Build 42 passed every check.")
            ),
            (
                "release".to_string(),
                json!("Release done: deployed build 42.")
            ),
        ]
    );
    // Usage over the whole tree: 2 + 1 + 2 + 2 requests, and every token.
    assert_eq!(done.usage.requests, 7);
    assert_eq!(done.usage.input_tokens, 200 + 20 + 20 + 10);
    assert_eq!(done.usage.output_tokens, 20 + 4 + 4 + 2);
}

#[tokio::test]
async fn a_deep_approval_survives_saving_and_restoring_the_lead_and_a_denial_never_runs() {
    for approve in [true, false] {
        let deploys = counter();
        let agent = tree(deploys.clone());
        let mut session = AgentSession::new(agent.clone());
        session.run("Check and release build 42.").await.unwrap();
        let saved = session.export_state().to_json().unwrap();
        drop(session);

        // Another process: the same agents, the saved state.
        let state = AgentSessionState::from_json(&saved).unwrap();
        assert_eq!(state.pending()[0].agent, vec!["release", "deployer"]);
        let mut restored = AgentSession::restore(agent, state);
        let answer = if approve {
            AgentHitlUserInteraction::approved("l2/r1/d1")
        } else {
            AgentHitlUserInteraction::denied("l2/r1/d1").with_reason("not today")
        };
        let done = restored.resume_after_hitl(answer).await.unwrap();
        assert_eq!(done.output, "Build 42 is checked and released.");
        assert_eq!(deploys.load(Ordering::SeqCst), u32::from(approve));
    }
}

#[tokio::test]
async fn answers_must_name_the_deep_request_and_a_wrong_one_leaves_the_tree_waiting() {
    let mut session = AgentSession::new(tree(counter()));
    session.run("Check and release build 42.").await.unwrap();
    let wrong = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap_err();
    assert!(
        matches!(wrong, AgentError::UnknownHitlResult { .. }),
        "{wrong}"
    );
    assert!(session.is_waiting());
    let missing = session
        .resume_after_hitl(AgentHitlResults::new())
        .await
        .unwrap_err();
    assert!(
        matches!(missing, AgentError::MissingHitlResult { .. }),
        "{missing}"
    );
    assert_eq!(session.pending()[0].tool_call_id, "l2/r1/d1");
}

#[tokio::test]
async fn a_sub_agents_records_reach_the_lead_nested_under_its_agent_path() {
    let deploys = counter();
    let mut session = AgentSession::new(tree(deploys));
    let mut records = Vec::new();
    let mut sink = |record: &starweaver::agent::AgentStreamRecord| records.push(record.clone());
    session
        .run_with_events(
            "Check and release build 42.",
            AgentRunOptions::new(),
            &mut sink,
        )
        .await
        .unwrap();
    let mut sink = |record: &starweaver::agent::AgentStreamRecord| records.push(record.clone());
    session
        .resume_with_events(AgentHitlUserInteraction::approved("l2/r1/d1"), &mut sink)
        .await
        .unwrap();
    let nested: Vec<(Vec<String>, String, &AgentStreamEvent)> = records
        .iter()
        .filter_map(|record| match &record.event {
            AgentStreamEvent::SubAgent {
                agent,
                tool_call_id,
                event,
            } => Some((agent.clone(), tool_call_id.clone(), event.as_ref())),
            _ => None,
        })
        .collect();
    let path = |names: &[&str]| {
        names
            .iter()
            .map(|name| name.to_string())
            .collect::<Vec<_>>()
    };
    // The deployer's call of `deploy` is reported two levels down, under the lead's call.
    assert!(
        nested.iter().any(
            |(agent, id, event)| agent == &path(&["release", "deployer"])
                && id == "l2"
                && matches!(event, AgentStreamEvent::ToolCall { call } if call.name == "deploy")
        ),
        "{nested:#?}"
    );
    // Each sub-agent's answer is reported where it happened.
    for (names, answer) in [
        (&["researcher"][..], "Build 42 passed every check."),
        (&["release"][..], "Release done: deployed build 42."),
        (&["release", "deployer"][..], "Deployed build 42."),
    ] {
        assert!(
            nested.iter().any(|(agent, _, event)| agent == &path(names)
                && matches!(event, AgentStreamEvent::RunCompleted { output, .. } if output == answer)),
            "{names:?}: {nested:#?}"
        );
    }
    // Nothing nests twice: the path carries the depth.
    assert!(nested
        .iter()
        .all(|(_, _, event)| !matches!(event, AgentStreamEvent::SubAgent { .. })));
    // The lead's own records end the stream.
    assert!(matches!(
        records.last().map(|record| &record.event),
        Some(AgentStreamEvent::RunCompleted { .. })
    ));
}

#[tokio::test]
async fn cancelling_the_lead_reaches_a_tool_call_two_levels_down() {
    let started = Arc::new(tokio::sync::Notify::new());
    let saw_cancel = counter();
    let wait = {
        let started = started.clone();
        let saw_cancel = saw_cancel.clone();
        Arc::new(string_tool(
            "wait_for_build",
            Some("Waits for the build.".into()),
            open_schema(),
            move |ctx, _args| {
                let started = started.clone();
                let saw_cancel = saw_cancel.clone();
                async move {
                    started.notify_one();
                    ctx.cancelled().await;
                    saw_cancel.fetch_add(1, Ordering::SeqCst);
                    Ok(ToolResult::new(json!({"cancelled": true})))
                }
            },
        ))
    };
    let leaf = scripted(vec![call_response("w1", "wait_for_build", json!({}))])
        .tool(wait)
        .build();
    let middle = scripted(vec![call_response("m1", "leaf", json!({"task": "wait"}))])
        .tool(SubAgent::new("leaf", leaf).into_tool())
        .build();
    let lead = scripted(vec![call_response("l1", "middle", json!({"task": "wait"}))])
        .tool(SubAgent::new("middle", middle).into_tool())
        .build();
    let token = CancellationToken::new();
    let canceller = {
        let token = token.clone();
        let started = started.clone();
        tokio::spawn(async move {
            started.notified().await;
            token.cancel();
        })
    };
    let mut session = AgentSession::new(lead);
    let outcome = session
        .run_with_options(
            "Wait for the build.",
            AgentRunOptions::new().cancellation(token),
        )
        .await;
    canceller.await.unwrap();
    assert!(matches!(outcome, Err(AgentError::Cancelled)), "{outcome:?}");
    assert_eq!(
        saw_cancel.load(Ordering::SeqCst),
        1,
        "the leaf's call saw the cancellation"
    );
}

#[tokio::test]
async fn two_sub_agents_called_in_one_step_run_side_by_side() {
    // Each sub-agent's tool waits until both have started: run one after the other, the
    // first would wait forever (bounded below, so the test fails instead of hanging).
    let barrier = Arc::new(tokio::sync::Barrier::new(2));
    let meet = |name: &'static str| {
        let barrier = barrier.clone();
        let tool = Arc::new(string_tool(
            "meet",
            Some("Waits for the other agent.".into()),
            open_schema(),
            move |_ctx, _args| {
                let barrier = barrier.clone();
                async move {
                    barrier.wait().await;
                    Ok(ToolResult::new(json!({"met": true})))
                }
            },
        ));
        let agent = scripted(vec![
            call_response("x1", "meet", json!({})),
            ModelResponse::text(format!("{name} met the other")),
        ])
        .tool(tool)
        .build();
        SubAgent::new(name, agent).into_tool()
    };
    let lead = scripted(vec![
        calls(&[
            ("l1", "north", json!({"task": "meet"})),
            ("l2", "south", json!({"task": "meet"})),
        ]),
        ModelResponse::text("Both met."),
    ])
    .tool(meet("north"))
    .tool(meet("south"))
    .build();
    let result = tokio::time::timeout(std::time::Duration::from_secs(60), lead.run("Meet."))
        .await
        .expect("the two sub-agents ran one after the other and deadlocked")
        .unwrap();
    assert_eq!(result.output, "Both met.");
    let returns = returns_of(&result.messages);
    assert_eq!(returns[0].1, json!("north met the other"));
    assert_eq!(returns[1].1, json!("south met the other"));
}

#[tokio::test]
async fn a_sub_agents_requests_count_against_the_leads_step_limit() {
    let worker = scripted(vec![
        call_response("w1", "noop", json!({})),
        call_response("w2", "noop", json!({})),
        ModelResponse::text("worked"),
    ])
    .tool(Arc::new(string_tool(
        "noop",
        Some("Does nothing.".into()),
        open_schema(),
        |_ctx, _args| async { Ok(ToolResult::new(json!({}))) },
    )))
    .build();
    let lead = scripted(vec![
        call_response("l1", "worker", json!({"task": "work"})),
        ModelResponse::text("never asked"),
    ])
    .tool(SubAgent::new("worker", worker).into_tool())
    .max_steps(3)
    .build();
    // One step of the lead and three of the worker: the lead's next request would be its
    // fifth step in all.
    let error = lead.run("Work.").await.unwrap_err();
    assert!(
        matches!(error, AgentError::MaxStepsExceeded { max_steps: 3 }),
        "{error}"
    );
}

#[tokio::test]
async fn a_sub_agent_that_fails_is_a_tool_return_the_lead_reads_with_its_usage_counted() {
    let failing = scripted(vec![costing(
        call_response("f1", "missing_tool_loop", json!({})),
        7,
        3,
    )])
    .max_steps(1)
    .build();
    let lead = scripted(vec![
        call_response("l1", "flaky", json!({"task": "try"})),
        ModelResponse::text("The helper failed; I stopped."),
    ])
    .tool(SubAgent::new("flaky", failing).into_tool())
    .build();
    let result = lead.run("Try.").await.unwrap();
    assert_eq!(result.output, "The helper failed; I stopped.");
    let returns = returns_of(&result.messages);
    let message = returns[0].1["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("the `flaky` agent stopped without an answer"),
        "{returns:?}"
    );
    assert_eq!(result.usage.requests, 3);
    assert_eq!(result.usage.input_tokens, 7);
    assert_eq!(result.usage.output_tokens, 3);
}

//! Retry prompts and budgets in runs: model retries, invalid and unknown
//! calls, budget exhaustion, endless loops, feedback and user errors,
//! execution retries, panics and timeouts.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use starweaver::agent::{AgentRunStatus, AgentRuntimePolicy};
use starweaver::model::{FunctionModel, ModelResponse, RequestPart, ToolCallPart, ToolReturnPart};
use starweaver::tools::FunctionTool;
use starweaver::{
    string_tool, AgentBuilder, AgentError, TestModel, ToolContext, ToolError, ToolResult,
};

use crate::common::{
    always_retry, call_response, counter, last_request_parts, open_schema, tool_returns,
};

use super::{retry_prompts, typed_echo};

// ---------------------------------------------------------------------------
// Retry prompts
// ---------------------------------------------------------------------------

#[tokio::test]
async fn model_retry_becomes_a_retry_prompt_then_the_run_completes() {
    let retries_seen = Arc::new(Mutex::new(Vec::new()));
    let seen = retries_seen.clone();
    let flaky = string_tool(
        "flaky",
        Some("Fails once".to_string()),
        open_schema(),
        move |ctx: ToolContext, _args: Value| {
            let seen = seen.clone();
            async move {
                let mut seen = seen.lock().unwrap();
                seen.push(ctx.retry());
                if seen.len() == 1 {
                    Err(ToolError::model_retry("use a positive number"))
                } else {
                    Ok(ToolResult::new(json!({"ok": true})))
                }
            }
        },
    );
    let model = Arc::new(TestModel::scripted(vec![
        call_response("c1", "flaky", json!({})),
        call_response("c2", "flaky", json!({})),
        ModelResponse::text("done"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(flaky))
        .build();

    let result = agent.run("go").await.unwrap();
    assert_eq!(result.status, AgentRunStatus::Completed);
    assert_eq!(result.output, "done");

    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    let prompts = retry_prompts(&requests[1]);
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].tool_call_id.as_deref(), Some("c1"));
    assert_eq!(prompts[0].tool_name.as_deref(), Some("flaky"));
    assert!(
        prompts[0].content.contains("use a positive number"),
        "{}",
        prompts[0].content
    );
    // The second call succeeded and went back as a plain return.
    let returns: Vec<ToolReturnPart> = last_request_parts(&requests[2])
        .into_iter()
        .filter_map(|part| match part {
            RequestPart::ToolReturn(part) => Some(part),
            _ => None,
        })
        .collect();
    assert_eq!(returns.len(), 1);
    assert_eq!(returns[0].tool_call_id, "c2");
    assert_eq!(returns[0].content, json!({"ok": true}));
    // The retry counter reached the tool through ToolContext.
    assert_eq!(*retries_seen.lock().unwrap(), vec![0, 1]);
}

#[tokio::test]
async fn invalid_typed_arguments_get_a_retry_prompt() {
    let runs = counter();
    let model = Arc::new(TestModel::scripted(vec![
        call_response("c1", "echo", json!({"wrong": 1})),
        ModelResponse::text("done"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(typed_echo(&runs)))
        .build();

    let result = agent.run("go").await.unwrap();
    assert_eq!(result.output, "done");
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let prompts = retry_prompts(&model.requests()[1]);
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].tool_call_id.as_deref(), Some("c1"));
    assert_eq!(prompts[0].tool_name.as_deref(), Some("echo"));
    let content = &prompts[0].content;
    assert!(content.contains("echo"), "{content}");
    assert!(content.contains("value"), "{content}");
}

#[tokio::test]
async fn unknown_tool_gets_a_did_you_mean_retry_prompt() {
    let runs = counter();
    let model = Arc::new(TestModel::scripted(vec![
        call_response("c1", "ech", json!({"value": "x"})),
        ModelResponse::text("done"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(typed_echo(&runs)))
        .build();

    let result = agent.run("go").await.unwrap();
    assert_eq!(result.output, "done");
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let prompts = retry_prompts(&model.requests()[1]);
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].tool_call_id.as_deref(), Some("c1"));
    assert_eq!(prompts[0].tool_name.as_deref(), Some("ech"));
    let content = &prompts[0].content;
    assert!(content.contains("unknown tool `ech`"), "{content}");
    assert!(content.contains("Did you mean `echo`?"), "{content}");
}

#[tokio::test]
async fn malformed_json_arguments_get_a_retry_prompt() {
    let runs = counter();
    let model = Arc::new(TestModel::scripted(vec![
        ModelResponse::tool_calls([ToolCallPart::new("c1", "echo", "{oops")]),
        ModelResponse::text("done"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(typed_echo(&runs)))
        .build();

    let result = agent.run("go").await.unwrap();
    assert_eq!(result.output, "done");
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let prompts = retry_prompts(&model.requests()[1]);
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].tool_call_id.as_deref(), Some("c1"));
    let content = &prompts[0].content;
    assert!(content.contains("echo"), "{content}");
    assert!(content.contains("JSON"), "{content}");
}

// ---------------------------------------------------------------------------
// Retry budgets
// ---------------------------------------------------------------------------

/// A model that always calls `name`, with fresh call ids.
fn looping_model(name: &'static str, arguments: Value) -> FunctionModel {
    FunctionModel::new(move |messages, _parameters| {
        Ok(call_response(
            &format!("c{}", messages.len()),
            name,
            arguments.clone(),
        ))
    })
}

#[tokio::test]
async fn tool_retry_budget_exhaustion_fails_the_run() {
    let runs = counter();
    let model = Arc::new(looping_model("stubborn", json!({})));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(always_retry(&runs).with_max_retries(1)))
        .build();

    let error = agent.run("go").await.unwrap_err();
    match &error {
        AgentError::ToolRetriesExhausted {
            tool,
            max_retries,
            message,
        } => {
            assert_eq!(tool, "stubborn");
            assert_eq!(*max_retries, 1);
            assert!(message.contains("still wrong"), "{message}");
        }
        other => panic!("expected ToolRetriesExhausted, got {other:?}"),
    }
    assert!(error.to_string().contains("stubborn"), "{error}");
    // One retry was allowed: two calls, two model requests.
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test]
async fn agent_level_retry_budget_of_zero_fails_on_first_retry() {
    let runs = counter();
    let model = Arc::new(looping_model("stubborn", json!({})));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(always_retry(&runs)))
        .runtime_policy(AgentRuntimePolicy {
            max_retries: Some(0),
            ..Default::default()
        })
        .build();

    let error = agent.run("go").await.unwrap_err();
    assert!(
        matches!(
            &error,
            AgentError::ToolRetriesExhausted { tool, max_retries: 0, .. } if tool == "stubborn"
        ),
        "{error:?}"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(model.requests().len(), 1);
}

#[tokio::test]
async fn tool_level_budget_wins_over_agent_level_budget() {
    let runs = counter();
    let model = Arc::new(looping_model("stubborn", json!({})));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(always_retry(&runs).with_max_retries(2)))
        .runtime_policy(AgentRuntimePolicy {
            max_retries: Some(0),
            ..Default::default()
        })
        .build();

    let error = agent.run("go").await.unwrap_err();
    assert!(
        matches!(
            &error,
            AgentError::ToolRetriesExhausted { max_retries: 2, .. }
        ),
        "{error:?}"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn unknown_tool_loop_exhausts_the_retry_budget_cleanly() {
    let runs = counter();
    let model = Arc::new(looping_model("missing_tool", json!({})));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(typed_echo(&runs)))
        .build();
    let error = agent.run("go").await.unwrap_err();
    assert!(
        matches!(
            &error,
            AgentError::ToolRetriesExhausted { tool, max_retries: 3, .. } if tool == "missing_tool"
        ),
        "{error:?}"
    );
    assert_eq!(model.requests().len(), 4);
}

#[tokio::test]
async fn endless_tool_loop_stops_at_max_steps() {
    let runs = counter();
    let model = Arc::new(looping_model("echo", json!({"value": "again"})));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(typed_echo(&runs)))
        .max_steps(5)
        .build();

    let error = agent.run("loop").await.unwrap_err();
    assert!(
        matches!(error, AgentError::MaxStepsExceeded { max_steps: 5 }),
        "{error:?}"
    );
    assert!(error.to_string().contains('5'), "{error}");
    assert_eq!(model.requests().len(), 5);
    assert_eq!(runs.load(Ordering::SeqCst), 5);
}

// ---------------------------------------------------------------------------
// Feedback, user errors, execution retries, timeouts, cancellation
// ---------------------------------------------------------------------------

fn failing_tool(name: &str, error: ToolError, runs: &Arc<AtomicU32>) -> FunctionTool {
    let runs = runs.clone();
    string_tool(
        name,
        Some("Fails the same way every time".to_string()),
        open_schema(),
        move |_ctx: ToolContext, _args: Value| {
            let runs = runs.clone();
            let error = error.clone();
            async move {
                runs.fetch_add(1, Ordering::SeqCst);
                Err(error)
            }
        },
    )
}

#[tokio::test]
async fn feedback_and_user_errors_are_returns_that_cost_no_retry_budget() {
    for (error, kind, is_error) in [
        (
            ToolError::feedback("file not found"),
            starweaver::model::ToolReturnKind::Feedback,
            false,
        ),
        (
            ToolError::user_error("missing dependency"),
            starweaver::model::ToolReturnKind::UserError,
            true,
        ),
    ] {
        let runs = counter();
        let model = Arc::new(TestModel::scripted(vec![
            call_response("c1", "soft", json!({})),
            call_response("c2", "soft", json!({})),
            call_response("c3", "soft", json!({})),
            ModelResponse::text("coped"),
        ]));
        let agent = AgentBuilder::new(model.clone())
            .tool(Arc::new(
                failing_tool("soft", error, &runs).with_max_retries(0),
            ))
            .build();
        let result = agent.run("go").await.unwrap();
        assert_eq!(result.output, "coped");
        // Never retried internally either.
        assert_eq!(runs.load(Ordering::SeqCst), 3);
        let returns = tool_returns(&result.messages);
        assert_eq!(returns.len(), 3);
        for part in &returns {
            assert_eq!(part.kind, kind);
            assert_eq!(part.is_error(), is_error);
            assert_eq!(part.content["success"], json!(false));
        }
        assert!(retry_prompts(&model.requests()[1]).is_empty());
    }
}

#[tokio::test]
async fn execution_failures_are_retried_internally_without_the_model() {
    let runs = counter();
    let counter = runs.clone();
    let flaky = string_tool(
        "flaky_io",
        Some("Fails once unexpectedly".to_string()),
        open_schema(),
        move |_ctx: ToolContext, _args: Value| {
            let counter = counter.clone();
            async move {
                if counter.fetch_add(1, Ordering::SeqCst) == 0 {
                    Err(ToolError::execution("connection reset"))
                } else {
                    Ok(ToolResult::new(json!({"ok": true})))
                }
            }
        },
    );
    let model = Arc::new(TestModel::scripted(vec![
        call_response("c1", "flaky_io", json!({})),
        ModelResponse::text("done"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(flaky))
        .build();
    let result = agent.run("go").await.unwrap();
    assert_eq!(result.output, "done");
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    assert_eq!(model.requests().len(), 2);
    let part = &tool_returns(&result.messages)[0];
    assert!(part.is_success(), "{part:?}");
    assert_eq!(part.metadata["retry"]["class"], json!("execution"));
    assert_eq!(part.metadata["retry"]["attempts"], json!(2));

    // Always failing: the budget runs out and the model gets an error
    // return, not a retry prompt and not a run failure.
    let always = crate::common::counter();
    let model = Arc::new(TestModel::scripted(vec![
        call_response("c1", "broken", json!({})),
        ModelResponse::text("gave up"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(
            failing_tool("broken", ToolError::execution("boom"), &always).with_max_retries(2),
        ))
        .build();
    let result = agent.run("go").await.unwrap();
    assert_eq!(result.output, "gave up");
    assert_eq!(always.load(Ordering::SeqCst), 3);
    let part = &tool_returns(&result.messages)[0];
    assert_eq!(
        part.kind,
        starweaver::model::ToolReturnKind::ExecutionFailed
    );
    assert_eq!(part.metadata["retry"]["exhausted"], json!(true));
}

#[tokio::test]
async fn panicking_tool_is_an_error_return_not_a_crash() {
    let model = Arc::new(TestModel::scripted(vec![
        call_response("c1", "explode", json!({})),
        ModelResponse::text("survived"),
    ]));
    let explode = string_tool(
        "explode",
        Some("Panics".to_string()),
        open_schema(),
        |_ctx: ToolContext, _args: Value| async move {
            if true {
                panic!("kaboom");
            }
            Ok(ToolResult::new(json!({})))
        },
    )
    .with_max_retries(0);
    let agent = AgentBuilder::new(model).tool(Arc::new(explode)).build();
    let result = agent.run("go").await.unwrap();
    assert_eq!(result.output, "survived");
    let part = &tool_returns(&result.messages)[0];
    assert_eq!(
        part.kind,
        starweaver::model::ToolReturnKind::ExecutionFailed
    );
    assert!(
        part.content["message"].as_str().unwrap().contains("kaboom"),
        "{part:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn agent_level_timeout_applies_to_tools() {
    let hang = string_tool(
        "hang",
        Some("Never finishes".to_string()),
        open_schema(),
        |_ctx: ToolContext, _args: Value| async move {
            std::future::pending::<()>().await;
            Ok(ToolResult::new(json!({})))
        },
    );
    let model = Arc::new(TestModel::scripted(vec![
        call_response("c1", "hang", json!({})),
        ModelResponse::text("timed out"),
    ]));
    let agent = AgentBuilder::new(model)
        .tool(Arc::new(hang))
        .runtime_policy(AgentRuntimePolicy {
            timeout_ms: Some(50),
            ..Default::default()
        })
        .build();
    let result = agent.run("go").await.unwrap();
    assert_eq!(result.output, "timed out");
    let part = &tool_returns(&result.messages)[0];
    assert_eq!(part.kind, starweaver::model::ToolReturnKind::Timeout);
    assert!(
        part.content["message"].as_str().unwrap().contains("50 ms"),
        "{part:?}"
    );
}

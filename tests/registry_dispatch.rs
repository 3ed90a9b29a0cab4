//! Behaviour rules of `ToolRegistry::execute_call`: retry classes and
//! budgets, timeout and retry precedence, timeouts, panics, cancellation,
//! malformed calls, execution hooks, private metadata and argument
//! validators (Tools chapter: "Retry and feedback semantics", "Timeout
//! metadata", "Execution hooks", "Availability").
//!
//! Every test counts tool executions with an `Arc<AtomicU32>`; timing is
//! made deterministic with paused Tokio time, never with real sleeps.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use starweaver::{
    string_tool, typed_tool, BoxFuture, ConversationId, DeferredToolset, FunctionTool, RunId,
    StaticToolset, ToolCallPart, ToolContext, ToolError, ToolExecutionHook, ToolExecutionOutcome,
    ToolHookInput, ToolHookOutput, ToolKind, ToolRegistry, ToolResult, ToolReturnKind,
    ToolReturnPart, DEFAULT_MAX_RETRIES,
};
use tokio_util::sync::CancellationToken;

mod common;
use common::{counter, open_schema};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn runs(counter: &AtomicU32) -> u32 {
    counter.load(Ordering::SeqCst)
}

/// A manual-schema tool that counts its executions and answers with
/// `script(ctx, n, args)`, where `n` is the 0-based execution number.
fn scripted<F>(name: &str, executions: &Arc<AtomicU32>, script: F) -> FunctionTool
where
    F: Fn(&ToolContext, u32, Value) -> Result<ToolResult, ToolError> + Send + Sync + 'static,
{
    let executions = executions.clone();
    string_tool(
        name,
        Some(format!("{name} test tool")),
        open_schema(),
        move |ctx: ToolContext, args: Value| {
            let n = executions.fetch_add(1, Ordering::SeqCst);
            let result = script(&ctx, n, args);
            async move { result }
        },
    )
}

/// A tool that echoes its arguments and counts executions.
fn counting_echo(name: &str, executions: &Arc<AtomicU32>) -> FunctionTool {
    scripted(name, executions, |_ctx, _n, args| Ok(ToolResult::new(args)))
}

async fn execute(registry: &ToolRegistry, name: &str, arguments: Value) -> ToolReturnPart {
    execute_with(registry, ToolContext::default(), name, arguments).await
}

async fn execute_with(
    registry: &ToolRegistry,
    ctx: ToolContext,
    name: &str,
    arguments: Value,
) -> ToolReturnPart {
    registry
        .execute_call(ctx, &ToolCallPart::new("call-1", name, arguments))
        .await
}

fn message(part: &ToolReturnPart) -> &str {
    part.content["message"].as_str().unwrap_or_default()
}

// ---------------------------------------------------------------------------
// Retry budgets per error class
// ---------------------------------------------------------------------------

#[tokio::test]
async fn execution_error_is_retried_internally_until_the_default_budget_is_exhausted() {
    let executions = counter();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen_in_tool = seen.clone();
    let registry = ToolRegistry::new().with_tool(Arc::new(scripted(
        "flaky",
        &executions,
        move |ctx, n, _args| {
            seen_in_tool
                .lock()
                .unwrap()
                .push((ctx.execution_attempt(), ctx.max_retries()));
            Err(ToolError::execution(format!("transient failure {n}")))
        },
    )));

    let part = execute(&registry, "flaky", json!({})).await;

    assert_eq!(DEFAULT_MAX_RETRIES, 3);
    assert_eq!(runs(&executions), 4, "1 attempt + 3 internal retries");
    assert_eq!(part.kind, ToolReturnKind::ExecutionFailed);
    assert!(part.is_error);
    assert_eq!(part.tool_call_id, "call-1");
    assert_eq!(part.tool_name, "flaky");
    assert_eq!(
        part.metadata["retry"],
        json!({"class": "execution", "attempts": 4, "max_retries": 3, "exhausted": true})
    );
    assert_eq!(part.content["success"], json!(false));
    assert_eq!(part.content["is_error"], json!(true));
    assert_eq!(part.content["error_kind"], json!("execution_failed"));
    assert!(message(&part).contains("transient failure 3"), "{part:?}");
    assert_eq!(
        *seen.lock().unwrap(),
        vec![(0, 3), (1, 3), (2, 3), (3, 3)],
        "the tool sees its execution attempt and effective budget"
    );
}

#[tokio::test]
async fn execution_error_followed_by_success_returns_success_after_three_attempts() {
    let executions = counter();
    let registry = ToolRegistry::new().with_tool(Arc::new(scripted(
        "recovering",
        &executions,
        |_ctx, n, _args| {
            if n < 2 {
                Err(ToolError::execution("not yet"))
            } else {
                Ok(ToolResult::new(json!({"attempt": n})))
            }
        },
    )));

    let part = execute(&registry, "recovering", json!({})).await;

    assert_eq!(runs(&executions), 3);
    assert_eq!(part.kind, ToolReturnKind::Success);
    assert!(!part.is_error);
    assert_eq!(part.content, json!({"attempt": 2}));
}

#[tokio::test]
async fn model_retry_runs_once_and_records_model_retry_metadata() {
    let executions = counter();
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(scripted(
            "pick",
            &executions,
            |_ctx, _n, _args| Err(ToolError::model_retry("pick one of: red, green")),
        )))
        .with_tool(Arc::new(
            scripted("tight", &executions, |_ctx, _n, _args| {
                Err(ToolError::model_retry("try again"))
            })
            .with_max_retries(2),
        ));

    // Two model retries already used: this is the third.
    let ctx = ToolContext::new(RunId::default(), ConversationId::default(), 2);
    let part = execute_with(&registry, ctx, "pick", json!({})).await;
    assert_eq!(
        runs(&executions),
        1,
        "model retries are not retried internally"
    );
    assert_eq!(part.kind, ToolReturnKind::ModelRetry);
    assert!(part.is_error);
    assert_eq!(
        part.metadata["retry"],
        json!({"class": "model", "retry": 3, "max_retries": 3, "exhausted": false})
    );
    assert_eq!(part.content["error_kind"], json!("model_retry"));
    assert_eq!(message(&part), "pick one of: red, green");

    // Budget 2, third model retry: exhausted.
    let ctx = ToolContext::new(RunId::default(), ConversationId::default(), 2);
    let part = execute_with(&registry, ctx, "tight", json!({})).await;
    assert_eq!(runs(&executions), 2);
    assert_eq!(
        part.metadata["retry"],
        json!({"class": "model", "retry": 3, "max_retries": 2, "exhausted": true})
    );

    // Default budget 3, fourth model retry: exhausted.
    let ctx = ToolContext::default().with_retry(3);
    let part = execute_with(&registry, ctx, "pick", json!({})).await;
    assert_eq!(
        part.metadata["retry"],
        json!({"class": "model", "retry": 4, "max_retries": 3, "exhausted": true})
    );
}

#[derive(Debug, Deserialize, JsonSchema)]
struct LookupArgs {
    /// Search query to look up.
    query: String,
}

#[tokio::test]
async fn typed_tool_with_a_missing_field_is_invalid_arguments_and_never_runs() {
    let executions = counter();
    let in_tool = executions.clone();
    let lookup = typed_tool::<LookupArgs, _, _>(
        "lookup",
        Some("Lookup a value".to_string()),
        move |_ctx: ToolContext, args: LookupArgs| {
            in_tool.fetch_add(1, Ordering::SeqCst);
            async move { Ok(ToolResult::new(json!({"value": args.query}))) }
        },
    );
    let registry = ToolRegistry::new().with_tool(Arc::new(lookup));

    let part = execute(&registry, "lookup", json!({"q": "typo"})).await;

    assert_eq!(runs(&executions), 0);
    assert_eq!(part.kind, ToolReturnKind::InvalidArguments);
    assert!(part.is_error);
    assert!(part.kind.is_model_retry());
    assert!(message(&part).contains("query"), "{part:?}");
    assert_eq!(part.metadata["retry"]["class"], json!("model"));
    assert_eq!(part.metadata["retry"]["retry"], json!(1));

    // Sanity: a valid call does run.
    let part = execute(&registry, "lookup", json!({"query": "ok"})).await;
    assert_eq!(part.kind, ToolReturnKind::Success);
    assert_eq!(runs(&executions), 1);
}

#[tokio::test]
async fn manual_schema_type_mismatch_is_invalid_arguments_naming_the_json_pointer() {
    let executions = counter();
    let executions_in_tool = executions.clone();
    let tool = string_tool(
        "repeat",
        Some("Repeat a word".to_string()),
        json!({
            "type": "object",
            "properties": {
                "word": {"type": "string"},
                "count": {"type": "integer", "minimum": 1}
            },
            "required": ["word", "count"]
        }),
        move |_ctx: ToolContext, args: Value| {
            executions_in_tool.fetch_add(1, Ordering::SeqCst);
            async move { Ok(ToolResult::new(args)) }
        },
    );
    let registry = ToolRegistry::new().with_tool(Arc::new(tool));

    let part = execute(&registry, "repeat", json!({"word": "hi", "count": "many"})).await;

    assert_eq!(runs(&executions), 0);
    assert_eq!(part.kind, ToolReturnKind::InvalidArguments);
    assert!(part.is_error);
    assert!(message(&part).contains("/count"), "{part:?}");
    assert_eq!(part.metadata["retry"]["class"], json!("model"));
}

#[tokio::test]
async fn feedback_runs_once_and_is_not_an_error() {
    let executions = counter();
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(scripted(
            "read",
            &executions,
            |_ctx, _n, _args| Err(ToolError::feedback("file `notes.md` does not exist")),
        )))
        .with_tool(Arc::new(scripted(
            "fetch",
            &executions,
            |_ctx, _n, _args| {
                Err(ToolError::Feedback {
                    message: "HTTP 404".to_string(),
                    details: Some(json!({"status": 404})),
                })
            },
        )));

    let part = execute(&registry, "read", json!({})).await;
    assert_eq!(runs(&executions), 1);
    assert_eq!(part.kind, ToolReturnKind::Feedback);
    assert!(!part.is_error);
    assert_eq!(part.content["success"], json!(false));
    assert_eq!(part.content["is_error"], json!(false));
    assert_eq!(part.content["error_kind"], json!("feedback"));
    assert_eq!(message(&part), "file `notes.md` does not exist");
    assert!(
        !part.metadata.contains_key("retry"),
        "feedback consumes no retry budget: {part:?}"
    );

    let part = execute(&registry, "fetch", json!({})).await;
    assert_eq!(runs(&executions), 2);
    assert_eq!(part.kind, ToolReturnKind::Feedback);
    assert_eq!(part.content["details"], json!({"status": 404}));
}

#[tokio::test]
async fn user_error_runs_once_and_carries_no_retry_metadata() {
    let executions = counter();
    let registry =
        ToolRegistry::new().with_tool(Arc::new(scripted("needs_db", &executions, |_, _, _| {
            Err(ToolError::user_error(
                "database dependency missing; attach it with insert_dependency",
            ))
        })));

    let part = execute(&registry, "needs_db", json!({})).await;

    assert_eq!(runs(&executions), 1);
    assert_eq!(part.kind, ToolReturnKind::UserError);
    assert!(part.is_error);
    assert!(!part.kind.is_model_retry());
    assert_eq!(part.content["error_kind"], json!("user_error"));
    assert!(!part.metadata.contains_key("retry"), "{part:?}");
}

// ---------------------------------------------------------------------------
// Precedence of timeouts and retries
// ---------------------------------------------------------------------------

#[tokio::test]
async fn timeout_and_retry_precedence_is_tool_then_toolset_then_registry_then_default() {
    let executions = counter();
    let toolset = Arc::new(
        StaticToolset::new("limited")
            .with_timeout_ms(2_000)
            .with_max_retries(1)
            .with_tool(Arc::new(
                counting_echo("own_limits", &executions)
                    .with_timeout_ms(1_000)
                    .with_max_retries(0),
            ))
            .with_tool(Arc::new(counting_echo("toolset_limits", &executions))),
    );
    let configured = ToolRegistry::new()
        .with_timeout_ms(5_000)
        .with_max_retries(2)
        .with_toolset(&toolset)
        .with_tool(Arc::new(counting_echo("registry_limits", &executions)))
        .with_tool(Arc::new(
            counting_echo("tool_over_registry", &executions)
                .with_timeout_ms(10)
                .with_max_retries(7),
        ));
    let plain = ToolRegistry::new().with_tool(Arc::new(counting_echo("defaults", &executions)));

    assert_eq!(configured.timeout_ms_for("own_limits"), Some(1_000));
    assert_eq!(configured.max_retries_for("own_limits"), 0);
    assert_eq!(configured.timeout_ms_for("toolset_limits"), Some(2_000));
    assert_eq!(configured.max_retries_for("toolset_limits"), 1);
    assert_eq!(configured.timeout_ms_for("registry_limits"), Some(5_000));
    assert_eq!(configured.max_retries_for("registry_limits"), 2);
    assert_eq!(configured.timeout_ms_for("tool_over_registry"), Some(10));
    assert_eq!(configured.max_retries_for("tool_over_registry"), 7);
    assert_eq!(plain.timeout_ms_for("defaults"), None);
    assert_eq!(plain.max_retries_for("defaults"), DEFAULT_MAX_RETRIES);
    assert_eq!(plain.max_retries_for("defaults"), 3);
}

/// Registry for observing retry precedence: every tool always fails with
/// an execution error.
fn failing(name: &str, executions: &Arc<AtomicU32>) -> FunctionTool {
    scripted(name, executions, |_, _, _| {
        Err(ToolError::execution("boom"))
    })
}

#[tokio::test]
async fn retry_precedence_is_observable_in_the_number_of_executions() {
    // Toolset budget 1 beats registry budget 5: 2 executions.
    let executions = counter();
    let toolset = Arc::new(
        StaticToolset::new("set")
            .with_max_retries(1)
            .with_tool(Arc::new(failing("toolset_budget", &executions))),
    );
    let registry = ToolRegistry::new()
        .with_max_retries(5)
        .with_toolset(&toolset);
    let part = execute(&registry, "toolset_budget", json!({})).await;
    assert_eq!(runs(&executions), 2);
    assert_eq!(
        part.metadata["retry"],
        json!({"class": "execution", "attempts": 2, "max_retries": 1, "exhausted": true})
    );

    // Tool budget 2 beats toolset budget 1: 3 executions.
    let executions = counter();
    let toolset = Arc::new(
        StaticToolset::new("set")
            .with_max_retries(1)
            .with_tool(Arc::new(
                failing("tool_budget", &executions).with_max_retries(2),
            )),
    );
    let registry = ToolRegistry::new()
        .with_max_retries(5)
        .with_toolset(&toolset);
    execute(&registry, "tool_budget", json!({})).await;
    assert_eq!(runs(&executions), 3);

    // Registry budget 0 beats the default: 1 execution.
    let executions = counter();
    let registry = ToolRegistry::new()
        .with_max_retries(0)
        .with_tool(Arc::new(failing("registry_budget", &executions)));
    let part = execute(&registry, "registry_budget", json!({})).await;
    assert_eq!(runs(&executions), 1);
    assert_eq!(part.kind, ToolReturnKind::ExecutionFailed);

    // Nothing configured: default budget 3, 4 executions.
    let executions = counter();
    let registry = ToolRegistry::new().with_tool(Arc::new(failing("default_budget", &executions)));
    execute(&registry, "default_budget", json!({})).await;
    assert_eq!(runs(&executions), 4);
}

/// A tool that sleeps `ms` of (paused) Tokio time and then succeeds.
fn sleeper(name: &str, ms: u64, executions: &Arc<AtomicU32>) -> FunctionTool {
    let executions = executions.clone();
    string_tool(
        name,
        Some("Sleeps".to_string()),
        open_schema(),
        move |_ctx: ToolContext, _args: Value| {
            executions.fetch_add(1, Ordering::SeqCst);
            async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(ToolResult::new(json!({"slept_ms": ms})))
            }
        },
    )
}

#[tokio::test(start_paused = true)]
async fn timeout_precedence_is_observable_in_the_outcome() {
    let executions = counter();

    // Registry timeout applies when nothing else is set.
    let registry = ToolRegistry::new()
        .with_timeout_ms(50)
        .with_tool(Arc::new(sleeper("slow", 100, &executions)));
    let part = execute(&registry, "slow", json!({})).await;
    assert_eq!(part.kind, ToolReturnKind::Timeout);
    assert!(message(&part).contains("50 ms"), "{part:?}");

    // Toolset timeout (1000) beats registry timeout (50).
    let toolset = Arc::new(
        StaticToolset::new("patient")
            .with_timeout_ms(1_000)
            .with_tool(Arc::new(sleeper("slow", 100, &executions))),
    );
    let registry = ToolRegistry::new()
        .with_timeout_ms(50)
        .with_toolset(&toolset);
    let part = execute(&registry, "slow", json!({})).await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{part:?}");

    // Toolset timeout (50) beats registry timeout (1000).
    let toolset = Arc::new(
        StaticToolset::new("hasty")
            .with_timeout_ms(50)
            .with_tool(Arc::new(sleeper("slow", 100, &executions))),
    );
    let registry = ToolRegistry::new()
        .with_timeout_ms(1_000)
        .with_toolset(&toolset);
    let part = execute(&registry, "slow", json!({})).await;
    assert_eq!(part.kind, ToolReturnKind::Timeout);
    assert!(message(&part).contains("50 ms"), "{part:?}");

    // Tool timeout (1000) beats toolset timeout (50).
    let toolset = Arc::new(
        StaticToolset::new("hasty")
            .with_timeout_ms(50)
            .with_tool(Arc::new(
                sleeper("slow", 100, &executions).with_timeout_ms(1_000),
            )),
    );
    let registry = ToolRegistry::new().with_toolset(&toolset);
    let part = execute(&registry, "slow", json!({})).await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{part:?}");

    // Tool timeout (50) beats toolset (1000) and registry (1000).
    let toolset = Arc::new(
        StaticToolset::new("patient")
            .with_timeout_ms(1_000)
            .with_tool(Arc::new(
                sleeper("slow", 100, &executions).with_timeout_ms(50),
            )),
    );
    let registry = ToolRegistry::new()
        .with_timeout_ms(1_000)
        .with_toolset(&toolset);
    let part = execute(&registry, "slow", json!({})).await;
    assert_eq!(part.kind, ToolReturnKind::Timeout);
    assert!(message(&part).contains("50 ms"), "{part:?}");

    assert_eq!(runs(&executions), 5, "timeouts are never retried");
}

// ---------------------------------------------------------------------------
// Timeouts, panics and odd results
// ---------------------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn timeout_is_enforced_and_not_retried() {
    let executions = counter();
    let registry = ToolRegistry::new().with_tool(Arc::new(
        sleeper("hang", 10_000, &executions).with_timeout_ms(50),
    ));

    let started = tokio::time::Instant::now();
    let part = execute(&registry, "hang", json!({})).await;
    let elapsed = started.elapsed();

    assert_eq!(part.kind, ToolReturnKind::Timeout);
    assert!(part.is_error);
    assert_eq!(part.content["error_kind"], json!("timeout"));
    assert!(message(&part).contains("50 ms"), "{part:?}");
    assert_eq!(runs(&executions), 1, "a timeout is not retried");
    assert!(
        elapsed >= Duration::from_millis(50) && elapsed < Duration::from_secs(10),
        "the call ended at the timeout, not when the tool finished: {elapsed:?}"
    );
}

/// A tool whose async body panics with a formatted (`String`) payload on
/// every execution.
fn async_panicker(name: &str, executions: &Arc<AtomicU32>) -> FunctionTool {
    let executions = executions.clone();
    string_tool(
        name,
        None,
        open_schema(),
        move |_ctx: ToolContext, _args: Value| {
            let n = executions.fetch_add(1, Ordering::SeqCst);
            async move {
                if n < u32::MAX {
                    panic!("kaboom in attempt {n}");
                }
                Ok(ToolResult::new(json!(null)))
            }
        },
    )
}

#[tokio::test]
async fn panicking_tool_becomes_execution_failed_and_is_retried_within_budget() {
    // Panics inside the async body, on every attempt.
    let executions = counter();
    let registry =
        ToolRegistry::new().with_tool(Arc::new(async_panicker("async_panic", &executions)));
    let part = execute(&registry, "async_panic", json!({})).await;
    assert_eq!(part.kind, ToolReturnKind::ExecutionFailed);
    assert!(part.is_error);
    assert_eq!(part.content["error_kind"], json!("execution_failed"));
    assert!(message(&part).contains("panicked"), "{part:?}");
    assert_eq!(
        runs(&executions),
        4,
        "panics are retried like execution errors"
    );
    assert_eq!(
        part.metadata["retry"],
        json!({"class": "execution", "attempts": 4, "max_retries": 3, "exhausted": true})
    );

    // Panics while building the future (synchronously in the handler),
    // then recovers on the second attempt.
    let executions = counter();
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(scripted("sync_panic", &executions, |_, n, _| {
            assert!(n != 0, "first attempt explodes");
            Ok(ToolResult::new(json!({"attempt": n})))
        })))
        .with_tool(Arc::new(counting_echo("healthy", &executions)));
    let part = execute(&registry, "sync_panic", json!({})).await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{part:?}");
    assert_eq!(part.content, json!({"attempt": 1}));

    // The caller did not crash and the registry keeps working.
    let part = execute(&registry, "healthy", json!({"still": "alive"})).await;
    assert_eq!(part.kind, ToolReturnKind::Success);
    assert_eq!(part.content, json!({"still": "alive"}));
}

#[tokio::test]
async fn panic_message_is_reported_in_the_content() {
    // `String` payload (formatted panic), default budget.
    let executions = counter();
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(async_panicker("async_panic", &executions)))
        .with_tool(Arc::new(
            scripted(
                "explode",
                &executions,
                |_, _, _| -> Result<ToolResult, ToolError> { panic!("static str panic payload") },
            )
            .with_max_retries(0),
        ));
    let part = execute(&registry, "async_panic", json!({})).await;
    assert_eq!(part.kind, ToolReturnKind::ExecutionFailed);
    assert!(message(&part).contains("kaboom in attempt 3"), "{part:?}");

    // `&'static str` payload, zero budget.
    let part = execute(&registry, "explode", json!({})).await;
    assert_eq!(part.kind, ToolReturnKind::ExecutionFailed);
    assert!(
        message(&part).contains("static str panic payload"),
        "{part:?}"
    );
}

#[tokio::test]
async fn panicking_argument_validator_is_reported_not_propagated() {
    // A validator is tool-supplied code run by the registry during
    // dispatch; `execute_call` promises that panics become tool returns.
    let executions = counter();
    let tool = counting_echo("fragile", &executions).with_argument_validator(|_ctx, _args| {
        panic!("validator exploded");
    });
    let registry = ToolRegistry::new().with_tool(Arc::new(tool));

    let call_registry = registry.clone();
    let outcome =
        tokio::spawn(async move { execute(&call_registry, "fragile", json!({})).await }).await;

    let part = outcome.expect("execute_call must not unwind into the caller");
    assert_eq!(runs(&executions), 0);
    assert_eq!(part.kind, ToolReturnKind::ExecutionFailed, "{part:?}");
    assert!(message(&part).contains("validator exploded"), "{part:?}");
}

#[tokio::test]
async fn arbitrary_json_results_are_returned_verbatim_as_content() {
    let mut nested = json!("leaf");
    for depth in 0..64 {
        nested = json!({ format!("level{depth}"): [nested, depth, null, true] });
    }
    let big_array = Value::Array(
        (0..10_000)
            .map(|i| json!({"i": i, "s": "x".repeat(8)}))
            .collect(),
    );
    let cases = vec![
        nested,
        big_array,
        json!("just a string, not an object"),
        json!(null),
        json!(42.5),
        json!(["\u{0000}", "emoji \u{1F980}", {"": ""}]),
    ];

    for (index, expected) in cases.into_iter().enumerate() {
        let executions = counter();
        let returned = expected.clone();
        let registry = ToolRegistry::new().with_tool(Arc::new(scripted(
            "garbage",
            &executions,
            move |_, _, _| Ok(ToolResult::new(returned.clone())),
        )));
        let part = execute(&registry, "garbage", json!({})).await;
        assert_eq!(part.kind, ToolReturnKind::Success, "case {index}");
        assert!(!part.is_error, "case {index}");
        assert_eq!(part.content, expected, "case {index}");
        assert_eq!(runs(&executions), 1, "case {index}");
    }
}

// ---------------------------------------------------------------------------
// Cancellation
// ---------------------------------------------------------------------------

#[tokio::test]
async fn cancelled_before_the_call_the_tool_never_runs() {
    let executions = counter();
    let registry = ToolRegistry::new().with_tool(Arc::new(counting_echo("work", &executions)));
    let token = CancellationToken::new();
    token.cancel();

    let part = execute_with(
        &registry,
        ToolContext::default().with_cancellation(token),
        "work",
        json!({}),
    )
    .await;

    assert_eq!(part.kind, ToolReturnKind::Cancelled);
    assert!(part.is_error);
    assert_eq!(part.content["error_kind"], json!("cancelled"));
    assert_eq!(runs(&executions), 0);
}

#[tokio::test(start_paused = true)]
async fn cancelled_during_a_long_tool_the_call_ends_cancelled() {
    let executions = counter();
    let started = Arc::new(tokio::sync::Notify::new());
    let in_tool = (executions.clone(), started.clone());
    let long = string_tool(
        "long",
        None,
        open_schema(),
        move |_ctx: ToolContext, _args: Value| {
            in_tool.0.fetch_add(1, Ordering::SeqCst);
            let started = in_tool.1.clone();
            async move {
                started.notify_one();
                // With paused time this would complete (and succeed) if
                // cancellation did not end the call first.
                tokio::time::sleep(Duration::from_secs(3_600)).await;
                Ok(ToolResult::new(json!("finished")))
            }
        },
    );
    let registry = ToolRegistry::new().with_tool(Arc::new(long));
    let token = CancellationToken::new();
    let ctx = ToolContext::default().with_cancellation(token.clone());

    let (part, ()) = tokio::join!(execute_with(&registry, ctx, "long", json!({})), async {
        started.notified().await;
        token.cancel();
    });

    assert_eq!(part.kind, ToolReturnKind::Cancelled, "{part:?}");
    assert!(part.is_error);
    assert_eq!(runs(&executions), 1, "a cancelled call is not retried");
}

// ---------------------------------------------------------------------------
// Unknown tools and malformed arguments
// ---------------------------------------------------------------------------

#[tokio::test]
async fn unknown_tool_is_not_found_and_suggests_the_closest_name() {
    let executions = counter();
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(counting_echo("search_files", &executions)))
        .with_tool(Arc::new(counting_echo("write_note", &executions)));

    let part = execute(&registry, "search_file", json!({})).await;

    assert_eq!(part.kind, ToolReturnKind::NotFound);
    assert!(part.is_error);
    assert!(part.kind.is_model_retry());
    assert_eq!(part.tool_name, "search_file");
    assert!(message(&part).contains("`search_files`"), "{part:?}");
    assert!(message(&part).contains("Did you mean"), "{part:?}");
    assert_eq!(part.metadata["retry"]["class"], json!("model"));
    assert_eq!(runs(&executions), 0);
}

#[tokio::test]
async fn malformed_raw_json_arguments_are_invalid_arguments() {
    let executions = counter();
    let registry = ToolRegistry::new().with_tool(Arc::new(counting_echo("name", &executions)));

    let part = registry
        .execute_call(
            ToolContext::default(),
            &ToolCallPart::new("id", "name", "{oops"),
        )
        .await;

    assert_eq!(part.kind, ToolReturnKind::InvalidArguments);
    assert!(part.is_error);
    assert!(message(&part).contains("JSON"), "{part:?}");
    assert_eq!(part.metadata["retry"]["class"], json!("model"));
    assert_eq!(runs(&executions), 0);
}

#[tokio::test]
async fn empty_raw_arguments_are_treated_as_an_empty_object() {
    let executions = counter();
    let registry = ToolRegistry::new().with_tool(Arc::new(counting_echo("name", &executions)));

    for raw in ["", "   "] {
        let part = registry
            .execute_call(
                ToolContext::default(),
                &ToolCallPart::new("id", "name", raw),
            )
            .await;
        assert_eq!(part.kind, ToolReturnKind::Success, "{raw:?}: {part:?}");
        assert_eq!(part.content, json!({}));
    }
    assert_eq!(runs(&executions), 2);

    // Raw text that is valid JSON is parsed.
    let part = registry
        .execute_call(
            ToolContext::default(),
            &ToolCallPart::new("id", "name", r#"{"a": [1, 2]}"#),
        )
        .await;
    assert_eq!(part.content, json!({"a": [1, 2]}));
}

// ---------------------------------------------------------------------------
// Execution hooks
// ---------------------------------------------------------------------------

type Log = Arc<Mutex<Vec<String>>>;

type BeforeFn = dyn for<'a> Fn(&mut ToolHookInput<'a>) -> Result<(), ToolError> + Send + Sync;

type AfterFn = dyn for<'a> Fn(&mut ToolHookOutput<'a>) + Send + Sync;

/// A hook that logs `before:<label>` / `after:<label>` and optionally
/// runs a closure.
struct TestHook {
    label: &'static str,
    log: Log,
    before: Option<Box<BeforeFn>>,
    after: Option<Box<AfterFn>>,
}

impl TestHook {
    fn new(label: &'static str, log: &Log) -> Self {
        Self {
            label,
            log: log.clone(),
            before: None,
            after: None,
        }
    }

    fn before<F>(mut self, before: F) -> Self
    where
        F: for<'a> Fn(&mut ToolHookInput<'a>) -> Result<(), ToolError> + Send + Sync + 'static,
    {
        self.before = Some(Box::new(before));
        self
    }

    fn after<F>(mut self, after: F) -> Self
    where
        F: for<'a> Fn(&mut ToolHookOutput<'a>) + Send + Sync + 'static,
    {
        self.after = Some(Box::new(after));
        self
    }

    fn build(self) -> Arc<dyn ToolExecutionHook> {
        Arc::new(self)
    }
}

impl ToolExecutionHook for TestHook {
    fn before_execute<'a>(
        &'a self,
        mut input: ToolHookInput<'a>,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        self.log
            .lock()
            .unwrap()
            .push(format!("before:{}", self.label));
        let result = self
            .before
            .as_ref()
            .map_or(Ok(()), |before| before(&mut input));
        Box::pin(async move { result })
    }

    fn after_execute<'a>(&'a self, mut output: ToolHookOutput<'a>) -> BoxFuture<'a, ()> {
        let kind = match &*output.outcome {
            ToolExecutionOutcome::Success(_) => "success".to_string(),
            ToolExecutionOutcome::Error(error) => error.kind().as_str().to_string(),
        };
        self.log
            .lock()
            .unwrap()
            .push(format!("after:{}:{kind}", self.label));
        if let Some(after) = &self.after {
            after(&mut output);
        }
        Box::pin(async {})
    }
}

fn logging_tool(name: &str, log: &Log, executions: &Arc<AtomicU32>) -> FunctionTool {
    let log = log.clone();
    scripted(name, executions, move |_, _, args| {
        log.lock().unwrap().push("tool".to_string());
        Ok(ToolResult::new(args))
    })
}

fn entries(log: &Log) -> Vec<String> {
    log.lock().unwrap().clone()
}

#[tokio::test]
async fn hooks_run_global_then_tool_on_input_and_tool_then_global_on_output() {
    let log: Log = Arc::default();
    let executions = counter();
    // Registration interleaves the two classes: order is by class first,
    // then by registration within a class.
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(logging_tool("echo", &log, &executions)))
        .with_tool(Arc::new(logging_tool("other", &log, &executions)))
        .with_tool_execution_hook("echo", TestHook::new("tool1", &log).build())
        .with_execution_hook(TestHook::new("global1", &log).build())
        .with_tool_execution_hook("other", TestHook::new("other_only", &log).build())
        .with_tool_execution_hook("echo", TestHook::new("tool2", &log).build())
        .with_execution_hook(TestHook::new("global2", &log).build());

    let part = execute(&registry, "echo", json!({"x": 1})).await;

    assert_eq!(part.kind, ToolReturnKind::Success);
    assert_eq!(
        entries(&log),
        vec![
            "before:global1",
            "before:global2",
            "before:tool1",
            "before:tool2",
            "tool",
            "after:tool1:success",
            "after:tool2:success",
            "after:global1:success",
            "after:global2:success",
        ]
    );
}

#[derive(Debug)]
struct TraceSink(&'static str);

#[tokio::test]
async fn input_hooks_rewrite_arguments_and_extend_the_tool_context() {
    let log: Log = Arc::default();
    let executions = counter();
    let tool = scripted("greet", &executions, |ctx, _, args| {
        Ok(ToolResult::new(json!({
            "args": args,
            "trace_id": ctx.metadata().get("trace_id"),
            "sink": ctx.dependency::<TraceSink>().map(|sink| sink.0),
        })))
    });
    let seen_by_second = Arc::new(Mutex::new(Value::Null));
    let seen_by_second_in_hook = seen_by_second.clone();
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(tool))
        .with_execution_hook(
            TestHook::new("rewrite", &log)
                .before(|input| {
                    input.arguments["name"] = json!("rewritten");
                    input
                        .context
                        .metadata_mut()
                        .insert("trace_id".to_string(), json!("trace-42"));
                    Ok(())
                })
                .build(),
        )
        .with_tool_execution_hook(
            "greet",
            TestHook::new("deps", &log)
                .before(move |input| {
                    *seen_by_second_in_hook.lock().unwrap() = input.arguments.clone();
                    input.arguments["added"] = json!(true);
                    input.context.dependencies_mut().insert(TraceSink("sink-1"));
                    Ok(())
                })
                .build(),
        );

    let part = execute(&registry, "greet", json!({"name": "original"})).await;

    assert_eq!(part.kind, ToolReturnKind::Success, "{part:?}");
    assert_eq!(
        *seen_by_second.lock().unwrap(),
        json!({"name": "rewritten"}),
        "later input hooks see earlier rewrites"
    );
    assert_eq!(
        part.content,
        json!({
            "args": {"name": "rewritten", "added": true},
            "trace_id": "trace-42",
            "sink": "sink-1",
        })
    );
}

#[tokio::test]
async fn output_hooks_can_replace_success_and_error_outcomes() {
    let log: Log = Arc::default();
    let executions = counter();
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(scripted("succeeds", &executions, |_, _, _| {
            Ok(ToolResult::new(json!({"secret": "raw output"})))
        })))
        .with_tool(Arc::new(scripted("fails", &executions, |_, _, _| {
            Err(ToolError::user_error("integration broke"))
        })))
        .with_tool_execution_hook(
            "succeeds",
            TestHook::new("redact", &log)
                .after(|output| {
                    *output.outcome = ToolExecutionOutcome::Error(ToolError::feedback(
                        "output withheld by policy",
                    ));
                })
                .build(),
        )
        .with_tool_execution_hook(
            "fails",
            TestHook::new("recover", &log)
                .after(|output| {
                    *output.outcome =
                        ToolExecutionOutcome::Success(ToolResult::new(json!({"recovered": true})));
                })
                .build(),
        )
        .with_execution_hook(TestHook::new("audit", &log).build());

    let part = execute(&registry, "succeeds", json!({})).await;
    assert_eq!(part.kind, ToolReturnKind::Feedback);
    assert_eq!(message(&part), "output withheld by policy");
    assert!(!part.content.to_string().contains("raw output"));

    let part = execute(&registry, "fails", json!({})).await;
    assert_eq!(part.kind, ToolReturnKind::Success);
    assert!(!part.is_error);
    assert_eq!(part.content, json!({"recovered": true}));

    assert_eq!(runs(&executions), 2);
    assert_eq!(
        entries(&log),
        vec![
            "before:audit",
            "before:redact",
            "after:redact:success",
            "after:audit:feedback",
            "before:audit",
            "before:recover",
            "after:recover:user_error",
            "after:audit:success",
        ],
        "global output hooks see the tool hook's replacement"
    );
}

#[tokio::test]
async fn failing_input_hook_stops_the_call_and_output_hooks_still_run() {
    let log: Log = Arc::default();
    let executions = counter();
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(logging_tool("guarded", &log, &executions)))
        .with_execution_hook(
            TestHook::new("policy", &log)
                .before(|_| Err(ToolError::user_error("blocked by policy")))
                .build(),
        )
        .with_execution_hook(TestHook::new("global2", &log).build())
        .with_tool_execution_hook("guarded", TestHook::new("tool1", &log).build());

    let part = execute(&registry, "guarded", json!({})).await;

    assert_eq!(runs(&executions), 0, "the tool never runs");
    assert!(!entries(&log).contains(&"tool".to_string()));
    assert_eq!(part.kind, ToolReturnKind::UserError);
    assert_eq!(message(&part), "blocked by policy");
    let after: Vec<String> = entries(&log)
        .into_iter()
        .filter(|entry| entry.starts_with("after:"))
        .collect();
    assert_eq!(
        after,
        vec![
            "after:tool1:user_error",
            "after:policy:user_error",
            "after:global2:user_error",
        ]
    );
}

/// An output hook that tries to turn every outcome into a success.
fn hijack(label: &'static str, log: &Log) -> Arc<dyn ToolExecutionHook> {
    TestHook::new(label, log)
        .after(|output| {
            *output.outcome = ToolExecutionOutcome::Success(ToolResult::new(json!("hijacked")));
        })
        .build()
}

/// An output hook that tries to turn every outcome into an ordinary error.
fn hijack_with_error(label: &'static str, log: &Log) -> Arc<dyn ToolExecutionHook> {
    TestHook::new(label, log)
        .after(|output| {
            *output.outcome = ToolExecutionOutcome::Error(ToolError::user_error("hijacked"));
        })
        .build()
}

#[tokio::test]
async fn approval_outcomes_are_observable_but_not_replaceable_by_output_hooks() {
    let log: Log = Arc::default();
    let executions = counter();
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(
            counting_echo("deploy", &executions).with_approval_required(true),
        ))
        .with_tool(Arc::new(
            counting_echo("launch", &executions).with_kind(ToolKind::Unapproved),
        ))
        .with_tool_execution_hook("deploy", hijack("tool_hijack", &log))
        .with_execution_hook(hijack_with_error("global_hijack", &log));

    for name in ["deploy", "launch"] {
        log.lock().unwrap().clear();
        let part = execute(&registry, name, json!({"target": "prod"})).await;
        assert_eq!(
            part.kind,
            ToolReturnKind::ApprovalRequired,
            "{name}: {part:?}"
        );
        assert!(!part.is_error);
        assert_ne!(part.content, json!("hijacked"));
        assert_eq!(part.content["status"], json!("approval_required"));
        assert_eq!(runs(&executions), 0, "{name} must not run without approval");
        let after: Vec<String> = entries(&log)
            .into_iter()
            .filter(|entry| entry.starts_with("after:"))
            .collect();
        assert!(
            !after.is_empty()
                && after
                    .iter()
                    .all(|entry| entry.ends_with(":approval_required")),
            "every output hook observes the approval outcome: {after:?}"
        );
    }

    // Approved: the tool runs, and its ordinary outcome is replaceable.
    for (expected_runs, name) in [(1, "deploy"), (2, "launch")] {
        let part = execute_with(
            &registry,
            ToolContext::default().with_approved(true),
            name,
            json!({"target": "prod"}),
        )
        .await;
        assert_eq!(
            runs(&executions),
            expected_runs,
            "{name} runs once approved"
        );
        assert_eq!(
            part.kind,
            ToolReturnKind::UserError,
            "{name}: an ordinary outcome is replaceable: {part:?}"
        );
        assert_eq!(message(&part), "hijacked");
    }
}

#[tokio::test]
async fn deferred_outcomes_are_observable_but_not_replaceable_by_output_hooks() {
    let log: Log = Arc::default();
    let executions = counter();
    let workers = Arc::new(
        DeferredToolset::new("workers").with_tool(Arc::new(counting_echo("render", &executions))),
    );
    let registry = ToolRegistry::new()
        .with_toolset(&workers)
        .with_tool_execution_hook("render", hijack("tool_hijack", &log))
        .with_execution_hook(hijack_with_error("global_hijack", &log));

    let part = execute(&registry, "render", json!({"scene": 7})).await;

    assert_eq!(part.kind, ToolReturnKind::Deferred, "{part:?}");
    assert!(!part.is_error);
    assert_ne!(part.content, json!("hijacked"));
    assert_eq!(runs(&executions), 0, "the wrapped tool is not run locally");
    assert_eq!(
        entries(&log)
            .into_iter()
            .filter(|entry| entry.starts_with("after:"))
            .collect::<Vec<_>>(),
        vec!["after:tool_hijack:deferred", "after:global_hijack:deferred"]
    );
}

// ---------------------------------------------------------------------------
// Private metadata
// ---------------------------------------------------------------------------

#[tokio::test]
async fn private_metadata_stays_out_of_content_and_public_metadata() {
    let executions = counter();
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(scripted("open", &executions, |_, _, _| {
            Err(ToolError::feedback("file not found")
                .with_private_metadata("host_path", json!("/srv/secret/notes.md")))
        })))
        .with_tool(Arc::new(scripted("read", &executions, |_, _, _| {
            Ok(ToolResult::new(json!({"text": "hello"}))
                .with_metadata("bytes", json!(5))
                .with_private_metadata("token", json!("s3cr3t-token")))
        })))
        .with_tool(Arc::new(scripted("crash", &executions, |_, _, _| {
            Err(ToolError::execution("backend down")
                .with_private_metadata("backend", json!("db-7.internal")))
        })));

    let part = execute(&registry, "open", json!({})).await;
    assert_eq!(part.kind, ToolReturnKind::Feedback);
    assert!(!part.is_error);
    assert_eq!(
        part.private_metadata.get("host_path"),
        Some(&json!("/srv/secret/notes.md"))
    );
    assert!(!part.metadata.contains_key("host_path"));
    assert!(
        !part.content.to_string().contains("/srv/secret"),
        "{part:?}"
    );
    assert!(!serde_json::to_string(&part.metadata)
        .unwrap()
        .contains("/srv/secret"));

    let part = execute(&registry, "read", json!({})).await;
    assert_eq!(part.kind, ToolReturnKind::Success);
    assert_eq!(part.content, json!({"text": "hello"}));
    assert_eq!(part.metadata.get("bytes"), Some(&json!(5)));
    assert!(!part.metadata.contains_key("token"));
    assert_eq!(
        part.private_metadata.get("token"),
        Some(&json!("s3cr3t-token"))
    );
    assert!(!part.private_metadata.contains_key("bytes"));

    // Private metadata does not change the error class.
    let before = runs(&executions);
    let part = execute(&registry, "crash", json!({})).await;
    assert_eq!(part.kind, ToolReturnKind::ExecutionFailed);
    assert_eq!(runs(&executions) - before, 4);
    assert_eq!(
        part.private_metadata.get("backend"),
        Some(&json!("db-7.internal"))
    );
    assert!(!part.content.to_string().contains("db-7.internal"));
}

// ---------------------------------------------------------------------------
// Argument validators
// ---------------------------------------------------------------------------

#[tokio::test]
async fn validators_run_in_order_and_normalise_arguments() {
    let executions = counter();
    let order: Log = Arc::default();
    let (first_log, second_log) = (order.clone(), order.clone());
    let tool = counting_echo("normalised", &executions)
        .with_argument_validator(move |_ctx, args| {
            first_log.lock().unwrap().push("first".to_string());
            let lowered = args["name"].as_str().unwrap_or_default().to_lowercase();
            args["name"] = json!(lowered);
            args["first"] = json!(true);
            Ok(())
        })
        .with_argument_validator(move |_ctx, args| {
            second_log.lock().unwrap().push("second".to_string());
            if args["first"] != json!(true) || args["name"] != json!("ada") {
                return Err(ToolError::invalid_arguments(
                    "normalised",
                    "second validator ran before the first",
                ));
            }
            args["second"] = json!(true);
            Ok(())
        });
    let registry = ToolRegistry::new().with_tool(Arc::new(tool));

    let part = execute(&registry, "normalised", json!({"name": "ADA"})).await;

    assert_eq!(part.kind, ToolReturnKind::Success, "{part:?}");
    assert_eq!(
        part.content,
        json!({"name": "ada", "first": true, "second": true})
    );
    assert_eq!(entries(&order), vec!["first", "second"]);
    assert_eq!(runs(&executions), 1);
}

#[tokio::test]
async fn validator_rejection_is_invalid_arguments_and_stops_the_call() {
    let executions = counter();
    let later_validator = counter();
    let later_in_validator = later_validator.clone();
    let tool = counting_echo("validated", &executions)
        .with_argument_validator(|_ctx, args| {
            if args.get("allow").and_then(Value::as_bool) == Some(true) {
                Ok(())
            } else {
                Err(ToolError::InvalidArguments {
                    tool: "validated".to_string(),
                    message: "allow must be true".to_string(),
                })
            }
        })
        .with_argument_validator(move |_ctx, _args| {
            later_in_validator.fetch_add(1, Ordering::SeqCst);
            Ok(())
        });
    let registry = ToolRegistry::new().with_tool(Arc::new(tool));

    let part = execute(&registry, "validated", json!({"allow": false})).await;

    assert_eq!(part.kind, ToolReturnKind::InvalidArguments);
    assert!(part.is_error);
    assert!(message(&part).contains("allow must be true"), "{part:?}");
    assert_eq!(runs(&executions), 0);
    assert_eq!(
        runs(&later_validator),
        0,
        "the chain stops at the rejection"
    );

    let part = execute(&registry, "validated", json!({"allow": true})).await;
    assert_eq!(part.kind, ToolReturnKind::Success);
    assert_eq!(runs(&executions), 1);
    assert_eq!(runs(&later_validator), 1);
}

#[derive(Debug, Deserialize, JsonSchema)]
struct PageArgs {
    /// Topic to page through.
    topic: String,
    /// Page size.
    limit: u32,
}

#[tokio::test]
async fn typed_tools_run_validators_before_serde() {
    let executions = counter();
    let in_tool = executions.clone();
    let tool = typed_tool::<PageArgs, _, _>(
        "page",
        Some("Page through a topic".to_string()),
        move |_ctx: ToolContext, args: PageArgs| {
            in_tool.fetch_add(1, Ordering::SeqCst);
            async move {
                Ok(ToolResult::new(
                    json!({"topic": args.topic, "limit": args.limit}),
                ))
            }
        },
    )
    // Serde would reject both a missing `limit` and `"limit": "ten"`.
    .with_argument_validator(|_ctx, args| {
        match args.get("limit") {
            None => args["limit"] = json!(10),
            Some(Value::String(word)) if word == "ten" => args["limit"] = json!(10),
            _ => {}
        }
        Ok(())
    })
    .with_argument_validator(|_ctx, args| {
        if args["topic"] == json!("forbidden") {
            Err(ToolError::invalid_arguments("page", "topic is not allowed"))
        } else {
            Ok(())
        }
    });
    let registry = ToolRegistry::new().with_tool(Arc::new(tool));

    let part = execute(&registry, "page", json!({"topic": "rust"})).await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{part:?}");
    assert_eq!(part.content, json!({"topic": "rust", "limit": 10}));

    let part = execute(&registry, "page", json!({"topic": "rust", "limit": "ten"})).await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{part:?}");
    assert_eq!(part.content, json!({"topic": "rust", "limit": 10}));
    assert_eq!(runs(&executions), 2);

    let part = execute(&registry, "page", json!({"topic": "forbidden"})).await;
    assert_eq!(part.kind, ToolReturnKind::InvalidArguments);
    assert!(message(&part).contains("topic is not allowed"), "{part:?}");
    assert_eq!(runs(&executions), 2, "a rejected call never runs");
}

#[tokio::test]
async fn zero_budget_execution_failure_records_exhausted_retry_metadata() {
    let tool = string_tool(
        "flaky",
        Some("Always fails".to_string()),
        open_schema(),
        |_ctx: ToolContext, _args: Value| async move { Err(ToolError::execution("boom")) },
    )
    .with_max_retries(0);
    let registry = ToolRegistry::new().with_tool(Arc::new(tool));
    let part = registry
        .execute_call(
            ToolContext::default(),
            &ToolCallPart::new("c", "flaky", json!({})),
        )
        .await;
    assert_eq!(part.kind, ToolReturnKind::ExecutionFailed);
    assert_eq!(
        part.metadata["retry"],
        json!({"class": "execution", "attempts": 1, "max_retries": 0, "exhausted": true})
    );
}

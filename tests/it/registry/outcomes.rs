//! Timeouts, panics, odd results and cancellation: every outcome of
//! `execute_call` is a tool return, never a crash.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use starweaver::model::ToolReturnKind;
use starweaver::tools::FunctionTool;
use starweaver::{string_tool, ToolContext, ToolError, ToolRegistry, ToolResult};
use tokio_util::sync::CancellationToken;

use crate::common::{counter, open_schema};

use super::{counting_echo, execute, execute_with, message, runs, scripted, sleeper};

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
    assert!(part.is_error());
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
    assert!(part.is_error());
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
        assert!(!part.is_error(), "case {index}");
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
    assert!(part.is_error());
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
    assert!(part.is_error());
    assert_eq!(runs(&executions), 1, "a cancelled call is not retried");
}

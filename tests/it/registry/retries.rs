//! Retry classes and budgets of `execute_call`, and the precedence of
//! timeouts and retries (tool, then toolset, then registry, then default).
//! Tools chapter: "Retry and feedback semantics", "Timeout metadata".

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use starweaver::model::{ToolCallPart, ToolReturnKind};
use starweaver::tools::{FunctionTool, DEFAULT_MAX_RETRIES};
use starweaver::{
    string_tool, typed_tool, ConversationId, RunId, StaticToolset, ToolContext, ToolError,
    ToolRegistry, ToolResult,
};

use crate::common::{counter, open_schema};

use super::{counting_echo, execute, execute_with, message, runs, scripted, sleeper};

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
    assert!(part.is_error());
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
    assert!(!part.is_error());
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
    assert!(part.is_error());
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
    assert!(part.is_error());
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
    assert!(part.is_error());
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
    assert!(!part.is_error());
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
    assert!(part.is_error());
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

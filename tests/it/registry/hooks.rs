//! Execution hooks (input and output, global and per tool, panicking
//! ones), private metadata, and hook state that stays with its own call.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use starweaver::agent::AgentHitlUserInteraction;
use starweaver::model::{FunctionModel, ModelMessage, ModelResponse, ToolReturnKind};
use starweaver::tools::{
    BoxFuture, DeferredToolset, DynTool, FunctionTool, ToolExecutionHook, ToolExecutionOutcome,
    ToolHookInput, ToolHookOutput,
};
use starweaver::{
    AgentBuilder, AgentSession, ToolContext, ToolError, ToolKind, ToolRegistry, ToolResult,
};

use crate::common::{batch_model, call, counter, described_echo, echo, responses_so_far};

use super::{counting_echo, entries, execute, execute_with, message, runs, scripted, Log};

// ---------------------------------------------------------------------------
// Execution hooks
// ---------------------------------------------------------------------------

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
    assert!(!part.is_error());
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
        assert!(!part.is_error());
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
    assert!(!part.is_error());
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
    assert!(!part.is_error());
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

struct PanickingHook;

impl ToolExecutionHook for PanickingHook {
    fn before_execute<'a>(
        &'a self,
        _input: ToolHookInput<'a>,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        Box::pin(async { panic!("audit backend unreachable") })
    }
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: a panicking execution hook crashed dispatch.
#[tokio::test]
async fn panicking_hook_becomes_a_tool_return() {
    let registry = ToolRegistry::new()
        .with_execution_hook(Arc::new(PanickingHook))
        .with_tool(echo("echo", "Echo"));
    // execute_call: "Never fails: every outcome, unknown tools, bad JSON,
    // panics and timeouts included, is a tool return."
    let handle = tokio::spawn(async move {
        registry
            .execute_call(ToolContext::default(), &call("c", "echo", json!({})))
            .await
    });
    let part = handle.await.expect("execute_call panicked");
    assert_eq!(part.kind, ToolReturnKind::ExecutionFailed);
}

struct StrictAuditHook;

impl starweaver::tools::ToolExecutionHook for StrictAuditHook {
    fn before_execute<'a>(
        &'a self,
        input: starweaver::tools::ToolHookInput<'a>,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        // Synchronous work before the future, as the `Increment` hook of
        // `hitl::approvals` does; it panics on unexpected input.
        let ticket = input.arguments["ticket"].as_str().unwrap().to_string();
        Box::pin(async move {
            let _ = ticket;
            Ok(())
        })
    }
}

// Regression: a hook panicking before its future existed escaped execute_call.
#[tokio::test]
async fn hook_panicking_before_its_future_becomes_a_tool_return() {
    let registry = ToolRegistry::new()
        .with_execution_hook(Arc::new(StrictAuditHook))
        .with_tool(described_echo("echo"));
    // tool-runtime.md: "execute_call never returns Err. Every outcome is a
    // ToolReturnPart"; the fix made panicking hooks execution failures.
    let handle = tokio::spawn(async move {
        registry
            .execute_call(ToolContext::default(), &call("c", "echo", json!({})))
            .await
    });
    let part = handle.await.expect("execute_call panicked");
    assert_eq!(part.kind, ToolReturnKind::ExecutionFailed);
}

/// A global hook that only counts the calls it sees.
struct CountingHook(Arc<AtomicU32>);

impl ToolExecutionHook for CountingHook {
    fn before_execute<'a>(
        &'a self,
        _input: ToolHookInput<'a>,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async { Ok(()) })
    }
}

// Regression: AgentBuilder::tool_registry dropped the first registry's hooks and defaults.
#[tokio::test]
async fn first_registry_given_to_the_builder_keeps_its_hooks() {
    let seen = counter();
    let audited = ToolRegistry::new()
        .with_execution_hook(Arc::new(CountingHook(seen.clone())))
        .with_tool(echo("audited", "An audited tool"));
    let model = Arc::new(FunctionModel::new(|messages: &[ModelMessage], _| {
        Ok(match responses_so_far(messages) {
            0 => ModelResponse::tool_calls([call("1", "audited", json!({}))]),
            _ => ModelResponse::text("done"),
        })
    }));
    let agent = AgentBuilder::new(model)
        .tool(echo("plain", "A plain tool"))
        .tool_registry(audited)
        .build();
    agent.run("go").await.unwrap();
    // AgentBuilder::tool_registry: "The first registry given keeps its
    // defaults and hooks; later ones contribute their tools."
    assert_eq!(
        seen.load(Ordering::SeqCst),
        1,
        "the hook of the only registry given never ran"
    );
}

/// A hook that tags the context of every `tag_me` call with its id.
struct Tagger;

impl starweaver::tools::ToolExecutionHook for Tagger {
    fn before_execute<'a>(
        &'a self,
        input: starweaver::tools::ToolHookInput<'a>,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        if input.tool_name == "tag_me" {
            input
                .context
                .metadata_mut()
                .insert("tag".to_string(), json!(input.tool_call_id));
        }
        Box::pin(async { Ok(()) })
    }
}

// Regression lock (review found no defect): hook metadata and approvals stay with their call.
#[tokio::test]
async fn hook_metadata_and_approvals_stay_with_their_own_call() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let probe = |name: &'static str| -> DynTool {
        let seen = seen.clone();
        Arc::new(
            starweaver::string_tool(
                name,
                Some(format!("{name} probe")),
                json!({"type": "object", "properties": {}}),
                move |ctx: ToolContext, _args: Value| {
                    let seen = seen.clone();
                    async move {
                        tokio::task::yield_now().await;
                        seen.lock().unwrap().push(json!({
                            "id": ctx.tool_call_id(),
                            "tag": ctx.metadata().get("tag"),
                            "approved": ctx.is_approved(),
                            "deferred": ctx.deferred_result(),
                        }));
                        Ok(ToolResult::new(json!("ok")))
                    }
                },
            )
            .with_approval_required(name == "gated"),
        )
    };
    let model = batch_model(vec![vec![
        call("t1", "tag_me", json!({})),
        call("p1", "plain", json!({})),
        call("g1", "gated", json!({})),
        call("t2", "tag_me", json!({})),
    ]]);
    let registry = starweaver::ToolRegistry::new()
        .with_tool(probe("tag_me"))
        .with_tool(probe("plain"))
        .with_tool(probe("gated"))
        .with_execution_hook(Arc::new(Tagger));
    let agent = AgentBuilder::new(model).tool_registry(registry).build();
    let mut session = AgentSession::new(agent);
    assert!(session.run("go").await.unwrap().is_waiting());
    session
        .resume_after_hitl(AgentHitlUserInteraction::approved("g1"))
        .await
        .unwrap();
    let seen = seen.lock().unwrap().clone();
    let by_id = |id: &str| seen.iter().find(|entry| entry["id"] == id).unwrap().clone();
    assert_eq!(by_id("t1")["tag"], "t1");
    assert_eq!(by_id("t2")["tag"], "t2");
    assert_eq!(by_id("p1")["tag"], Value::Null);
    assert_eq!(by_id("g1")["tag"], Value::Null);
    assert_eq!(by_id("p1")["approved"], false);
    assert_eq!(by_id("g1")["approved"], true);

    // Clones are copy-on-write: changing one never shows in another.
    let base = ToolContext::default().with_metadata("shared", json!(1));
    let mut one = base.clone().with_metadata("one", json!(true));
    one.metadata_mut().insert("shared".to_string(), json!(2));
    let two = base
        .clone()
        .with_deferred_result(json!("r"))
        .with_approved(true);
    assert_eq!(base.metadata().get("shared"), Some(&json!(1)));
    assert!(base.metadata().get("one").is_none());
    assert!(two.metadata().get("one").is_none());
    assert!(base.deferred_result().is_none() && !base.is_approved());
    assert!(one.deferred_result().is_none() && !one.is_approved());
}

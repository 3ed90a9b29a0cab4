//! Dependency profiles: what Legacy, Filtered and Strict tools receive
//! from the ambient context, host grants, and the same profiles during
//! HITL preprocessing and approved execution (Tools chapter: "Tools with
//! context dependencies").

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use starweaver::agent::{AgentHitlUserInteraction, AgentRunStatus};
use starweaver::context::{
    ContextHandoffHandle, ContextTask, Dependencies, HostCapabilities, ShellEnvironmentSnapshot,
    TaskContextHandle, ToolCapabilityGrant, ToolRuntimeSnapshot, ToolSearchContextHandle,
    UsageContextHandle, CONTEXT_HANDOFF_CAPABILITY, CONTEXT_TASKS_CAPABILITY,
    CONTEXT_USAGE_CAPABILITY,
};
use starweaver::model::{ModelResponse, ToolReturnKind};
use starweaver::tools::{
    FunctionTool, ToolDependencyProfile, ToolDependencyRequirements, TOOL_DEPENDENCIES_METADATA_KEY,
};
use starweaver::{
    string_tool, AgentBuilder, AgentContext, AgentContextHandle, TestModel, ToolContext,
    ToolRegistry, ToolResult, ToolUserInputPreprocessResult,
};

use crate::common::{ambient, call, call_response, open_schema, NamedDb};

use super::call_in;

// ---------------------------------------------------------------------------
// Dependency profiles
// ---------------------------------------------------------------------------

#[derive(Debug)]
struct Db(&'static str);

#[derive(Debug)]
struct Billing(&'static str);

#[derive(Debug)]
struct Crm(&'static str);

#[derive(Debug)]
struct Ledger(&'static str);

fn shell() -> ShellEnvironmentSnapshot {
    ShellEnvironmentSnapshot {
        allow_execute: true,
        allowed_programs: vec!["git".to_string()],
        timeout_ms: Some(5_000),
        max_output_bytes: Some(1_024),
        working_directory: Some("repo".to_string()),
        env: [("LANG".to_string(), "C".to_string())]
            .into_iter()
            .collect(),
    }
}

/// The ambient context every profile test runs against: one typed
/// dependency, three named capabilities and a shell environment.
fn ambient_context() -> AgentContext {
    let mut context = AgentContext::default();
    context.notes.set("marker", "ambient");
    context.insert_dependency(Db("primary-db"));
    context.insert_named_dependency("billing", Billing("acme-billing"));
    context.insert_named_dependency("crm", Crm("acme-crm"));
    context.insert_named_dependency("ledger", Ledger("acme-ledger"));
    context.shell_environment = Some(shell());
    context
}

/// What a tool sees, reported from inside the tool. A tool holding a
/// `TaskContextHandle` also writes a task named after itself.
fn observe(ctx: &ToolContext) -> Value {
    let host = ctx.dependency::<HostCapabilities>();
    let runtime = ctx.dependency::<ToolRuntimeSnapshot>();
    let tasks = ctx.dependency::<TaskContextHandle>();
    if let Some(tasks) = &tasks {
        tasks.upsert(ContextTask {
            id: ctx.tool_name().to_string(),
            title: "written through the narrow handle".to_string(),
            status: "done".to_string(),
        });
    }
    json!({
        "agent_context_handle": ctx
            .dependency::<AgentContextHandle>()
            .map(|handle| handle.read(|context| context.notes.get("marker").map(str::to_string))),
        "typed_db": ctx.dependency::<Db>().map(|db| db.0),
        "host_capabilities": host.as_ref().map(|host| host.names()),
        "billing": host.as_ref().and_then(|host| host.get::<Billing>("billing")).map(|b| b.0),
        "crm": host.as_ref().and_then(|host| host.get::<Crm>("crm")).map(|c| c.0),
        "ledger": host.as_ref().and_then(|host| host.get::<Ledger>("ledger")).map(|l| l.0),
        "runtime": runtime.as_ref().map(|runtime| json!({
            "tool_name": runtime.tool_name,
            "shell": runtime.shell,
        })),
        "shell_environment": ctx
            .dependency::<ShellEnvironmentSnapshot>()
            .map(|shell| serde_json::to_value(&*shell).unwrap()),
        "tasks_handle": tasks.is_some(),
        "usage_handle": ctx.dependency::<UsageContextHandle>().is_some(),
        "handoff_handle": ctx.dependency::<ContextHandoffHandle>().is_some(),
        "tool_search_handle": ctx.dependency::<ToolSearchContextHandle>().is_some(),
    })
}

fn observer(name: &str) -> FunctionTool {
    string_tool(
        name,
        Some("Reports what it can see".to_string()),
        open_schema(),
        |ctx: ToolContext, _args: Value| async move { Ok(ToolResult::new(observe(&ctx))) },
    )
}

/// Runs `name` against `ambient` and returns what the tool saw.
async fn seen_by(registry: &ToolRegistry, ambient: &AgentContextHandle, name: &str) -> Value {
    let part = call_in(
        registry,
        ToolContext::default().with_agent_context(ambient.clone()),
        name,
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{name}: {part:?}");
    part.content
}

fn task_ids(ambient: &AgentContextHandle) -> Vec<String> {
    ambient.read(|context| context.tasks.iter().map(|task| task.id.clone()).collect())
}

#[tokio::test]
async fn legacy_tools_see_the_broad_handle_all_capabilities_and_shell_values() {
    let registry = ToolRegistry::new().with_tool(Arc::new(observer("legacy")));
    assert_eq!(
        registry.dependency_requirements("legacy").unwrap().profile,
        ToolDependencyProfile::Legacy
    );
    let ambient = AgentContextHandle::new(ambient_context());
    let all_named = ambient.read(|context| context.dependencies.names());

    let seen = seen_by(&registry, &ambient, "legacy").await;

    assert_eq!(seen["agent_context_handle"], json!("ambient"));
    assert_eq!(seen["typed_db"], json!("primary-db"));
    assert_eq!(seen["host_capabilities"], json!(all_named));
    for name in ["billing", "crm", "ledger"] {
        assert!(all_named.contains(&name.to_string()));
    }
    assert_eq!(seen["billing"], json!("acme-billing"));
    assert_eq!(seen["crm"], json!("acme-crm"));
    assert_eq!(seen["runtime"]["tool_name"], json!("legacy"));
    assert_eq!(
        seen["runtime"]["shell"],
        serde_json::to_value(shell()).unwrap(),
        "ToolRuntimeSnapshot.shell mirrors the context's shell environment"
    );
    assert_eq!(seen["tasks_handle"], json!(false));
}

#[tokio::test]
async fn filtered_tools_see_only_requested_capabilities_and_no_broad_handle() {
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(observer("filtered").with_dependencies(
            ToolDependencyRequirements::filtered(["billing"]),
        )))
        .with_tool(Arc::new(observer("filtered_shell").with_dependencies(
            ToolDependencyRequirements::filtered(["billing"]).with_shell_environment(true),
        )))
        .with_tool(Arc::new(
            observer("filtered_tasks").with_dependencies(
                ToolDependencyRequirements::filtered(Vec::<String>::new())
                    .with_context_capability(CONTEXT_TASKS_CAPABILITY),
            ),
        ));
    assert_eq!(
        registry
            .dependency_requirements("filtered")
            .unwrap()
            .profile,
        ToolDependencyProfile::Filtered
    );
    let ambient = AgentContextHandle::new(ambient_context());

    let seen = seen_by(&registry, &ambient, "filtered").await;
    assert_eq!(seen["agent_context_handle"], Value::Null);
    assert_eq!(seen["typed_db"], json!("primary-db"), "typed deps stay");
    assert_eq!(seen["host_capabilities"], json!(["billing"]));
    assert_eq!(seen["billing"], json!("acme-billing"));
    assert_eq!(seen["crm"], Value::Null);
    assert_eq!(seen["runtime"]["tool_name"], json!("filtered"));
    assert_eq!(seen["runtime"]["shell"], Value::Null);
    assert_eq!(seen["shell_environment"], Value::Null, "not requested");
    assert_eq!(seen["tasks_handle"], json!(false), "not requested");

    let seen = seen_by(&registry, &ambient, "filtered_shell").await;
    assert_eq!(seen["agent_context_handle"], Value::Null);
    assert_eq!(seen["runtime"]["shell"], Value::Null);
    assert_eq!(
        seen["shell_environment"],
        serde_json::to_value(shell()).unwrap()
    );

    assert!(task_ids(&ambient).is_empty());
    let seen = seen_by(&registry, &ambient, "filtered_tasks").await;
    assert_eq!(seen["agent_context_handle"], Value::Null);
    assert_eq!(seen["host_capabilities"], json!([]));
    assert_eq!(seen["tasks_handle"], json!(true));
    assert_eq!(seen["usage_handle"], json!(false));
    assert_eq!(seen["handoff_handle"], json!(false));
    assert_eq!(seen["tool_search_handle"], json!(false));
    assert_eq!(
        task_ids(&ambient),
        vec!["filtered_tasks"],
        "writes through TaskContextHandle reach the ambient context"
    );
}

#[tokio::test]
async fn filtered_and_strict_tools_never_receive_a_host_supplied_broad_handle() {
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(observer("filtered").with_dependencies(
            ToolDependencyRequirements::filtered(["billing"]),
        )))
        .with_tool(Arc::new(observer("strict").with_dependencies(
            ToolDependencyRequirements::strict(["billing"]),
        )))
        .with_tool(Arc::new(observer("legacy")));
    let ambient = AgentContextHandle::new(ambient_context());

    for name in ["filtered", "strict"] {
        // Handle on the base context, no ambient context.
        let part = call_in(
            &registry,
            ToolContext::default().with_dependency(ambient.clone()),
            name,
        )
        .await;
        assert_eq!(part.content["agent_context_handle"], Value::Null, "{name}");

        // Handle on the base context and an ambient context.
        let part = call_in(
            &registry,
            ToolContext::default()
                .with_dependency(ambient.clone())
                .with_agent_context(ambient.clone()),
            name,
        )
        .await;
        assert_eq!(part.content["agent_context_handle"], Value::Null, "{name}");
    }

    // Legacy keeps a host-supplied handle.
    let part = call_in(
        &registry,
        ToolContext::default().with_dependency(ambient.clone()),
        "legacy",
    )
    .await;
    assert_eq!(part.content["agent_context_handle"], json!("ambient"));
}

#[tokio::test]
async fn approved_execution_uses_the_same_filtered_profile() {
    let registry = ToolRegistry::new().with_tool(Arc::new(
        observer("gated_filtered")
            .with_approval_required(true)
            .with_dependencies(ToolDependencyRequirements::filtered(["billing"])),
    ));
    let ambient = AgentContextHandle::new(ambient_context());

    let part = call_in(
        &registry,
        ToolContext::default().with_agent_context(ambient.clone()),
        "gated_filtered",
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::ApprovalRequired, "{part:?}");

    let part = call_in(
        &registry,
        ToolContext::default()
            .with_approved(true)
            .with_agent_context(ambient.clone()),
        "gated_filtered",
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{part:?}");
    assert_eq!(part.content["agent_context_handle"], Value::Null);
    assert_eq!(part.content["host_capabilities"], json!(["billing"]));
    assert_eq!(part.content["typed_db"], json!("primary-db"));
    assert_eq!(part.content["runtime"]["shell"], Value::Null);
}

fn strict_request() -> ToolDependencyRequirements {
    ToolDependencyRequirements::strict(["billing", "crm"])
        .with_shell_environment(true)
        .with_context_capability(CONTEXT_TASKS_CAPABILITY)
        .with_context_capability(CONTEXT_USAGE_CAPABILITY)
        .with_context_capability("starweaver.context.bogus")
}

#[tokio::test]
async fn strict_tools_get_nothing_without_a_grant() {
    let registry = ToolRegistry::new().with_tool(Arc::new(
        observer("strict").with_dependencies(strict_request()),
    ));
    assert_eq!(
        registry.dependency_requirements("strict").unwrap().profile,
        ToolDependencyProfile::Strict
    );
    let ambient = AgentContextHandle::new(ambient_context());

    let seen = seen_by(&registry, &ambient, "strict").await;

    assert_eq!(seen["agent_context_handle"], Value::Null);
    assert_eq!(seen["typed_db"], Value::Null, "no ambient typed deps");
    assert_eq!(seen["host_capabilities"], json!([]));
    assert_eq!(seen["billing"], Value::Null);
    assert_eq!(seen["runtime"]["shell"], Value::Null);
    assert_eq!(seen["shell_environment"], Value::Null);
    assert_eq!(seen["tasks_handle"], json!(false));
    assert_eq!(seen["usage_handle"], json!(false));
    assert!(task_ids(&ambient).is_empty());
}

#[tokio::test]
async fn strict_tools_get_the_intersection_of_request_and_grant() {
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(
            observer("strict").with_dependencies(strict_request()),
        ))
        .with_tool(Arc::new(observer("strict_no_shell").with_dependencies(
            ToolDependencyRequirements::strict(["billing"]),
        )));
    let mut context = ambient_context();
    context.grant_tool_capabilities(
        "strict",
        ToolCapabilityGrant::new()
            // crm requested but not granted; ledger granted but not
            // requested; "nonexistent" is not a registered capability.
            .with_host_capabilities(["billing", "ledger", "nonexistent"])
            // usage requested but not granted; handoff granted but not
            // requested; the bogus name is requested and granted but
            // names no handle.
            .with_context_capabilities([
                CONTEXT_TASKS_CAPABILITY,
                CONTEXT_HANDOFF_CAPABILITY,
                "starweaver.context.bogus",
            ])
            .with_shell_environment(true),
    );
    context.grant_tool_capabilities(
        "strict_no_shell",
        ToolCapabilityGrant::new()
            .with_host_capabilities(["billing"])
            .with_shell_environment(true)
            .with_context_capabilities([CONTEXT_TASKS_CAPABILITY]),
    );
    let ambient = AgentContextHandle::new(context);

    let seen = seen_by(&registry, &ambient, "strict").await;
    assert_eq!(seen["agent_context_handle"], Value::Null);
    assert_eq!(seen["typed_db"], Value::Null);
    assert_eq!(seen["host_capabilities"], json!(["billing"]));
    assert_eq!(seen["billing"], json!("acme-billing"));
    assert_eq!(seen["crm"], Value::Null);
    assert_eq!(seen["ledger"], Value::Null);
    assert_eq!(seen["runtime"]["shell"], Value::Null);
    assert_eq!(
        seen["shell_environment"],
        serde_json::to_value(shell()).unwrap()
    );
    assert_eq!(seen["tasks_handle"], json!(true));
    assert_eq!(seen["usage_handle"], json!(false));
    assert_eq!(seen["handoff_handle"], json!(false));
    assert_eq!(seen["tool_search_handle"], json!(false));
    assert_eq!(task_ids(&ambient), vec!["strict"]);

    // Granted but never requested: nothing beyond the request.
    let seen = seen_by(&registry, &ambient, "strict_no_shell").await;
    assert_eq!(seen["host_capabilities"], json!(["billing"]));
    assert_eq!(seen["shell_environment"], Value::Null);
    assert_eq!(seen["tasks_handle"], json!(false));
}

#[tokio::test]
async fn malformed_dependency_metadata_fails_closed_to_strict_with_nothing() {
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(
            observer("malformed").with_metadata(TOOL_DEPENDENCIES_METADATA_KEY, json!("oops")),
        ))
        .with_tool(Arc::new(observer("unknown_profile").with_metadata(
            TOOL_DEPENDENCIES_METADATA_KEY,
            json!({"profile": "superuser", "host_capabilities": ["billing"]}),
        )))
        .with_tool(Arc::new(observer("extended").with_metadata(
            TOOL_DEPENDENCIES_METADATA_KEY,
            json!({"profile": "filtered", "host_capabilities": ["billing"], "future_field": 1}),
        )));
    let mut context = ambient_context();
    // Even a generous grant cannot widen a malformed declaration.
    for tool in ["malformed", "unknown_profile"] {
        context.grant_tool_capabilities(
            tool,
            ToolCapabilityGrant::new()
                .with_host_capabilities(["billing", "crm", "ledger"])
                .with_context_capabilities([CONTEXT_TASKS_CAPABILITY])
                .with_shell_environment(true),
        );
    }
    let ambient = AgentContextHandle::new(context);

    for name in ["malformed", "unknown_profile"] {
        let requirements = registry.dependency_requirements(name).unwrap();
        assert_eq!(
            requirements.profile,
            ToolDependencyProfile::Strict,
            "{name}"
        );
        assert!(requirements.host_capabilities.is_empty(), "{name}");

        let seen = seen_by(&registry, &ambient, name).await;
        assert_eq!(seen["agent_context_handle"], Value::Null, "{name}");
        assert_eq!(seen["typed_db"], Value::Null, "{name}");
        assert_eq!(seen["host_capabilities"], json!([]), "{name}");
        assert_eq!(seen["runtime"]["shell"], Value::Null, "{name}");
        assert_eq!(seen["shell_environment"], Value::Null, "{name}");
        assert_eq!(seen["tasks_handle"], json!(false), "{name}");
    }
    assert!(task_ids(&ambient).is_empty());

    // Unknown extension fields are ignored: still Filtered.
    assert_eq!(
        registry
            .dependency_requirements("extended")
            .unwrap()
            .profile,
        ToolDependencyProfile::Filtered
    );
    let seen = seen_by(&registry, &ambient, "extended").await;
    assert_eq!(seen["agent_context_handle"], Value::Null);
    assert_eq!(seen["typed_db"], json!("primary-db"));
    assert_eq!(seen["host_capabilities"], json!(["billing"]));
}

// ---------------------------------------------------------------------------
// Dependency profiles during HITL preprocessing and approved execution
// ---------------------------------------------------------------------------

/// What a preprocessor or tool body could see.
#[derive(Clone, Debug, PartialEq)]
struct Seen {
    handle: bool,
    note: Option<String>,
    capability: Option<String>,
}

fn observe_seen(ctx: &ToolContext) -> Seen {
    let handle = ctx.dependency::<starweaver::AgentContextHandle>();
    Seen {
        handle: handle.is_some(),
        note: handle.and_then(|handle| {
            handle.read(|context| context.notes.get("reviewer").map(str::to_string))
        }),
        capability: ctx
            .dependency::<starweaver::context::HostCapabilities>()
            .and_then(|capabilities| capabilities.get::<String>("ledger"))
            .map(|value| (*value).clone()),
    }
}

/// An approval tool recording what its preprocessor and its body saw.
fn observed_tool(
    requirements: Option<starweaver::tools::ToolDependencyRequirements>,
    seen: &Arc<Mutex<Vec<(&'static str, Seen)>>>,
) -> FunctionTool {
    let body_seen = seen.clone();
    let pre_seen = seen.clone();
    let tool = string_tool(
        "observed",
        Some("Records its dependencies".to_string()),
        open_schema(),
        move |ctx: ToolContext, _args: Value| {
            let seen = body_seen.clone();
            async move {
                seen.lock().unwrap().push(("body", observe_seen(&ctx)));
                Ok(ToolResult::new(json!({})))
            }
        },
    )
    .with_approval_required(true)
    .with_user_input_preprocessor(move |ctx: ToolContext, _input: Value| {
        let seen = pre_seen.clone();
        async move {
            seen.lock()
                .unwrap()
                .push(("preprocess", observe_seen(&ctx)));
            Ok(ToolUserInputPreprocessResult::new())
        }
    });
    match requirements {
        Some(requirements) => tool.with_dependencies(requirements),
        None => tool,
    }
}

async fn run_observed(
    requirements: Option<starweaver::tools::ToolDependencyRequirements>,
) -> Vec<(&'static str, Seen)> {
    let seen: Arc<Mutex<Vec<(&'static str, Seen)>>> = Arc::default();
    let model = Arc::new(TestModel::scripted(vec![
        call_response("o1", "observed", json!({})),
        ModelResponse::text("done"),
    ]));
    let mut context = starweaver::AgentContext::default();
    context.notes.set("reviewer", "bob");
    context.insert_named_dependency("ledger", "ledger-v1".to_string());
    let mut session = AgentBuilder::new(model)
        .tool(Arc::new(observed_tool(requirements, &seen)))
        .build()
        .session()
        .with_context(context);
    session.run("go").await.unwrap();
    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("o1").with_user_input(json!("ok")))
        .await
        .unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    let seen = seen.lock().unwrap().clone();
    seen
}

#[tokio::test]
async fn approved_execution_uses_the_tool_dependency_profile() {
    let legacy = run_observed(None).await;
    let body = legacy.iter().find(|(stage, _)| *stage == "body").unwrap();
    assert_eq!(
        body.1,
        Seen {
            handle: true,
            note: Some("bob".to_string()),
            capability: Some("ledger-v1".to_string()),
        }
    );

    let filtered = run_observed(Some(
        starweaver::tools::ToolDependencyRequirements::filtered(["ledger"]),
    ))
    .await;
    let body = filtered.iter().find(|(stage, _)| *stage == "body").unwrap();
    assert_eq!(
        body.1,
        Seen {
            handle: false,
            note: None,
            capability: Some("ledger-v1".to_string()),
        }
    );
}

#[tokio::test]
async fn user_input_preprocessing_uses_the_tool_dependency_profile() {
    let legacy = run_observed(None).await;
    let pre = legacy
        .iter()
        .find(|(stage, _)| *stage == "preprocess")
        .unwrap();
    assert_eq!(
        pre.1,
        Seen {
            handle: true,
            note: Some("bob".to_string()),
            capability: Some("ledger-v1".to_string()),
        }
    );

    let filtered = run_observed(Some(
        starweaver::tools::ToolDependencyRequirements::filtered(["ledger"]),
    ))
    .await;
    let pre = filtered
        .iter()
        .find(|(stage, _)| *stage == "preprocess")
        .unwrap();
    assert_eq!(
        pre.1,
        Seen {
            handle: false,
            note: None,
            capability: Some("ledger-v1".to_string()),
        }
    );
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: strict tools kept ungranted base dependencies.
#[tokio::test]
async fn strict_tool_gets_no_ungranted_capability() {
    let tool = string_tool(
        "least_authority",
        Some("Strict tool".to_string()),
        open_schema(),
        |ctx: ToolContext, _args: Value| async move {
            Ok(ToolResult::new(json!({
                "named_db": ctx.named_dependency::<NamedDb>("db").is_some(),
            })))
        },
    )
    .with_dependencies(ToolDependencyRequirements::strict(Vec::<String>::new()));
    let registry = ToolRegistry::new().with_tool(Arc::new(tool));
    let mut base = Dependencies::new();
    base.insert_named("db", NamedDb);
    let ctx = ambient(AgentContext::default()).with_dependencies(base);
    let part = registry
        .execute_call(ctx, &call("c", "least_authority", json!({})))
        .await;
    // Spec: "Without an explicit host grant, Strict exposes none of those
    // authorities."
    assert_eq!(part.content["named_db"], json!(false));
}

// Regression: filtered tools received an AgentContextHandle from context dependencies.
#[tokio::test]
async fn filtered_tool_never_receives_broad_handle() {
    let tool = string_tool(
        "narrow",
        Some("Filtered tool".to_string()),
        open_schema(),
        |ctx: ToolContext, _args: Value| async move {
            Ok(ToolResult::new(json!({
                "broad_handle": ctx.dependency::<AgentContextHandle>().is_some(),
            })))
        },
    )
    .with_dependencies(ToolDependencyRequirements::filtered(Vec::<String>::new()));
    let registry = ToolRegistry::new().with_tool(Arc::new(tool));
    let mut context = AgentContext::default();
    // A host (or a compatibility shim) attached the broad handle as an
    // ordinary typed dependency.
    context.insert_dependency(AgentContextHandle::default());
    let part = registry
        .execute_call(ambient(context), &call("c", "narrow", json!({})))
        .await;
    // tool-runtime.md: "Filtered and Strict tools never receive an
    // AgentContextHandle, even one a host placed on the base context."
    assert_eq!(part.content["broad_handle"], json!(false));
}

// ---------------------------------------------------------------------------
// Dependency profiles across the steps of a run
// ---------------------------------------------------------------------------

/// The `ledger` capability each reader saw, by reader.
type LedgersSeen = Arc<Mutex<Vec<(&'static str, Option<String>)>>>;

/// A tool recording the `ledger` capability it sees, under its own name.
fn ledger_reader(
    name: &'static str,
    requirements: ToolDependencyRequirements,
    seen: &LedgersSeen,
) -> FunctionTool {
    let seen = seen.clone();
    string_tool(name, None, open_schema(), move |ctx: ToolContext, _| {
        let ledger = ctx
            .dependency::<HostCapabilities>()
            .and_then(|host| host.get::<String>("ledger"))
            .map(|ledger| (*ledger).clone());
        seen.lock().unwrap().push((name, ledger));
        async { Ok(ToolResult::new(json!({}))) }
    })
    .with_dependencies(requirements)
}

#[tokio::test]
async fn a_dependency_and_a_grant_changed_during_a_run_are_seen_by_the_next_calls() {
    let seen = LedgersSeen::default();
    // A Legacy tool changes the run's context through the broad handle.
    let writer = string_tool("writer", None, open_schema(), |ctx: ToolContext, _| {
        if let Some(handle) = ctx.dependency::<AgentContextHandle>() {
            handle.update(|context| {
                context.insert_named_dependency("ledger", "ledger-v2".to_string());
                context.grant_tool_capabilities(
                    "strict_reader",
                    ToolCapabilityGrant::new().with_host_capabilities(["ledger"]),
                );
            });
        }
        async { Ok(ToolResult::new(json!({}))) }
    });
    let both = || {
        crate::common::calls(&[
            ("s", "strict_reader", json!({})),
            ("f", "filtered_reader", json!({})),
        ])
    };
    let model = Arc::new(TestModel::scripted(vec![
        both(),
        call_response("w", "writer", json!({})),
        both(),
        ModelResponse::text("done"),
    ]));
    let mut context = AgentContext::default();
    context.insert_named_dependency("ledger", "ledger-v1".to_string());
    let result = AgentBuilder::new(model)
        .tool(Arc::new(ledger_reader(
            "strict_reader",
            ToolDependencyRequirements::strict(["ledger"]),
            &seen,
        )))
        .tool(Arc::new(ledger_reader(
            "filtered_reader",
            ToolDependencyRequirements::filtered(["ledger"]),
            &seen,
        )))
        .tool(Arc::new(writer))
        .build()
        .session()
        .with_context(context)
        .run("go")
        .await
        .unwrap();
    assert_eq!(result.output, "done");
    let mut seen = seen.lock().unwrap().clone();
    // The calls of one step may finish in either order.
    seen[..2].sort();
    seen[2..].sort();
    let v = |ledger: &str| Some(ledger.to_string());
    assert_eq!(
        seen,
        vec![
            ("filtered_reader", v("ledger-v1")),
            ("strict_reader", None),
            ("filtered_reader", v("ledger-v2")),
            ("strict_reader", v("ledger-v2")),
        ]
    );
}

//! Context-aware availability and the `tools_unavailable` event,
//! `prepare_definition`, and availability checks that panic (Tools
//! chapter: "Availability").

use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use futures::FutureExt;
use serde_json::{json, Value};
use starweaver::context::ContextEventKind;
use starweaver::model::ToolReturnKind;
use starweaver::{
    string_tool, AgentContext, AgentContextHandle, ToolAvailabilityPolicy, ToolContext,
    ToolRegistry, ToolResult,
};

use crate::common::{ambient, call, counter, echo, echo_tool, open_schema, records_toolset};

use super::{call_in, gated, named_echo, names};

// ---------------------------------------------------------------------------
// Availability and the tools_unavailable event
// ---------------------------------------------------------------------------

fn availability_registry() -> ToolRegistry {
    ToolRegistry::new()
        .with_tool(Arc::new(named_echo("always")))
        .with_tool(Arc::new(gated("gated")))
        .with_tool(Arc::new(gated("beta")))
        .with_tool(Arc::new(
            named_echo("private").with_prepare_definition(|_context, _definition| None),
        ))
}

#[test]
fn skip_and_report_publishes_tools_unavailable_and_returns_the_available_definitions() {
    let registry = availability_registry();
    let mut context = AgentContext::default();
    context
        .metadata
        .insert("enable_beta".to_string(), json!(true));
    assert_eq!(
        context.tool_config.unavailable_tool_policy,
        ToolAvailabilityPolicy::SkipAndReport,
        "SkipAndReport is the default policy"
    );

    let definitions = registry
        .prepare_definitions(&mut context)
        .expect("the default policy never fails");

    assert_eq!(names(&definitions), vec!["always", "beta"]);
    assert_eq!(ContextEventKind::ToolsUnavailable, "tools_unavailable");
    let events = context.events.events();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].kind, "tools_unavailable");
    assert_eq!(events[0].payload["tools"], json!(["gated"]));
    assert_eq!(
        events[0].payload["policy"],
        serde_json::to_value(ToolAvailabilityPolicy::SkipAndReport).unwrap()
    );
}

#[test]
fn fail_run_publishes_tools_unavailable_then_fails() {
    let registry = availability_registry();
    let mut context = AgentContext::default();
    context.tool_config.unavailable_tool_policy = ToolAvailabilityPolicy::FailRun;

    let error = registry
        .prepare_definitions(&mut context)
        .expect_err("FailRun fails when tools are unavailable");

    assert_eq!(error.tools, vec!["beta", "gated"]);
    assert!(error.to_string().contains("gated"), "{error}");
    let events: Vec<_> = context.events.of_kind("tools_unavailable").collect();
    assert_eq!(events.len(), 1, "the event is published before failing");
    assert_eq!(events[0].payload["tools"], json!(["beta", "gated"]));
    assert_eq!(
        events[0].payload["policy"],
        serde_json::to_value(ToolAvailabilityPolicy::FailRun).unwrap()
    );
}

#[test]
fn no_event_is_published_when_nothing_is_unavailable() {
    let registry = availability_registry();
    for policy in [
        ToolAvailabilityPolicy::SkipAndReport,
        ToolAvailabilityPolicy::FailRun,
    ] {
        let mut context = AgentContext::default();
        context.tool_config.unavailable_tool_policy = policy;
        context
            .metadata
            .insert("enable_gated".to_string(), json!(true));
        context
            .metadata
            .insert("enable_beta".to_string(), json!(true));

        // `private` is hidden by prepare_definition: hidden is not
        // unavailable, so no event and no failure.
        let definitions = registry
            .prepare_definitions(&mut context)
            .expect("nothing is unavailable");

        assert_eq!(names(&definitions), vec!["always", "beta", "gated"]);
        assert!(context.events.events().is_empty(), "{policy:?}");
    }
}

#[test]
fn availability_report_separates_available_unavailable_and_hidden() {
    let registry = availability_registry()
        .with_tool(Arc::new(named_echo("grep").with_tags(["search"])))
        .with_tool(Arc::new(named_echo("find").with_hidden_by_tag("search")));
    let mut context = AgentContext::default();
    context
        .metadata
        .insert("enable_beta".to_string(), json!(true));

    let report = registry.availability_report(&context);

    assert_eq!(report.available, vec!["always", "beta", "grep"]);
    assert_eq!(report.unavailable, vec!["gated"]);
    assert_eq!(report.hidden, vec!["find", "private"]);
    assert_eq!(
        names(&registry.definitions_for_context(&context)),
        report.available
    );
}

#[tokio::test]
async fn unavailable_tools_are_not_callable_against_the_ambient_context() {
    let executions = counter();
    let in_tool = executions.clone();
    let gated_counter = string_tool(
        "gated",
        None,
        open_schema(),
        move |_ctx: ToolContext, _args: Value| {
            in_tool.fetch_add(1, Ordering::SeqCst);
            async move { Ok(ToolResult::new(json!("ran"))) }
        },
    )
    .with_availability(|context| context.metadata.contains_key("enable_gated"));
    let registry = ToolRegistry::new().with_tool(Arc::new(gated_counter));

    let hidden = AgentContextHandle::new(AgentContext::default());
    let part = call_in(
        &registry,
        ToolContext::default().with_agent_context(hidden),
        "gated",
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::NotFound, "{part:?}");
    assert!(part.kind.is_model_retry());
    assert_eq!(executions.load(Ordering::SeqCst), 0);

    let mut enabled = AgentContext::default();
    enabled
        .metadata
        .insert("enable_gated".to_string(), json!(true));
    let part = call_in(
        &registry,
        ToolContext::default().with_agent_context(AgentContextHandle::new(enabled)),
        "gated",
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{part:?}");
    assert_eq!(executions.load(Ordering::SeqCst), 1);
}

// ---------------------------------------------------------------------------
// prepare_definition
// ---------------------------------------------------------------------------

#[tokio::test]
async fn prepare_definition_none_hides_the_tool_but_keeps_it_callable() {
    let executions = counter();
    let in_tool = executions.clone();
    let tenant_lookup = string_tool(
        "tenant_lookup",
        Some("Lookup tenant data".to_string()),
        open_schema(),
        move |_ctx: ToolContext, _args: Value| {
            in_tool.fetch_add(1, Ordering::SeqCst);
            async move { Ok(ToolResult::new(json!({"found": true}))) }
        },
    )
    .with_prepare_definition(|context, mut definition| {
        let tenant = context.metadata.get("tenant").and_then(Value::as_str)?;
        definition.description = Some(format!("Lookup data for tenant {tenant}"));
        Some(definition)
    });
    let registry = ToolRegistry::new().with_tool(Arc::new(tenant_lookup));
    let mut context = AgentContext::default();

    assert!(registry.definitions_for_context(&context).is_empty());
    let report = registry.availability_report(&context);
    assert_eq!(report.hidden, vec!["tenant_lookup"]);
    assert!(report.unavailable.is_empty());
    assert!(report.available.is_empty());
    assert_eq!(registry.names(), vec!["tenant_lookup"], "still registered");
    assert!(registry.prepare_definitions(&mut context).is_ok());
    assert!(context.events.events().is_empty());

    // Still callable, with or without an ambient context.
    let part = call_in(&registry, ToolContext::default(), "tenant_lookup").await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{part:?}");
    let ambient = AgentContextHandle::new(context);
    let part = call_in(
        &registry,
        ToolContext::default().with_agent_context(ambient),
        "tenant_lookup",
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{part:?}");
    assert_eq!(executions.load(Ordering::SeqCst), 2);
}

#[test]
fn prepare_definition_can_change_the_description() {
    let tool = named_echo("tenant_lookup").with_prepare_definition(|context, mut definition| {
        let tenant = context.metadata.get("tenant").and_then(Value::as_str)?;
        definition.description = Some(format!("Lookup data for tenant {tenant}"));
        Some(definition)
    });
    let registry = ToolRegistry::new().with_tool(Arc::new(tool));
    let mut context = AgentContext::default();
    context.metadata.insert("tenant".to_string(), json!("acme"));

    let definitions = registry.definitions_for_context(&context);

    assert_eq!(definitions.len(), 1);
    assert_eq!(
        definitions[0].description.as_deref(),
        Some("Lookup data for tenant acme")
    );
    assert_eq!(
        registry
            .definition("tenant_lookup")
            .unwrap()
            .description
            .as_deref(),
        Some("tenant_lookup tool"),
        "the registered definition is unchanged"
    );
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: not-found errors revealed unavailable, hidden or unloaded tools.
#[tokio::test]
async fn not_found_does_not_reveal_unavailable_tools() {
    let gated = string_tool(
        "delete_everything",
        Some("Only for admins".to_string()),
        open_schema(),
        |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
    )
    .with_availability(|context| context.metadata.contains_key("admin"));
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(gated))
        .with_tool(echo("echo", "Echo"));
    let context = AgentContext::default();
    assert_eq!(registry.definitions_for_context(&context).len(), 1);
    let part = registry
        .execute_call(ambient(context), &call("c", "delete_everythin", json!({})))
        .await;
    assert_eq!(part.kind, ToolReturnKind::NotFound);
    let message = part.content["message"].as_str().unwrap();
    // Spec: hosts can "show diagnostics without exposing unavailable tools
    // to the model".
    assert!(!message.contains("delete_everything"), "{message}");
}

// Regression: a panicking availability check unwound out of execute_call.
#[tokio::test]
async fn execute_call_survives_a_panicking_availability_check() {
    let flaky = echo_tool("flaky", "A tool with a buggy availability check")
        .with_availability(|_context| panic!("availability check exploded"));
    let registry = ToolRegistry::new().with_tool(Arc::new(flaky));
    let outcome = AssertUnwindSafe(registry.execute_call(
        ambient(AgentContext::default()),
        &call("1", "flaky", json!({})),
    ))
    .catch_unwind()
    .await;
    // ToolRegistry::execute_call: "Never fails: every outcome, unknown
    // tools, bad JSON, panics and timeouts included, is a tool return."
    assert!(
        outcome.is_ok(),
        "execute_call panicked instead of returning a tool return"
    );
}

// Regression lock (review found it sound): the registry hides a tool whose availability panics.
#[test]
fn registry_hides_a_tool_whose_availability_check_panics() {
    let registry = ToolRegistry::new().with_toolset(&records_toolset());
    let report = registry.availability_report(&AgentContext::default());
    assert_eq!(report.available, vec!["steady_lookup"]);
    assert_eq!(report.unavailable, vec!["flaky_lookup"]);
}

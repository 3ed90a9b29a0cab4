//! What the registry exposes and hands to tools: context-aware
//! availability and the `tools_unavailable` event, prepared definitions,
//! definition flags, tags and kinds, typed schemas, instructions,
//! duplicate names and dependency profiles (Tools chapter: "Tools with
//! context dependencies", "Availability", "Tool metadata tags", "Tool kind
//! metadata").

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::Ordering;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use starweaver::{
    string_tool, tool_metadata_hidden_by_tags, tool_metadata_kind, tool_metadata_tags, typed_tool,
    AgentContext, AgentContextHandle, ContextHandoffHandle, ContextTask, FunctionTool,
    HostCapabilities, ShellEnvironmentSnapshot, StaticToolset, TaskContextHandle, Tool,
    ToolAvailabilityPolicy, ToolCallPart, ToolCapabilityGrant, ToolContext, ToolDefinition,
    ToolDependencyProfile, ToolDependencyRequirements, ToolInstruction, ToolKind, ToolRegistry,
    ToolResult, ToolReturnKind, ToolReturnPart, ToolRuntimeSnapshot, ToolSearchContextHandle,
    Toolset, UsageContextHandle, CONTEXT_HANDOFF_CAPABILITY, CONTEXT_TASKS_CAPABILITY,
    CONTEXT_USAGE_CAPABILITY, TOOLS_UNAVAILABLE_EVENT_KIND, TOOL_DEPENDENCIES_METADATA_KEY,
};

mod common;
use common::{counter, echo_tool, open_schema};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// An echo tool described as "`<name>` tool".
fn named_echo(name: &str) -> FunctionTool {
    echo_tool(name, &format!("{name} tool"))
}

/// Only available when `metadata.enable_<name>` is true.
fn gated(name: &str) -> FunctionTool {
    let key = format!("enable_{name}");
    named_echo(name).with_availability(move |context| {
        context
            .metadata
            .get(&key)
            .and_then(Value::as_bool)
            .unwrap_or(false)
    })
}

fn names(definitions: &[ToolDefinition]) -> Vec<String> {
    definitions
        .iter()
        .map(|definition| definition.name.clone())
        .collect()
}

async fn call_in(registry: &ToolRegistry, ctx: ToolContext, name: &str) -> ToolReturnPart {
    registry
        .execute_call(ctx, &ToolCallPart::new("call-1", name, json!({})))
        .await
}

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
    assert_eq!(TOOLS_UNAVAILABLE_EVENT_KIND, "tools_unavailable");
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
// strict / sequential, tags and kinds
// ---------------------------------------------------------------------------

#[derive(Debug, Deserialize, JsonSchema)]
struct StatusArgs {
    /// Component to report on.
    component: String,
}

fn typed_status(name: &str) -> starweaver::TypedFunctionTool<StatusArgs> {
    typed_tool::<StatusArgs, _, _>(
        name,
        Some("Return status".to_string()),
        |_ctx: ToolContext, args: StatusArgs| async move {
            Ok(ToolResult::new(json!({"component": args.component})))
        },
    )
}

#[test]
fn strict_and_sequential_reach_definitions_and_their_json() {
    let string = named_echo("string_status")
        .with_strict_schema(true)
        .with_sequential(true);
    let typed = typed_status("typed_status")
        .with_strict_schema(true)
        .with_sequential(true);
    let relaxed = typed_status("relaxed")
        .with_strict_schema(false)
        .with_sequential(false);

    for definition in [string.definition(), typed.definition()] {
        assert_eq!(definition.strict, Some(true), "{}", definition.name);
        assert_eq!(definition.sequential, Some(true), "{}", definition.name);
        assert!(definition.is_sequential());
        let json = serde_json::to_value(&definition).unwrap();
        assert_eq!(json["strict"], json!(true), "{json}");
        assert_eq!(json["sequential"], json!(true), "{json}");
    }
    let json = serde_json::to_value(relaxed.definition()).unwrap();
    assert_eq!(json["strict"], json!(false));
    assert_eq!(json["sequential"], json!(false));
    assert!(named_echo("plain").definition().strict.is_none());
    assert!(named_echo("plain").definition().sequential.is_none());

    let registry = ToolRegistry::new()
        .with_tool(Arc::new(string))
        .with_tool(Arc::new(typed))
        .with_tool(Arc::new(relaxed));
    let definitions = registry.definitions_for_context(&AgentContext::default());
    assert_eq!(
        definitions
            .iter()
            .map(|definition| (
                definition.name.as_str(),
                definition.strict,
                definition.sequential
            ))
            .collect::<Vec<_>>(),
        vec![
            ("relaxed", Some(false), Some(false)),
            ("string_status", Some(true), Some(true)),
            ("typed_status", Some(true), Some(true)),
        ]
    );
}

const ALL_KINDS: [ToolKind; 5] = [
    ToolKind::Function,
    ToolKind::Output,
    ToolKind::External,
    ToolKind::Unapproved,
    ToolKind::Deferred,
];

#[test]
fn tags_hidden_by_tags_and_kinds_round_trip_on_string_and_typed_tools() {
    let string = named_echo("search_files")
        .with_tags(["filesystem", "search"])
        .with_hidden_by_tag("remote-search");
    let typed = typed_status("typed_search")
        .with_tags(["filesystem"])
        .with_tags(["search", "filesystem"])
        .with_hidden_by_tags(["remote-search", "web"]);

    let definition = string.definition();
    assert_eq!(
        tool_metadata_tags(&definition.metadata),
        vec!["filesystem", "search"]
    );
    assert_eq!(
        tool_metadata_hidden_by_tags(&definition.metadata),
        vec!["remote-search"]
    );
    let definition = typed.definition();
    assert_eq!(
        tool_metadata_tags(&definition.metadata),
        vec!["filesystem", "search"],
        "tags accumulate without duplicates"
    );
    assert_eq!(
        tool_metadata_hidden_by_tags(&definition.metadata),
        vec!["remote-search", "web"]
    );

    assert_eq!(
        tool_metadata_kind(&named_echo("plain").definition().metadata),
        None
    );
    for kind in ALL_KINDS {
        let string = named_echo("k").with_kind(kind).definition();
        let typed = typed_status("k").with_kind(kind).definition();
        assert_eq!(tool_metadata_kind(&string.metadata), Some(kind), "{kind:?}");
        assert_eq!(tool_metadata_kind(&typed.metadata), Some(kind), "{kind:?}");
        assert_eq!(
            string.metadata[starweaver::TOOL_KIND_METADATA_KEY],
            json!(kind.as_str())
        );
        assert_eq!(ToolKind::parse(kind.as_str()), Some(kind));
    }
}

#[test]
fn hidden_by_tags_hides_only_when_another_exposed_tool_carries_the_tag() {
    let local_search = || named_echo("local_search").with_hidden_by_tag("remote-search");

    // Another exposed tool carries the tag: hidden.
    let covered = ToolRegistry::new()
        .with_tool(Arc::new(local_search()))
        .with_tool(Arc::new(
            typed_status("web_search").with_tags(["remote-search"]),
        ));
    let context = AgentContext::default();
    assert_eq!(
        names(&covered.definitions_for_context(&context)),
        vec!["web_search"]
    );
    assert_eq!(
        covered.availability_report(&context).hidden,
        vec!["local_search"]
    );

    // No other tool carries it: shown.
    let uncovered = ToolRegistry::new()
        .with_tool(Arc::new(local_search()))
        .with_tool(Arc::new(
            named_echo("web_fetch").with_tags(["remote-fetch"]),
        ));
    assert_eq!(
        names(&uncovered.definitions_for_context(&context)),
        vec!["local_search", "web_fetch"]
    );
    assert!(uncovered.availability_report(&context).hidden.is_empty());

    // Only the tool itself carries it: shown.
    let self_tagged =
        ToolRegistry::new().with_tool(Arc::new(local_search().with_tags(["remote-search"])));
    assert_eq!(
        names(&self_tagged.definitions_for_context(&context)),
        vec!["local_search"]
    );

    // The carrier is unavailable, so not exposed: shown.
    let carrier_down = ToolRegistry::new()
        .with_tool(Arc::new(local_search()))
        .with_tool(Arc::new(gated("web_search").with_tags(["remote-search"])));
    assert_eq!(
        names(&carrier_down.definitions_for_context(&context)),
        vec!["local_search"]
    );
}

// ---------------------------------------------------------------------------
// Typed schemas
// ---------------------------------------------------------------------------

#[derive(Debug, Deserialize, JsonSchema)]
struct SearchArgs {
    /// Query text submitted by the model.
    query: String,
    #[serde(default = "default_limit")]
    #[schemars(description = "Maximum number of results to return.")]
    limit: usize,
    /// Optional result filter.
    filter: Option<SearchFilter>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct SearchFilter {
    /// Language code results must have.
    language: String,
}

const fn default_limit() -> usize {
    10
}

#[derive(Debug, Deserialize, JsonSchema)]
struct OptionalOnlyArgs {
    /// Page to start from.
    page: Option<u32>,
    /// Include archived entries.
    #[serde(default)]
    archived: bool,
}

#[tokio::test]
async fn typed_tool_schemas_are_provider_friendly_and_carry_field_docs() {
    let search = typed_tool::<SearchArgs, _, _>(
        "search",
        Some("Search".to_string()),
        |_ctx: ToolContext, args: SearchArgs| async move {
            Ok(ToolResult::new(json!({
                "query": args.query,
                "limit": args.limit,
                "language": args.filter.map(|filter| filter.language),
            })))
        },
    );
    let optional = typed_tool::<OptionalOnlyArgs, _, _>(
        "list",
        None,
        |_ctx: ToolContext, args: OptionalOnlyArgs| async move {
            Ok(ToolResult::new(
                json!({"page": args.page, "archived": args.archived}),
            ))
        },
    );

    let schema = search.definition().parameters;
    assert!(schema.get("$schema").is_none(), "{schema}");
    assert!(schema.get("title").is_none(), "{schema}");
    assert_eq!(schema["type"], json!("object"));
    assert_eq!(schema["required"], json!(["query"]), "{schema}");
    assert_eq!(
        schema["properties"]["query"]["description"],
        json!("Query text submitted by the model.")
    );
    assert_eq!(
        schema["properties"]["limit"]["description"],
        json!("Maximum number of results to return.")
    );
    assert!(
        schema
            .to_string()
            .contains("Language code results must have."),
        "nested field docs are kept: {schema}"
    );

    let schema = optional.definition().parameters;
    assert!(schema.get("$schema").is_none(), "{schema}");
    assert!(schema.get("title").is_none(), "{schema}");
    assert_eq!(
        schema.get("required"),
        Some(&json!([])),
        "required is present even when every field is optional: {schema}"
    );
    assert!(schema["properties"].is_object());
    assert_eq!(
        schema["properties"]["page"]["description"],
        json!("Page to start from.")
    );

    // The documented defaults hold at execution time.
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(search))
        .with_tool(Arc::new(optional));
    let part = registry
        .execute_call(
            ToolContext::default(),
            &ToolCallPart::new("1", "search", json!({"query": "rust"})),
        )
        .await;
    assert_eq!(
        part.content,
        json!({"query": "rust", "limit": 10, "language": null})
    );
    let part = registry
        .execute_call(ToolContext::default(), &ToolCallPart::new("2", "list", ""))
        .await;
    assert_eq!(part.content, json!({"page": null, "archived": false}));
}

// ---------------------------------------------------------------------------
// Instructions and duplicate names
// ---------------------------------------------------------------------------

#[test]
fn toolsets_and_registries_keep_one_instruction_per_group_first_wins() {
    let basic = StaticToolset::new("basic")
        .with_tool(Arc::new(named_echo("echo")))
        .with_instruction(ToolInstruction::new("basic", "Prefer exact lookup."))
        .with_instruction(ToolInstruction::new("basic", "Second basic text."))
        .with_instruction(ToolInstruction::new("files", "Read before writing."));
    assert_eq!(basic.name(), "basic");
    assert_eq!(basic.get_tools().len(), 1);
    assert_eq!(
        basic.get_instructions(),
        vec![
            ToolInstruction::new("basic", "Prefer exact lookup."),
            ToolInstruction::new("files", "Read before writing."),
        ]
    );

    let other = StaticToolset::new("other")
        .with_tool(Arc::new(named_echo("other_echo")))
        .with_instruction(ToolInstruction::new("files", "Overwrite freely."))
        .with_instruction(ToolInstruction::new("shell", "Quote arguments."));
    let registry = ToolRegistry::new()
        .with_toolset(&Arc::new(basic))
        .with_toolset(&Arc::new(other));

    assert_eq!(
        registry.instructions(),
        vec![
            ToolInstruction::new("basic", "Prefer exact lookup."),
            ToolInstruction::new("files", "Read before writing."),
            ToolInstruction::new("shell", "Quote arguments."),
        ]
    );
}

#[tokio::test]
async fn a_later_registration_replaces_an_earlier_tool_of_the_same_name() {
    let version = |label: &'static str| {
        string_tool(
            "lookup",
            Some(format!("lookup {label}")),
            open_schema(),
            move |_ctx: ToolContext, _args: Value| async move { Ok(ToolResult::new(json!(label))) },
        )
    };

    let registry = ToolRegistry::new()
        .with_tool(Arc::new(version("v1")))
        .with_tool(Arc::new(version("v2")));
    assert_eq!(registry.len(), 1);
    assert_eq!(registry.names(), vec!["lookup"]);
    assert_eq!(
        registry
            .definition("lookup")
            .unwrap()
            .description
            .as_deref(),
        Some("lookup v2")
    );
    let part = call_in(&registry, ToolContext::default(), "lookup").await;
    assert_eq!(part.content, json!("v2"));

    // Across toolsets and plain tools too, in either direction.
    let toolset = Arc::new(StaticToolset::new("set").with_tool(Arc::new(version("toolset"))));
    let registry = ToolRegistry::new()
        .with_toolset(&toolset)
        .with_tool(Arc::new(version("tool")));
    assert_eq!(registry.len(), 1);
    let part = call_in(&registry, ToolContext::default(), "lookup").await;
    assert_eq!(part.content, json!("tool"));

    let mut registry = ToolRegistry::new().with_tool(Arc::new(version("tool")));
    registry.insert_toolset(&toolset);
    assert_eq!(registry.len(), 1);
    let part = call_in(&registry, ToolContext::default(), "lookup").await;
    assert_eq!(part.content, json!("toolset"));
    assert_eq!(
        registry.definitions_for_context(&AgentContext::default())[0]
            .description
            .as_deref(),
        Some("lookup toolset")
    );
}

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

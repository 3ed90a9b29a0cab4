//! Tool search over 10,000 tools in 100 namespaced toolsets.
//!
//! Measured:
//!
//! * `tool_search/search/*`: `ToolSearchToolset::search` (index lookup,
//!   ranking, availability filter) for a selective, a broad, an exact-name
//!   and a no-match query.
//! * `tool_search/execute_call/*`: a full `ToolRegistry::execute_call` of
//!   `tool_search` with an ambient agent context. Every iteration gets a
//!   fresh `AgentContextHandle` (criterion `iter_batched`; setup and drop
//!   are not timed), so the loaded-tool set and the event log do not grow
//!   across iterations.
//! * `tool_search_build/*`: the one-time cost of building the index
//!   (`tool_search_toolset`) and of registering the search toolset in a
//!   `ToolRegistry` (which wraps all 10,000 tools).
//! * `tool_search_definitions/*`: `ToolRegistry::definitions_for_context`
//!   with the 10,000 hidden tools registered, which runs before every
//!   model request: nothing loaded, and one namespace (100 tools) loaded.
//!
//! Run with `cargo bench --bench tool_search`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_main, BatchSize, Criterion};
use serde_json::{json, Value};
use starweaver::model::ToolCallPart;
use starweaver::tools::{DynTool, ToolSearchToolset};
use starweaver::{
    string_tool, tool_search_toolset, AgentContext, AgentContextHandle, StaticToolset, ToolContext,
    ToolRegistry, ToolResult,
};

const NAMESPACES: usize = 100;
const TOOLS_PER_NAMESPACE: usize = 100;

const SERVICES: [&str; 20] = [
    "github",
    "jira",
    "slack",
    "stripe",
    "s3",
    "postgres",
    "calendar",
    "gmail",
    "notion",
    "salesforce",
    "zendesk",
    "shopify",
    "twilio",
    "datadog",
    "pagerduty",
    "figma",
    "linear",
    "hubspot",
    "dropbox",
    "kubernetes",
];

const VERBS: [&str; 12] = [
    "list", "get", "create", "update", "delete", "search", "archive", "export", "import", "sync",
    "assign", "comment",
];

const OBJECTS: [&str; 25] = [
    "issue",
    "pull request",
    "message",
    "channel",
    "invoice",
    "customer",
    "bucket",
    "table",
    "event",
    "email",
    "page",
    "lead",
    "ticket",
    "order",
    "product",
    "call",
    "metric",
    "alert",
    "incident",
    "design",
    "project",
    "contact",
    "file",
    "folder",
    "deployment",
];

const FIELDS: [&str; 6] = [
    "status",
    "owner",
    "label",
    "timestamp",
    "priority",
    "amount",
];

/// Selective: both words occur in about 50 of the 10,000 descriptions.
const SELECTIVE: &str = "gdpr erasure";
/// Broad: touches roughly half of the index.
const BROAD: &str = "list records pagination";
/// An exact tool name (its two tokens each match 100 tools).
const EXACT: &str = "ns42_tool17";
/// Matches nothing.
const NO_MATCH: &str = "quantum teleportation";

fn description(namespace: usize, tool: usize) -> String {
    let service = SERVICES[namespace % SERVICES.len()];
    let verb = VERBS[(tool + namespace) % VERBS.len()];
    let object = OBJECTS[(tool * 7 + namespace) % OBJECTS.len()];
    let field = FIELDS[(tool + 3 * namespace) % FIELDS.len()];
    let mut text = match tool % 4 {
        0 => format!("{verb} {object}s in {service}."),
        1 => format!("{verb} {service} {object} records by id or filter."),
        2 => format!("{verb} a {object} and return its {field} fields."),
        _ => format!("Bulk {verb} {object}s for a {service} workspace; supports pagination."),
    };
    if (namespace * TOOLS_PER_NAMESPACE + tool) % 200 == 7 {
        text.push_str(" Handles GDPR erasure requests.");
    }
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn tool(namespace: usize, index: usize, schema: &Value) -> DynTool {
    Arc::new(string_tool(
        format!("ns{namespace}_tool{index}"),
        Some(description(namespace, index)),
        schema.clone(),
        |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
    ))
}

fn toolsets() -> Vec<Arc<StaticToolset>> {
    let schema = json!({
        "type": "object",
        "properties": {"id": {"type": "string", "description": "Record id."}},
        "required": ["id"]
    });
    (0..NAMESPACES)
        .map(|namespace| {
            let service = SERVICES[namespace % SERVICES.len()];
            Arc::new(
                StaticToolset::new(format!("{service}_{namespace}"))
                    .with_id(format!("ns{namespace}"))
                    .with_tools(
                        (0..TOOLS_PER_NAMESPACE).map(|index| tool(namespace, index, &schema)),
                    ),
            )
        })
        .collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}

fn ambient() -> (ToolContext, AgentContextHandle) {
    let handle = AgentContextHandle::new(AgentContext::default());
    (
        ToolContext::default().with_agent_context(handle.clone()),
        handle,
    )
}

/// Lowercase alphanumeric tokens, as the index splits text.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// How many tools share at least one token (or its singular/plural form)
/// with the query: the candidates the index scores before taking the top
/// results.
fn candidates(query: &str) -> usize {
    let query: Vec<String> = words(query)
        .into_iter()
        .flat_map(|word| {
            let other = match word.strip_suffix('s') {
                Some(singular) if !singular.is_empty() => singular.to_string(),
                _ => format!("{word}s"),
            };
            [word, other]
        })
        .collect();
    (0..NAMESPACES)
        .flat_map(|namespace| (0..TOOLS_PER_NAMESPACE).map(move |index| (namespace, index)))
        .filter(|&(namespace, index)| {
            let service = SERVICES[namespace % SERVICES.len()];
            let text = format!(
                "ns{namespace}_tool{index} {service}_{namespace} ns{namespace} {}",
                description(namespace, index)
            );
            words(&text).iter().any(|word| query.contains(word))
        })
        .count()
}

fn match_counts(search: &ToolSearchToolset) {
    let context = AgentContext::default();
    for query in [SELECTIVE, BROAD, EXACT, NO_MATCH] {
        let found = search.search(&context, query, None).unwrap();
        eprintln!(
            "query {query:?}: {} candidate tools, top {}: {found:?}",
            candidates(query),
            found.len()
        );
    }
}

fn bench_search(c: &mut Criterion) {
    let toolsets = toolsets();
    let search = tool_search_toolset(toolsets.clone());
    let registry = ToolRegistry::new().with_toolset(&search);
    assert_eq!(registry.len(), NAMESPACES * TOOLS_PER_NAMESPACE + 1);
    match_counts(&search);

    let rt = runtime();
    let context = AgentContext::default();

    let mut group = c.benchmark_group("tool_search");
    for (label, query) in [
        ("selective", SELECTIVE),
        ("broad", BROAD),
        ("exact_name", EXACT),
        ("no_match", NO_MATCH),
    ] {
        group.bench_function(format!("search/{label}"), |b| {
            b.iter(|| search.search(&context, black_box(query), None).unwrap());
        });
    }
    for (label, query) in [("selective", SELECTIVE), ("broad", BROAD)] {
        let call = ToolCallPart::new("call_1", "tool_search", json!({ "query": query }));
        let (ctx, handle) = ambient();
        let part = rt.block_on(registry.execute_call(ctx, &call));
        assert!(part.is_success(), "{part:?}");
        assert!(handle.read(|context| !context.tool_search.loaded_tools.is_empty()));
        group.bench_function(format!("execute_call/{label}"), |b| {
            b.to_async(&rt).iter_batched(
                ambient,
                |(ctx, handle)| {
                    let call = &call;
                    let registry = &registry;
                    async move { (registry.execute_call(ctx, call).await, handle) }
                },
                BatchSize::SmallInput,
            );
        });
    }
    group.finish();

    let mut group = c.benchmark_group("tool_search_definitions");
    let nothing_loaded = AgentContext::default();
    assert_eq!(registry.definitions_for_context(&nothing_loaded).len(), 1);
    group.bench_function("nothing_loaded", |b| {
        b.iter(|| registry.definitions_for_context(black_box(&nothing_loaded)));
    });
    let mut one_namespace = AgentContext::default();
    one_namespace.record_tool_search_loaded(Vec::<String>::new(), ["ns7".to_string()]);
    assert_eq!(
        registry.definitions_for_context(&one_namespace).len(),
        TOOLS_PER_NAMESPACE + 1
    );
    group.bench_function("one_namespace_loaded", |b| {
        b.iter(|| registry.definitions_for_context(black_box(&one_namespace)));
    });
    group.finish();

    let mut group = c.benchmark_group("tool_search_build");
    group.sample_size(10);
    group.bench_function("index", |b| {
        b.iter(|| tool_search_toolset(black_box(toolsets.clone())));
    });
    group.bench_function("registry_with_toolset", |b| {
        b.iter(|| ToolRegistry::new().with_toolset(black_box(&search)));
    });
    group.finish();
}

/// The criterion entry points (the macro output carries no docs).
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::bench_search);
}

criterion_main!(group::benches);

//! What the registry exposes: definition flags (strict, sequential), tags,
//! `hidden_by_tags` and kinds, typed schemas, instructions and duplicate
//! names (Tools chapter: "Tool metadata tags", "Tool kind metadata").

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use starweaver::model::{ToolCallPart, ToolReturnKind};
use starweaver::tools::DynTool;
use starweaver::{
    string_tool, tool_metadata_hidden_by_tags, tool_metadata_kind, tool_metadata_tags, typed_tool,
    AgentContext, StaticToolset, Tool, ToolContext, ToolInstruction, ToolKind, ToolRegistry,
    ToolResult, Toolset,
};

use crate::common::{call, described_echo, echo_tool, open_schema};

use super::{call_in, gated, named_echo, names};

// ---------------------------------------------------------------------------
// strict / sequential, tags and kinds
// ---------------------------------------------------------------------------

#[derive(Debug, Deserialize, JsonSchema)]
struct StatusArgs {
    /// Component to report on.
    component: String,
}

fn typed_status(name: &str) -> starweaver::tools::TypedFunctionTool<StatusArgs> {
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
            string.metadata[starweaver::tools::TOOL_KIND_METADATA_KEY],
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
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: a tool hidden by hidden_by_tags still hid others.
#[test]
fn hidden_tools_do_not_hide_others() {
    let basic = string_tool(
        "basic_search",
        Some("Basic search".to_string()),
        open_schema(),
        |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
    )
    .with_hidden_by_tag("search");
    let better = string_tool(
        "better_search",
        Some("Better search".to_string()),
        open_schema(),
        |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
    )
    .with_tags(["search"])
    .with_hidden_by_tag("remote-search");
    let remote = string_tool(
        "remote_docs",
        Some("Remote docs".to_string()),
        open_schema(),
        |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
    )
    .with_tags(["remote-search"]);
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(basic))
        .with_tool(Arc::new(better))
        .with_tool(Arc::new(remote));
    let names: Vec<String> = registry
        .definitions_for_context(&AgentContext::default())
        .into_iter()
        .map(|definition| definition.name)
        .collect();
    // tool-runtime.md: "a tool is hidden when another *exposed* tool carries
    // one of its hidden_by_tags". better_search is not exposed, so nothing
    // covers basic_search's "search" workflow any more.
    assert_eq!(names, vec!["basic_search", "remote_docs"]);
}

fn tagged(name: &str, tag: &str, hidden_by: &str) -> DynTool {
    Arc::new(
        echo_tool(name, &format!("The {name} tool"))
            .with_tags([tag])
            .with_hidden_by_tag(hidden_by),
    )
}

fn exposed(registry: &ToolRegistry) -> Vec<String> {
    registry
        .definitions_for_context(&AgentContext::default())
        .into_iter()
        .map(|definition| definition.name)
        .collect()
}

// Regression: an odd hidden_by_tags cycle never settled, so an unrelated tool changed the result.
#[test]
fn hidden_by_tags_cycle_is_stable_and_consistent() {
    // a is hidden by b's tag, b by c's, c by a's.
    let cycle = || {
        ToolRegistry::new()
            .with_tool(tagged("a_tool", "ta", "tb"))
            .with_tool(tagged("b_tool", "tb", "tc"))
            .with_tool(tagged("c_tool", "tc", "ta"))
    };
    let alone = exposed(&cycle());
    let with_unrelated: Vec<String> = exposed(&cycle().with_tool(described_echo("z_unrelated")))
        .into_iter()
        .filter(|name| name != "z_unrelated")
        .collect();
    // tool-runtime.md: "cycles are resolved in name order, so the result is
    // the same every time" -- an unrelated tool must not change it.
    assert_eq!(
        alone, with_unrelated,
        "adding an unrelated tool changed the cycle's result"
    );
    // "a tool is hidden when another *exposed* tool carries one of its
    // hidden_by_tags": no exposed tool may be covered by another exposed one.
    let covers = [
        ("a_tool", "b_tool"),
        ("b_tool", "c_tool"),
        ("c_tool", "a_tool"),
    ];
    for (hidden, coverer) in covers {
        assert!(
            !(alone.contains(&hidden.to_string()) && alone.contains(&coverer.to_string())),
            "{hidden} is exposed although exposed {coverer} covers it: {alone:?}"
        );
    }
}

// Regression: re-inserting a toolset kept its stale instructions.
#[test]
fn reinserted_toolset_refreshes_its_instructions() {
    let v1 = StaticToolset::new("docs")
        .with_tool(described_echo("lookup_v1"))
        .with_instruction(ToolInstruction::new("docs", "Use lookup_v1."));
    let v2 = StaticToolset::new("docs")
        .with_tool(described_echo("lookup_v2"))
        .with_instruction(ToolInstruction::new("docs", "Use lookup_v2."));
    let mut registry = ToolRegistry::new();
    registry.insert_toolset(&v1);
    // tool-runtime.md: "Inserting a toolset again (same name) refreshes it:
    // its old tools are dropped".
    registry.insert_toolset(&v2);
    assert_eq!(registry.names(), vec!["lookup_v2"]);
    let texts: Vec<String> = registry
        .instructions()
        .into_iter()
        .map(|instruction| instruction.text)
        .collect();
    assert_eq!(
        texts,
        vec!["Use lookup_v2.".to_string()],
        "the prompt still points the model at the dropped tool"
    );
}

// Regression: ToolKind::Deferred was a label only and the tool ran in process.
#[tokio::test]
async fn deferred_kind_hands_the_call_to_a_worker() {
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(
            echo_tool("approve_me", "Needs a human").with_kind(ToolKind::Unapproved),
        ))
        .with_tool(Arc::new(
            echo_tool("render", "Render on the farm").with_kind(ToolKind::Deferred),
        ));
    let gated = registry
        .execute_call(ToolContext::default(), &call("1", "approve_me", json!({})))
        .await;
    // The kind the docs pair with it is enforced ...
    assert_eq!(gated.kind, ToolReturnKind::ApprovalRequired);
    let deferred = registry
        .execute_call(ToolContext::default(), &call("2", "render", json!({})))
        .await;
    // ... this one is not. ToolKind::Deferred: "A tool whose calls are
    // handed to an external worker"; docs/tool-runtime.md: `deferred` is
    // the return of "a deferred tool without an inline result".
    assert_eq!(
        deferred.kind,
        ToolReturnKind::Deferred,
        "a tool of kind `deferred` ran in process: {deferred:?}"
    );
}

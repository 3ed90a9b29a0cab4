//! Calls through the proxy: what `search_tools` lists, how `call_tool`
//! dispatches, names errors, applies limits and keeps the wrapped tools'
//! profiles and availability.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use starweaver::model::{FunctionModel, ModelMessage, ModelResponse, ToolReturnKind};
use starweaver::tools::{DynTool, DEFAULT_MAX_RETRIES};
use starweaver::{
    string_tool, tool_proxy_toolset, tool_search_toolset, typed_tool, AgentBuilder, AgentContext,
    DynToolset, PrefixedToolset, StaticToolset, TestModel, ToolContext, ToolError, ToolRegistry,
    ToolResult, Toolset,
};

use crate::common::toolsets::{ambient_handle, assert_kind, names_for, value_schema};
use crate::common::{
    ambient, call, calls, counter, described_echo, echo, json_names, open_schema, recording_tool,
    records_toolset, responses_so_far, Log,
};

use super::proxy_inner;

// ---------------------------------------------------------------------------
// Prefixed proxies
// ---------------------------------------------------------------------------

#[tokio::test]
async fn prefixed_proxies_coexist_in_one_registry() {
    let docs: DynToolset =
        Arc::new(StaticToolset::new("docs").with_tool(echo("lookup_docs", "Look up docs")));
    let workspace: DynToolset = Arc::new(PrefixedToolset::new(
        "workspace",
        tool_proxy_toolset(vec![docs.clone()]),
    ));
    let remote: DynToolset = Arc::new(PrefixedToolset::new(
        "remote",
        tool_proxy_toolset(vec![docs]),
    ));
    let registry = ToolRegistry::new()
        .with_toolset(&workspace)
        .with_toolset(&remote);
    assert_eq!(
        registry.names(),
        vec![
            "remote_call_tool",
            "remote_search_tools",
            "workspace_call_tool",
            "workspace_search_tools",
        ]
    );
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "c",
                "remote_call_tool",
                json!({"name": "lookup_docs", "arguments": {"topic": "x"}}),
            ),
        )
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    assert_eq!(part.content, json!({"topic": "x"}));
}

// ---------------------------------------------------------------------------
// `search_tools` and `call_tool`
// ---------------------------------------------------------------------------

#[tokio::test]
async fn proxy_exposes_only_call_tool_and_search_tools() {
    let proxy = tool_proxy_toolset(proxy_inner(counter(), counter()));
    assert_eq!(proxy.name(), "tool_proxy");
    let registry = ToolRegistry::new().with_toolset(&proxy);
    assert_eq!(registry.names(), vec!["call_tool", "search_tools"]);
    assert_eq!(
        names_for(&registry, &AgentContext::default()),
        vec!["call_tool", "search_tools"]
    );
    // Usage instructions plus the inner toolsets' instructions.
    let groups: Vec<String> = registry
        .instructions()
        .into_iter()
        .map(|instruction| instruction.group)
        .collect();
    assert!(groups.contains(&"docs".to_string()), "{groups:?}");
    assert!(groups.len() >= 2, "{groups:?}");
}

#[tokio::test]
async fn proxy_search_tools_returns_names_descriptions_and_parameters() {
    let registry =
        ToolRegistry::new().with_toolset(&tool_proxy_toolset(proxy_inner(counter(), counter())));
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "s1",
                "search_tools",
                json!({"query": "lookup documentation"}),
            ),
        )
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    let tools = part.content["tools"].as_array().unwrap();
    assert!(!tools.is_empty());
    assert_eq!(tools[0]["name"], "lookup_docs");
    assert_eq!(tools[0]["description"], "Look up documentation by topic");
    assert_eq!(tools[0]["parameters"], value_schema());

    // The limit argument caps the results.
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "s2",
                "search_tools",
                json!({"query": "documentation branch fetch", "limit": 1}),
            ),
        )
        .await;
    assert_eq!(part.content["tools"].as_array().unwrap().len(), 1);

    // No match: an empty list, not an error.
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "s3",
                "search_tools",
                json!({"query": "quantum teleportation"}),
            ),
        )
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    assert_eq!(part.content["tools"], json!([]));

    // An empty query asks the model to retry.
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call("s4", "search_tools", json!({"query": "   "})),
        )
        .await;
    assert_kind(&part, ToolReturnKind::ModelRetry);
}

#[tokio::test]
async fn proxy_call_tool_runs_inner_tool_with_arguments() {
    let registry =
        ToolRegistry::new().with_toolset(&tool_proxy_toolset(proxy_inner(counter(), counter())));
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "c1",
                "call_tool",
                json!({"name": "lookup_docs", "arguments": {"value": "toolsets"}}),
            ),
        )
        .await;
    assert_kind(&part, ToolReturnKind::Success);
    assert_eq!(part.tool_name, "call_tool");
    assert_eq!(part.content, json!({"from": "docs", "value": "toolsets"}));
    // The return names the tool that ran, so an event reader sees it behind `call_tool`.
    assert_eq!(part.metadata["inner_tool"], "lookup_docs");
}

#[tokio::test]
async fn proxy_call_tool_unknown_inner_name_is_model_retryable_not_found() {
    let registry =
        ToolRegistry::new().with_toolset(&tool_proxy_toolset(proxy_inner(counter(), counter())));
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "c1",
                "call_tool",
                json!({"name": "lookup_doc", "arguments": {}}),
            ),
        )
        .await;
    assert_kind(&part, ToolReturnKind::NotFound);
    assert!(part.kind.is_model_retry());
    assert!(part.is_error());
    assert_eq!(part.metadata["retry"]["class"], "model");
    let message = part.content["message"].as_str().unwrap();
    assert!(message.contains("lookup_doc"), "{message}");
}

#[tokio::test]
async fn proxy_call_tool_surfaces_inner_validation_errors() {
    let registry =
        ToolRegistry::new().with_toolset(&tool_proxy_toolset(proxy_inner(counter(), counter())));
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "c1",
                "call_tool",
                json!({"name": "lookup_docs", "arguments": {"value": 12}}),
            ),
        )
        .await;
    assert_kind(&part, ToolReturnKind::InvalidArguments);
    // Missing arguments default to `{}`, which misses the required field.
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call("c2", "call_tool", json!({"name": "lookup_docs"})),
        )
        .await;
    assert_kind(&part, ToolReturnKind::InvalidArguments);
}

#[tokio::test]
async fn proxy_does_not_multiply_inner_internal_retries() {
    let failures = counter();
    let registry = ToolRegistry::new().with_toolset(&tool_proxy_toolset(proxy_inner(
        counter(),
        failures.clone(),
    )));
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "c1",
                "call_tool",
                json!({"name": "flaky_fetch", "arguments": {}}),
            ),
        )
        .await;
    assert_kind(&part, ToolReturnKind::ExecutionFailed);
    // One run plus the default budget of 3 internal retries, once.
    assert_eq!(failures.load(Ordering::SeqCst), 1 + DEFAULT_MAX_RETRIES);
    assert_eq!(failures.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn proxy_search_hides_unavailable_inner_tools_with_ambient_context() {
    let registry =
        ToolRegistry::new().with_toolset(&tool_proxy_toolset(proxy_inner(counter(), counter())));
    let query = call(
        "s1",
        "search_tools",
        json!({"query": "secret vault documentation"}),
    );

    let (_handle, ctx) = ambient_handle(AgentContext::default());
    let part = registry.execute_call(ctx.clone(), &query).await;
    assert_kind(&part, ToolReturnKind::Success);
    let found: Vec<&str> = part.content["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert!(!found.contains(&"secret_vault"), "{found:?}");
    assert!(found.contains(&"lookup_docs"), "{found:?}");

    // Calling it anyway is refused in the ambient context.
    let part = registry
        .execute_call(
            ctx,
            &call(
                "c1",
                "call_tool",
                json!({"name": "secret_vault", "arguments": {}}),
            ),
        )
        .await;
    assert_kind(&part, ToolReturnKind::NotFound);
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: through a tool proxy, the first model mistake failed the run.
#[tokio::test]
async fn a_bad_call_through_the_proxy_gets_a_retry_prompt() {
    let log: Log = Arc::default();
    let ops =
        starweaver::StaticToolset::new("ops").with_tool(Arc::new(recording_tool("status", &log)));
    let proxy = starweaver::tool_proxy_toolset(vec![ops]);
    let model = Arc::new(TestModel::scripted([
        calls(&[("p1", "call_tool", json!({"name": "statu", "arguments": {}}))]),
        calls(&[(
            "p2",
            "call_tool",
            json!({"name": "status", "arguments": {}}),
        )]),
        ModelResponse::text("done"),
    ]));
    let agent = AgentBuilder::new(model.clone()).toolset(&proxy).build();
    let result = agent.run("status?").await;
    assert!(
        result.is_ok(),
        "a single mistyped proxied tool name failed the run: {:?}",
        result.err()
    );
    assert_eq!(log.lock().unwrap().len(), 1);
}

// Regression: call_tool's max_retries(0) doubled as a model-retry budget of 0.
#[tokio::test]
async fn proxy_call_tool_allows_model_corrections() {
    let counter = Arc::new(typed_tool::<CountArgs, _, _>(
        "count_items",
        Some("Count items".to_string()),
        |_ctx: ToolContext, args: CountArgs| async move {
            Ok(ToolResult::new(json!({"count": args.count})))
        },
    ));
    let proxy = tool_proxy_toolset(vec![
        Arc::new(StaticToolset::new("items").with_tool(counter)) as DynToolset,
    ]);
    // First turn: a bad call (wrong type), second turn: corrected call,
    // third turn: final answer.
    let model = Arc::new(FunctionModel::new(|messages: &[ModelMessage], _| {
        Ok(match responses_so_far(messages) {
            0 => ModelResponse::tool_calls([call(
                "c1",
                "call_tool",
                json!({"name": "count_items", "arguments": {"count": "three"}}),
            )]),
            1 => ModelResponse::tool_calls([call(
                "c2",
                "call_tool",
                json!({"name": "count_items", "arguments": {"count": 3}}),
            )]),
            _ => ModelResponse::text("done"),
        })
    }));
    let agent = AgentBuilder::new(model).toolset(&proxy).build();
    // Spec: "Retry limits ... When no override is configured, tools get a
    // default retry budget of 3"; InvalidArguments "consume the model
    // retry budget" -- one correction must be allowed.
    let result = agent.run("count").await;
    assert!(result.is_ok(), "{:?}", result.err());
}

// Regression: proxied tools lost the registry's retry budget.
#[tokio::test]
async fn proxy_wrapped_tool_uses_registry_retry_budget() {
    let runs = counter();
    let flaky = {
        let runs = runs.clone();
        Arc::new(string_tool(
            "flaky",
            Some("Always fails".to_string()),
            open_schema(),
            move |_ctx: ToolContext, _args: Value| {
                let runs = runs.clone();
                async move {
                    runs.fetch_add(1, Ordering::SeqCst);
                    Err(ToolError::execution("boom"))
                }
            },
        ))
    };
    let proxy = tool_proxy_toolset(vec![
        Arc::new(StaticToolset::new("inner").with_tool(flaky)) as DynToolset
    ]);
    let registry = ToolRegistry::new().with_max_retries(0).with_toolset(&proxy);
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call("c", "call_tool", json!({"name": "flaky"})),
        )
        .await;
    assert_eq!(part.kind, ToolReturnKind::ExecutionFailed);
    // Registry-level budget 0: the wrapped tool must run exactly once.
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

// Regression: proxied tools lost their own timeout to the registry default.
#[tokio::test]
async fn proxy_wrapped_tool_timeout_wins_over_registry_default() {
    let slow = Arc::new(
        string_tool(
            "slow",
            Some("Takes 200 ms".to_string()),
            open_schema(),
            |_ctx: ToolContext, _args: Value| async move {
                tokio::time::sleep(Duration::from_millis(200)).await;
                Ok(ToolResult::new(json!({"ok": true})))
            },
        )
        .with_timeout_ms(5_000),
    );
    let proxy = tool_proxy_toolset(vec![
        Arc::new(StaticToolset::new("inner").with_tool(slow)) as DynToolset
    ]);
    let registry = ToolRegistry::new().with_timeout_ms(50).with_toolset(&proxy);
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call("c", "call_tool", json!({"name": "slow"})),
        )
        .await;
    // Spec: "Tool-specific values win over inherited defaults".
    assert_eq!(part.kind, ToolReturnKind::Success, "{}", part.content);
}

// Regression: proxy search exposed tools that prepare_definition hides.
#[tokio::test]
async fn proxy_search_respects_prepare_definition() {
    let tenant = Arc::new(
        string_tool(
            "tenant_lookup",
            Some("Lookup tenant data".to_string()),
            open_schema(),
            |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
        )
        .with_prepare_definition(|context, mut definition| {
            let tenant = context.metadata.get("tenant").and_then(Value::as_str)?;
            definition.description = Some(format!("Lookup data for tenant {tenant}"));
            Some(definition)
        }),
    );
    let proxy = tool_proxy_toolset(vec![
        Arc::new(StaticToolset::new("tenants").with_tool(tenant)) as DynToolset,
    ]);
    let registry = ToolRegistry::new().with_toolset(&proxy);
    // No tenant: the spec says returning None "hides the tool for that
    // prepared request".
    let part = registry
        .execute_call(
            ambient(AgentContext::default()),
            &call("c", "search_tools", json!({"query": "tenant lookup"})),
        )
        .await;
    assert_eq!(part.kind, ToolReturnKind::Success);
    assert_eq!(part.content["tools"], json!([]), "{}", part.content);
}

#[derive(Debug)]
struct Environment;

fn needs_environment() -> DynTool {
    // A Legacy tool, like a third-party tool (tools.md: "Third-party ...
    // tools retain the Legacy compatibility default").
    Arc::new(string_tool(
        "read_env",
        Some("Reads from the attached environment".to_string()),
        open_schema(),
        |ctx: ToolContext, _args: Value| async move {
            ctx.dependency::<Environment>()
                .map(|_| ToolResult::new(json!({"ok": true})))
                .ok_or_else(|| ToolError::user_error("no environment attached"))
        },
    ))
}

// Regression: call_tool (Strict) wiped the dependencies the caller attached for wrapped tools.
#[tokio::test]
async fn proxied_legacy_tool_keeps_the_callers_dependencies() {
    let direct =
        ToolRegistry::new().with_toolset(&StaticToolset::new("env").with_tool(needs_environment()));
    let proxied = ToolRegistry::new()
        .with_toolset(&tool_proxy_toolset(vec![
            StaticToolset::new("env").with_tool(needs_environment())
        ]));
    // As in tools.md's shell example: dependencies on the ToolContext, no
    // agent context.
    let ctx = || ToolContext::default().with_dependency(Environment);
    let part = direct
        .execute_call(ctx(), &call("c", "read_env", json!({})))
        .await;
    assert!(part.is_success(), "{}", part.content);
    // tool-runtime.md: "wrapped tools keep their ... profiles".
    let part = proxied
        .execute_call(
            ctx(),
            &call(
                "c",
                "call_tool",
                json!({"name": "read_env", "arguments": {}}),
            ),
        )
        .await;
    assert!(
        part.is_success(),
        "the same Legacy tool behind the proxy lost its dependencies: {}",
        part.content
    );
    // The same happens with an agent context: base dependencies are gone.
    let part = proxied
        .execute_call(
            ambient(AgentContext::default()).with_dependency(Environment),
            &call(
                "c",
                "call_tool",
                json!({"name": "read_env", "arguments": {}}),
            ),
        )
        .await;
    assert!(part.is_success(), "with an agent context: {}", part.content);
}

/// A toolset that cannot serve any context (no setup hook of its own).
#[derive(Clone)]
struct Offline {
    tools: Vec<DynTool>,
}

impl Toolset for Offline {
    fn name(&self) -> &str {
        "offline"
    }

    fn get_tools(&self) -> Vec<DynTool> {
        self.tools.clone()
    }

    fn is_available(&self, _context: &AgentContext) -> bool {
        false
    }
}

// Regression: a wrapped toolset's availability was only checked when one asked for setup.
#[tokio::test]
async fn unavailable_toolset_behind_a_proxy_is_hidden() {
    let offline = || {
        Arc::new(Offline {
            tools: vec![described_echo("remote_query")],
        }) as DynToolset
    };
    // Directly registered, the toolset is hidden after enter_toolsets.
    let direct = ToolRegistry::new().with_toolset(&offline());
    let mut context = AgentContext::default();
    direct.enter_toolsets(&mut context).await;
    assert!(direct.definitions_for_context(&context).is_empty());

    // Behind a proxy (tool-runtime.md: "Proxy and search toolsets run the
    // lifecycle of the toolsets they wrap").
    let proxied = ToolRegistry::new().with_toolset(&tool_proxy_toolset(vec![offline()]));
    let mut context = AgentContext::default();
    proxied.enter_toolsets(&mut context).await;
    let part = proxied
        .execute_call(
            ambient(context.clone()),
            &call(
                "c",
                "call_tool",
                json!({"name": "remote_query", "arguments": {}}),
            ),
        )
        .await;
    assert_eq!(
        part.kind,
        ToolReturnKind::NotFound,
        "a tool of an unavailable toolset ran through the proxy: {}",
        part.content
    );

    // Behind tool search.
    let searched = ToolRegistry::new().with_toolset(&tool_search_toolset(vec![offline()]));
    let mut context = AgentContext::default();
    searched.enter_toolsets(&mut context).await;
    context.record_tool_search_loaded(["remote_query"], Vec::<String>::new());
    let names: Vec<String> = searched
        .definitions_for_context(&context)
        .into_iter()
        .map(|definition| definition.name)
        .collect();
    assert_eq!(
        names,
        vec!["tool_search"],
        "unavailable toolset's tool exposed"
    );
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct CountArgs {
    /// How many.
    count: u32,
}

// Regression: argument errors of a proxied tool were renamed to `call_tool`.
#[tokio::test]
async fn proxied_argument_error_names_the_wrapped_tool() {
    let counter = Arc::new(starweaver::typed_tool::<CountArgs, _, _>(
        "count_items",
        Some("Count items".to_string()),
        |_ctx: ToolContext, args: CountArgs| async move {
            Ok(ToolResult::new(json!({"count": args.count})))
        },
    ));
    let registry = ToolRegistry::new()
        .with_toolset(&tool_proxy_toolset(vec![
            StaticToolset::new("items").with_tool(counter)
        ]));
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "c",
                "call_tool",
                json!({"name": "count_items", "arguments": {"count": "three"}}),
            ),
        )
        .await;
    assert_eq!(part.kind, ToolReturnKind::InvalidArguments);
    let message = part.content["message"].as_str().unwrap();
    // The model's call_tool arguments ({name, arguments}) were fine; the
    // error is about count_items' `count`. Saying "invalid arguments for
    // tool `call_tool`: at `count`" points the model at the wrong schema.
    assert!(
        message.contains("count_items"),
        "the error does not say which tool's arguments are wrong: {message}"
    );
}

// Regression: proxied retry metadata reported call_tool's one attempt, not the wrapped retries.
#[tokio::test]
async fn proxied_execution_retry_metadata_counts_the_wrapped_attempts() {
    let runs = counter();
    let flaky = {
        let runs = runs.clone();
        Arc::new(string_tool(
            "flaky",
            Some("Always fails".to_string()),
            open_schema(),
            move |_ctx: ToolContext, _args: Value| {
                let runs = runs.clone();
                async move {
                    runs.fetch_add(1, Ordering::SeqCst);
                    Err(ToolError::execution("boom"))
                }
            },
        ))
    };
    let direct = ToolRegistry::new().with_tool(flaky.clone());
    let part = direct
        .execute_call(ToolContext::default(), &call("c", "flaky", json!({})))
        .await;
    let direct_retry = part.metadata["retry"].clone();
    assert_eq!(direct_retry["attempts"], json!(4));

    runs.store(0, Ordering::SeqCst);
    let proxied = ToolRegistry::new()
        .with_toolset(&tool_proxy_toolset(vec![
            StaticToolset::new("inner").with_tool(flaky)
        ]));
    let part = proxied
        .execute_call(
            ToolContext::default(),
            &call("c", "call_tool", json!({"name": "flaky", "arguments": {}})),
        )
        .await;
    assert_eq!(part.kind, ToolReturnKind::ExecutionFailed);
    assert_eq!(runs.load(Ordering::SeqCst), 4);
    // tool-runtime.md: "Internal retries record {class: "execution",
    // attempts, max_retries, exhausted}".
    assert_eq!(
        part.metadata["retry"], direct_retry,
        "the wrapped tool ran 4 times; the record says {}",
        part.metadata["retry"]
    );
}

// Regression: with two wrapped toolsets of one name, call_tool lost tools search_tools listed.
#[tokio::test]
async fn proxy_can_call_every_tool_its_search_lists() {
    let proxy = tool_proxy_toolset(vec![
        StaticToolset::new("tools").with_tool(described_echo("fetch_weather")),
        StaticToolset::new("tools").with_tool(described_echo("fetch_news")),
    ]);
    let registry = ToolRegistry::new().with_toolset(&proxy);
    let found = registry
        .execute_call(
            ambient(AgentContext::default()),
            &call("s", "search_tools", json!({"query": "fetch weather"})),
        )
        .await;
    let listed: Vec<String> = found.content["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_string())
        .collect();
    assert!(listed.contains(&"fetch_weather".to_string()), "{listed:?}");
    let part = registry
        .execute_call(
            ambient(AgentContext::default()),
            &call(
                "c",
                "call_tool",
                json!({"name": "fetch_weather", "arguments": {}}),
            ),
        )
        .await;
    assert!(
        part.is_success(),
        "search_tools offered fetch_weather but call_tool says: {}",
        part.content
    );
}

// Regression: search_tools called a panicking availability check bare; the panic escaped.
#[tokio::test]
async fn proxy_search_hides_a_tool_whose_availability_check_panics() {
    let registry = ToolRegistry::new().with_toolset(&tool_proxy_toolset(vec![records_toolset()]));
    let part = registry
        .execute_call(
            ambient(AgentContext::default()),
            &call(
                "s1",
                "search_tools",
                json!({"query": "look up customer records"}),
            ),
        )
        .await;
    assert_eq!(
        part.kind,
        ToolReturnKind::Success,
        "search_tools failed: {}",
        part.content
    );
    assert_eq!(
        json_names(&part.content["tools"], "name"),
        vec!["steady_lookup"]
    );
}

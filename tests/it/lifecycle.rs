//! The toolset lifecycle: enter and exit, the events they publish, failed
//! and unavailable toolsets, lifecycles of wrapped toolsets, re-inserted
//! and extended registries.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};
use starweaver::context::ContextEventKind;
use starweaver::model::{FunctionModel, ModelMessage, ModelResponse, ToolReturnKind};
use starweaver::tools::{BoxFuture, DynTool, ToolsetLifecyclePolicy, ToolsetLifecycleStatus};
use starweaver::{
    tool_proxy_toolset, tool_search_toolset, AgentBuilder, AgentContext, DynToolset,
    PrefixedToolset, StaticToolset, ToolError, ToolRegistry, Toolset,
};

use crate::common::toolsets::{ambient_handle, assert_kind, names_for, payloads};
use crate::common::{call, described_echo, echo, CountingLifecycle};

// ---------------------------------------------------------------------------
// Toolset lifecycle
// ---------------------------------------------------------------------------

/// A toolset that records its lifecycle calls.
struct LifecycleToolset {
    name: String,
    tools: Vec<DynTool>,
    policy: ToolsetLifecyclePolicy,
    fail_enter: bool,
    /// `None`: always available; `Some(key)`: available when
    /// `context.metadata[key] == true`.
    available_key: Option<&'static str>,
    entered: AtomicU32,
    exited: AtomicU32,
}

impl LifecycleToolset {
    fn new(name: &str, tool: &str, policy: ToolsetLifecyclePolicy) -> Self {
        Self {
            name: name.to_string(),
            tools: vec![echo(tool, "Lifecycle tool")],
            policy,
            fail_enter: false,
            available_key: None,
            entered: AtomicU32::new(0),
            exited: AtomicU32::new(0),
        }
    }

    fn failing(mut self) -> Self {
        self.fail_enter = true;
        self
    }

    fn available_when(mut self, key: &'static str) -> Self {
        self.available_key = Some(key);
        self
    }
}

impl Toolset for LifecycleToolset {
    fn name(&self) -> &str {
        &self.name
    }

    fn get_tools(&self) -> Vec<DynTool> {
        self.tools.clone()
    }

    fn is_available(&self, context: &AgentContext) -> bool {
        self.available_key.is_none_or(|key| {
            context
                .metadata
                .get(key)
                .and_then(Value::as_bool)
                .unwrap_or(false)
        })
    }

    fn lifecycle_policy(&self) -> ToolsetLifecyclePolicy {
        self.policy
    }

    fn enter_with_context<'a>(
        &'a self,
        context: &'a mut AgentContext,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        Box::pin(async move {
            self.entered.fetch_add(1, Ordering::SeqCst);
            if self.fail_enter {
                return Err(ToolError::user_error("backend unreachable"));
            }
            context
                .metadata
                .insert(format!("{}_entered", self.name), json!(true));
            Ok(())
        })
    }

    fn exit_with_context<'a>(
        &'a self,
        context: &'a mut AgentContext,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        Box::pin(async move {
            self.exited.fetch_add(1, Ordering::SeqCst);
            context
                .metadata
                .insert(format!("{}_exited", self.name), json!(true));
            Ok(())
        })
    }
}

const MANAGED: ToolsetLifecyclePolicy = ToolsetLifecyclePolicy {
    enter_before_prepare: true,
    exit_after_run: true,
};

#[tokio::test]
async fn lifecycle_enter_and_exit_publish_initialized_and_closed() {
    assert_eq!(ToolsetLifecyclePolicy::managed(), MANAGED);
    let toolset = Arc::new(LifecycleToolset::new("db", "db_query", MANAGED));
    let registry = ToolRegistry::new().with_toolset(&toolset);
    let mut context = AgentContext::default();

    let reports = registry.enter_toolsets(&mut context).await;
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].toolset, "db");
    assert_eq!(reports[0].status, ToolsetLifecycleStatus::Initialized);
    assert_eq!(reports[0].error, None);
    assert_eq!(toolset.entered.load(Ordering::SeqCst), 1);
    assert_eq!(context.metadata["db_entered"], json!(true));
    let initialized = payloads(&context, ContextEventKind::ToolsetInitialized);
    assert_eq!(initialized.len(), 1);
    assert_eq!(initialized[0]["toolset"], "db");
    assert_eq!(names_for(&registry, &context), vec!["db_query"]);

    let reports = registry.exit_toolsets(&mut context).await;
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].status, ToolsetLifecycleStatus::Closed);
    assert_eq!(toolset.exited.load(Ordering::SeqCst), 1);
    assert_eq!(context.metadata["db_exited"], json!(true));
    let closed = payloads(&context, ContextEventKind::ToolsetClosed);
    assert_eq!(closed.len(), 1);
    assert_eq!(closed[0]["toolset"], "db");
    let kinds: Vec<ContextEventKind> = context
        .events
        .events()
        .iter()
        .map(|event| event.kind.clone())
        .collect();
    assert_eq!(
        kinds,
        vec![
            ContextEventKind::ToolsetInitialized,
            ContextEventKind::ToolsetClosed
        ]
    );
}

#[tokio::test]
async fn lifecycle_failed_enter_hides_tools_and_skips_exit() {
    let healthy = Arc::new(LifecycleToolset::new("cache", "cache_get", MANAGED));
    let broken = Arc::new(LifecycleToolset::new("remote", "remote_call", MANAGED).failing());
    let registry = ToolRegistry::new()
        .with_toolset(&healthy)
        .with_toolset(&broken);
    let mut context = AgentContext::default();
    assert_eq!(
        names_for(&registry, &context),
        vec!["cache_get", "remote_call"]
    );

    let reports = registry.enter_toolsets(&mut context).await;
    assert_eq!(reports.len(), 2);
    let failed_report = reports
        .iter()
        .find(|report| report.toolset == "remote")
        .unwrap();
    assert_eq!(failed_report.status, ToolsetLifecycleStatus::Failed);
    assert!(failed_report
        .error
        .as_deref()
        .unwrap()
        .contains("backend unreachable"));
    let failed = payloads(&context, ContextEventKind::ToolsetFailed);
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["toolset"], "remote");
    assert!(failed[0]["error"]
        .as_str()
        .unwrap()
        .contains("backend unreachable"));
    assert!(context.unavailable_toolsets.contains("remote"));

    assert_eq!(names_for(&registry, &context), vec!["cache_get"]);
    let report = registry.availability_report(&context);
    assert_eq!(report.available, vec!["cache_get"]);
    assert_eq!(report.unavailable, vec!["remote_call"]);

    // Its tools cannot be called in the ambient context either.
    let (_handle, ctx) = ambient_handle(context.clone());
    let part = registry
        .execute_call(ctx, &call("c1", "remote_call", json!({})))
        .await;
    assert_kind(&part, ToolReturnKind::NotFound);

    let reports = registry.exit_toolsets(&mut context).await;
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].toolset, "cache");
    assert_eq!(healthy.exited.load(Ordering::SeqCst), 1);
    assert_eq!(broken.exited.load(Ordering::SeqCst), 0);
    let closed = payloads(&context, ContextEventKind::ToolsetClosed);
    assert_eq!(closed.len(), 1);
    assert_eq!(closed[0]["toolset"], "cache");
}

#[tokio::test]
async fn lifecycle_unavailable_toolset_publishes_unavailable() {
    let gated_set =
        Arc::new(LifecycleToolset::new("gpu", "gpu_render", MANAGED).available_when("gpu_present"));
    let registry = ToolRegistry::new().with_toolset(&gated_set);
    let mut context = AgentContext::default();

    let reports = registry.enter_toolsets(&mut context).await;
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].status, ToolsetLifecycleStatus::Unavailable);
    let unavailable = payloads(&context, ContextEventKind::ToolsetUnavailable);
    assert_eq!(unavailable.len(), 1);
    assert_eq!(unavailable[0]["toolset"], "gpu");
    // Not entered, hidden, and not closed.
    assert_eq!(gated_set.entered.load(Ordering::SeqCst), 0);
    assert!(names_for(&registry, &context).is_empty());
    assert_eq!(
        registry.availability_report(&context).unavailable,
        vec!["gpu_render"]
    );
    assert!(registry.exit_toolsets(&mut context).await.is_empty());
    assert_eq!(gated_set.exited.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn lifecycle_default_policy_is_neither_entered_nor_exited() {
    let plain = Arc::new(LifecycleToolset::new(
        "plain",
        "plain_tool",
        ToolsetLifecyclePolicy::default(),
    ));
    assert_eq!(
        ToolsetLifecyclePolicy::default(),
        ToolsetLifecyclePolicy {
            enter_before_prepare: false,
            exit_after_run: false,
        }
    );
    let registry = ToolRegistry::new().with_toolset(&plain);
    let mut context = AgentContext::default();
    assert!(registry.enter_toolsets(&mut context).await.is_empty());
    assert!(registry.exit_toolsets(&mut context).await.is_empty());
    assert_eq!(plain.entered.load(Ordering::SeqCst), 0);
    assert_eq!(plain.exited.load(Ordering::SeqCst), 0);
    assert!(context.events.events().is_empty());
    assert_eq!(names_for(&registry, &context), vec!["plain_tool"]);
}

#[tokio::test]
async fn lifecycle_policy_of_static_and_prefixed_toolsets_is_forwarded() {
    let static_set = Arc::new(
        StaticToolset::new("managed_static")
            .with_tool(echo("static_tool", "Static"))
            .with_lifecycle_policy(MANAGED),
    );
    assert_eq!(static_set.lifecycle_policy(), MANAGED);
    let inner = Arc::new(LifecycleToolset::new("svc", "svc_tool", MANAGED));
    let prefixed = Arc::new(PrefixedToolset::new("p", inner.clone()));
    assert_eq!(prefixed.lifecycle_policy(), MANAGED);

    let registry = ToolRegistry::new().with_toolset(&prefixed);
    let mut context = AgentContext::default();
    let reports = registry.enter_toolsets(&mut context).await;
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].status, ToolsetLifecycleStatus::Initialized);
    assert_eq!(inner.entered.load(Ordering::SeqCst), 1);
    registry.exit_toolsets(&mut context).await;
    assert_eq!(inner.exited.load(Ordering::SeqCst), 1);
    assert_eq!(names_for(&registry, &context), vec!["p_svc_tool"]);
}

#[tokio::test]
async fn lifecycle_toolset_that_becomes_available_again_is_shown_again() {
    let toolset = Arc::new(
        LifecycleToolset::new("gpu", "gpu_render", ToolsetLifecyclePolicy::default())
            .available_when("gpu_present"),
    );
    let registry = ToolRegistry::new().with_toolset(&toolset);
    let mut context = AgentContext::default();
    registry.enter_toolsets(&mut context).await;
    assert!(names_for(&registry, &context).is_empty());

    context
        .metadata
        .insert("gpu_present".to_string(), json!(true));
    registry.enter_toolsets(&mut context).await;
    assert_eq!(names_for(&registry, &context), vec!["gpu_render"]);
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: re-inserting a toolset ran its setup twice.
#[tokio::test]
async fn reinserted_toolset_enters_once() {
    let toolset = CountingLifecycle::new("mcp", vec![echo("remote", "Remote tool")]);
    let mut registry = ToolRegistry::new();
    registry.insert_toolset(&toolset);
    // tool-runtime.md: "to expose tools added to a live inventory, insert
    // the toolset again".
    registry.insert_toolset(&toolset);
    let mut context = AgentContext::default();
    let reports = registry.enter_toolsets(&mut context).await;
    registry.exit_toolsets(&mut context).await;
    assert_eq!(toolset.enters.load(Ordering::SeqCst), 1);
    assert_eq!(toolset.exits.load(Ordering::SeqCst), 1);
    assert_eq!(reports.len(), 1);
}

// Regression: the lifecycle of toolsets wrapped by the proxy or tool search never ran.
#[tokio::test]
async fn wrapped_toolsets_get_their_lifecycle() {
    let behind_proxy = CountingLifecycle::new("proxied", vec![echo("remote_a", "Remote A")]);
    let behind_search = CountingLifecycle::new("searched", vec![echo("remote_b", "Remote B")]);
    let proxy = tool_proxy_toolset(vec![Arc::new(behind_proxy.clone()) as DynToolset]);
    let search = tool_search_toolset(vec![Arc::new(behind_search.clone()) as DynToolset]);
    let registry = ToolRegistry::new()
        .with_toolset(&proxy)
        .with_toolset(&search);
    let mut context = AgentContext::default();
    registry.enter_toolsets(&mut context).await;
    registry.exit_toolsets(&mut context).await;
    // Spec: "Set enter_before_prepare when a resource-backed toolset needs
    // setup before inventory is read".
    assert_eq!(behind_proxy.enters.load(Ordering::SeqCst), 1, "proxy");
    assert_eq!(behind_search.enters.load(Ordering::SeqCst), 1, "search");
    assert_eq!(behind_proxy.exits.load(Ordering::SeqCst), 1, "proxy exit");
    assert_eq!(behind_search.exits.load(Ordering::SeqCst), 1, "search exit");
}

// Regression: extend() exposed old tools of a same-named toolset that was never entered.
#[tokio::test]
async fn extended_registry_never_exposes_tools_whose_toolset_was_not_entered() {
    let old = CountingLifecycle::new("mcp", vec![described_echo("old_remote")]);
    let new = CountingLifecycle::new("mcp", vec![described_echo("new_remote")]);
    let mut registry = ToolRegistry::new().with_toolset(&old);
    registry.extend(&ToolRegistry::new().with_toolset(&new));
    let mut context = AgentContext::default();
    registry.enter_toolsets(&mut context).await;
    let names: Vec<String> = registry
        .definitions_for_context(&context)
        .into_iter()
        .map(|definition| definition.name)
        .collect();
    // tools.md: "Set enter_before_prepare when a resource-backed toolset
    // needs setup before inventory is read" -- old_remote is exposed but
    // its toolset's setup never ran (tool-runtime.md: re-inserting a
    // toolset drops its old tools; extend does neither consistently).
    assert!(
        !names.contains(&"old_remote".to_string()) || old.enters.load(Ordering::SeqCst) == 1,
        "exposed {names:?}, but the toolset of old_remote was never entered"
    );
}

// Regression: a prefixed proxy (or search) never ran the lifecycle of the toolsets it wraps.
#[tokio::test]
async fn prefixed_proxy_runs_the_lifecycle_of_wrapped_toolsets() {
    let remote = CountingLifecycle::new("remote", vec![echo("remote_tool", "A remote tool")]);
    let proxy = tool_proxy_toolset(vec![Arc::new(remote.clone()) as DynToolset]);
    // PrefixedToolset: "so several copies (two proxies, two environments)
    // can live in one registry".
    let prefixed = PrefixedToolset::new("eu", proxy);
    let registry = ToolRegistry::new().with_toolset(&prefixed);
    let mut context = AgentContext::default();
    registry.enter_toolsets(&mut context).await;
    registry.exit_toolsets(&mut context).await;
    // docs/tool-runtime.md: "Proxy and search toolsets run the lifecycle of
    // the toolsets they wrap"; "wrapped tools keep their ... lifecycle".
    assert_eq!(
        (
            remote.enters.load(Ordering::SeqCst),
            remote.exits.load(Ordering::SeqCst)
        ),
        (1, 1),
        "the remote toolset behind the prefixed proxy was never set up or closed"
    );
}

/// A resource-backed toolset (an MCP server): its tools are known only
/// once `enter_with_context` has connected.
#[derive(Clone, Default)]
struct ConnectFirst {
    connected: Arc<std::sync::atomic::AtomicBool>,
}

impl Toolset for ConnectFirst {
    fn name(&self) -> &str {
        "remote"
    }

    fn get_tools(&self) -> Vec<DynTool> {
        if self.connected.load(Ordering::SeqCst) {
            vec![echo("remote_tool", "A tool the server lists")]
        } else {
            Vec::new()
        }
    }

    fn lifecycle_policy(&self) -> ToolsetLifecyclePolicy {
        ToolsetLifecyclePolicy::managed()
    }

    fn enter_with_context<'a>(
        &'a self,
        _context: &'a mut AgentContext,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        self.connected.store(true, Ordering::SeqCst);
        Box::pin(async { Ok(()) })
    }
}

// Regression: a toolset's inventory was read at registration, long before its setup ran.
#[tokio::test]
async fn toolset_setup_runs_before_its_inventory_is_read() {
    let model = Arc::new(FunctionModel::new(|_: &[ModelMessage], _| {
        Ok(ModelResponse::text("done"))
    }));
    let agent = AgentBuilder::new(model.clone())
        .toolset(&ConnectFirst::default())
        .build();
    agent.run("go").await.unwrap();
    let exposed: Vec<String> = model.requests()[0]
        .parameters
        .tools
        .iter()
        .map(|tool| tool.name.clone())
        .collect();
    // Toolset::enter_with_context: "Sets up resources before the
    // inventory is read." (the spec: "Set enter_before_prepare when a
    // resource-backed toolset needs setup before inventory is read").
    assert_eq!(
        exposed,
        vec!["remote_tool"],
        "the inventory was read before setup"
    );
}

//! The dependency bags a run's registry resolved, kept per tool and
//! reused while everything a bag was built from is unchanged.
//!
//! A call's bag depends on the tool's profile (fixed per entry), the
//! dependencies on the call's context, the ambient context's dependencies,
//! shell settings and the tool's grant, the ambient handle itself and the
//! call's limits. Between the calls of a run these rarely change, and
//! building the bag copies maps: the cache compares the inputs instead.
//!
//! Dependency bags are compared by identity: the cache keeps a clone of
//! each bag it was built from, and a bag's maps are copy-on-write, so a
//! shared map is never changed in place; a change makes a new map, which
//! the next call sees as a different input.
//!
//! Only a registry that asks for it caches (a run's registry, for the
//! length of the run): the cache holds the ambient handle, and a registry
//! that outlives its runs would keep their contexts alive. Clones start
//! without a cache.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::{CallLimits, ToolEntry};
use crate::context::{
    AgentContext, AgentContextHandle, Dependencies, ShellEnvironmentSnapshot, ToolCapabilityGrant,
    ToolRuntimeSnapshot,
};
use crate::tools::ToolDependencyProfile;

type Bags = HashMap<Arc<str>, Resolved, foldhash::fast::RandomState>;

/// The cache of a registry: `None` when the registry does not cache.
#[derive(Default)]
pub(super) struct ResolvedBags(Option<Mutex<Bags>>);

impl Clone for ResolvedBags {
    /// A clone does not cache: it may outlive the run that asked for it.
    fn clone(&self) -> Self {
        Self(None)
    }
}

/// One tool's last bag with what it was built from.
struct Resolved {
    /// The entry's name: one per entry, so it tells a replaced entry of
    /// the same name apart.
    entry: Arc<str>,
    ambient: AgentContextHandle,
    base: Dependencies,
    host: Dependencies,
    shell: Option<ShellEnvironmentSnapshot>,
    /// The tool's grant, read for Strict tools only.
    grant: Option<ToolCapabilityGrant>,
    max_retries: u32,
    timeout_ms: Option<u64>,
    bag: Dependencies,
}

/// What one call's bag is built from.
pub(super) struct BagInputs<'a> {
    pub(super) entry: &'a ToolEntry,
    /// The name the call used (the entry's).
    pub(super) name: &'a str,
    pub(super) base: &'a Dependencies,
    pub(super) context: &'a AgentContext,
    pub(super) ambient: &'a AgentContextHandle,
    pub(super) limits: CallLimits,
}

impl BagInputs<'_> {
    /// The grant the bag depends on: only Strict tools read one.
    fn grant(&self) -> Option<&ToolCapabilityGrant> {
        match self.entry.requirements.profile {
            ToolDependencyProfile::Strict => self.context.tool_capability_grant(self.name),
            ToolDependencyProfile::Legacy | ToolDependencyProfile::Filtered => None,
        }
    }

    /// Builds the bag, as every call did before there was a cache.
    fn resolve(&self) -> Dependencies {
        let runtime = ToolRuntimeSnapshot {
            tool_name: self.name.to_string(),
            max_retries: self.limits.max_retries,
            timeout_ms: self.limits.timeout_ms,
            shell: None,
        };
        self.entry.requirements.resolve_in(
            self.name,
            self.base,
            self.context,
            self.ambient,
            runtime,
        )
    }
}

impl Resolved {
    /// True when `inputs` would build this bag again.
    fn built_from(&self, inputs: &BagInputs<'_>) -> bool {
        Arc::ptr_eq(&self.entry, &inputs.entry.name)
            && self.ambient.ptr_eq(inputs.ambient)
            && self.max_retries == inputs.limits.max_retries
            && self.timeout_ms == inputs.limits.timeout_ms
            && self.base.shares_entries_with(inputs.base)
            && self.host.shares_entries_with(&inputs.context.dependencies)
            && self.shell == inputs.context.shell_environment
            && self.grant.as_ref() == inputs.grant()
    }
}

impl ResolvedBags {
    /// A cache that keeps bags.
    pub(super) fn enabled() -> Self {
        Self(Some(Mutex::new(Bags::default())))
    }

    /// The bag for one call: the tool's last one when it was built from
    /// the same inputs, else a new one (kept for the next call). A cache
    /// another thread holds is passed by, never waited for.
    pub(super) fn bag(&self, inputs: &BagInputs<'_>) -> Dependencies {
        let Some(cache) = &self.0 else {
            return inputs.resolve();
        };
        if let Ok(bags) = cache.try_lock() {
            if let Some(last) = bags.get(inputs.name) {
                if last.built_from(inputs) {
                    return last.bag.clone();
                }
            }
        }
        let bag = inputs.resolve();
        if let Ok(mut bags) = cache.try_lock() {
            bags.insert(
                inputs.entry.name.clone(),
                Resolved {
                    entry: inputs.entry.name.clone(),
                    ambient: inputs.ambient.clone(),
                    base: inputs.base.clone(),
                    host: inputs.context.dependencies.clone(),
                    shell: inputs.context.shell_environment.clone(),
                    grant: inputs.grant().cloned(),
                    max_retries: inputs.limits.max_retries,
                    timeout_ms: inputs.limits.timeout_ms,
                    bag: bag.clone(),
                },
            );
        }
        bag
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::{json, Value};

    use crate::context::{
        AgentContext, AgentContextHandle, Dependencies, HostCapabilities, ShellEnvironmentSnapshot,
        ToolCapabilityGrant, ToolRuntimeSnapshot,
    };
    use crate::tools::{
        FunctionTool, InheritedLimits, ToolContext, ToolDependencyRequirements, ToolRegistry,
        ToolResult,
    };

    #[derive(Debug)]
    struct Db(&'static str);

    /// A tool reporting what its bag holds.
    fn observer(requirements: ToolDependencyRequirements) -> FunctionTool {
        FunctionTool::new("observe", None, json!({"type": "object"}), |ctx, _| {
            let host = ctx.dependency::<HostCapabilities>();
            let runtime = ctx.dependency::<ToolRuntimeSnapshot>();
            let seen = json!({
                "db": ctx.dependency::<Db>().map(|db| db.0),
                "billing": host.and_then(|host| host.get::<Db>("billing")).map(|db| db.0),
                "broad_handle": ctx.dependency::<AgentContextHandle>().is_some(),
                "marker": ctx
                    .dependency::<AgentContextHandle>()
                    .and_then(|handle| handle.read(|context| context.metadata.get("marker").cloned())),
                "shell": runtime.and_then(|runtime| runtime.shell.clone()).map(|shell| shell.allow_execute),
            });
            async move { Ok(ToolResult::new(seen)) }
        })
        .with_dependencies(requirements)
    }

    fn caching(tool: FunctionTool) -> ToolRegistry {
        ToolRegistry::new()
            .with_tool(Arc::new(tool))
            .caching_dependencies()
    }

    /// What the tool saw in one call against `ambient`, with `base` on the
    /// call's context.
    async fn seen(
        registry: &ToolRegistry,
        ambient: &AgentContextHandle,
        base: ToolContext,
    ) -> Value {
        let outcome = registry
            .call_tool(
                base.with_agent_context(ambient.clone()),
                "call_1",
                "observe",
                json!({}),
            )
            .await;
        match outcome.result {
            Ok(result) => result.content,
            Err(error) => panic!("the observer failed: {error}"),
        }
    }

    /// A tool that keeps each bag it receives.
    fn keeper(bags: &Arc<std::sync::Mutex<Vec<Dependencies>>>) -> FunctionTool {
        let bags = bags.clone();
        FunctionTool::new("observe", None, json!({"type": "object"}), move |ctx, _| {
            if let Ok(mut bags) = bags.lock() {
                bags.push(ctx.dependencies().clone());
            }
            async { Ok(ToolResult::new(json!({}))) }
        })
    }

    #[tokio::test]
    async fn an_unchanged_context_reuses_the_bag_and_a_clone_does_not_cache() {
        let ambient = AgentContextHandle::new(AgentContext::default());
        let bags = Arc::new(std::sync::Mutex::new(Vec::new()));
        let registry = caching(keeper(&bags));
        let plain = registry.clone();
        for registry in [&registry, &registry, &plain, &plain] {
            seen(registry, &ambient, ToolContext::default()).await;
        }
        let bags = bags.lock().map(|bags| bags.clone()).unwrap_or_default();
        assert_eq!(bags.len(), 4);
        assert!(
            bags[0].shares_entries_with(&bags[1]),
            "the second call reuses the bag"
        );
        assert!(
            !bags[2].shares_entries_with(&bags[3]),
            "a clone resolves every call"
        );
        assert!(!bags[1].shares_entries_with(&bags[2]));
    }

    #[tokio::test]
    async fn a_dependency_or_shell_added_after_a_call_is_seen_by_the_next() {
        let ambient = AgentContextHandle::new(AgentContext::default());
        let legacy = caching(observer(ToolDependencyRequirements::legacy()));
        let filtered = caching(observer(ToolDependencyRequirements::filtered(["billing"])));
        let nothing = json!({"db": null, "billing": null, "broad_handle": true, "marker": null, "shell": null});
        assert_eq!(
            seen(&legacy, &ambient, ToolContext::default()).await,
            nothing
        );
        assert_eq!(
            seen(&filtered, &ambient, ToolContext::default()).await["billing"],
            Value::Null
        );
        ambient.update(|context| {
            context.shell_environment = Some(ShellEnvironmentSnapshot {
                allow_execute: true,
                ..ShellEnvironmentSnapshot::default()
            });
        });
        assert_eq!(
            seen(&legacy, &ambient, ToolContext::default()).await["shell"],
            true
        );
        // The caller's dependencies count as well as the context's.
        let from_caller = ToolContext::default().with_dependency(Db("from-the-caller"));
        assert_eq!(
            seen(&legacy, &ambient, from_caller).await["db"],
            "from-the-caller"
        );
        ambient.update(|context| {
            context.insert_dependency(Db("primary"));
            context.insert_named_dependency("billing", Db("acme"));
        });
        assert_eq!(
            seen(&legacy, &ambient, ToolContext::default()).await,
            json!({"db": "primary", "billing": "acme", "broad_handle": true, "marker": null, "shell": true})
        );
        assert_eq!(
            seen(&filtered, &ambient, ToolContext::default()).await,
            json!({"db": "primary", "billing": "acme", "broad_handle": false, "marker": null, "shell": null})
        );
        // Replacing a dependency is a change too.
        ambient.update(|context| context.insert_dependency(Db("replica")));
        assert_eq!(
            seen(&legacy, &ambient, ToolContext::default()).await["db"],
            "replica"
        );
        // Another run's context is another input, even with the same
        // dependencies.
        let mut copy = ambient.snapshot();
        copy.metadata
            .insert("marker".to_string(), json!("the other run"));
        let other = AgentContextHandle::new(copy);
        assert_eq!(
            seen(&legacy, &other, ToolContext::default()).await["marker"],
            "the other run"
        );
    }

    #[tokio::test]
    async fn the_runtime_snapshot_follows_each_calls_limits() {
        let ambient = AgentContextHandle::new(AgentContext::default());
        let limits = Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = limits.clone();
        let tool = FunctionTool::new("observe", None, json!({"type": "object"}), move |ctx, _| {
            let runtime = ctx.dependency::<ToolRuntimeSnapshot>();
            if let (Ok(mut limits), Some(runtime)) = (kept.lock(), runtime) {
                limits.push((runtime.max_retries, runtime.timeout_ms));
            }
            async { Ok(ToolResult::new(json!({}))) }
        });
        let registry = caching(tool);
        // Limits inherited from an outer registry (a proxy's) vary by call.
        for (max_retries, timeout_ms) in [(1, 10), (2, 10), (2, 20)] {
            let mut ctx = ToolContext::default();
            ctx.set_inherited_limits(InheritedLimits {
                timeout_ms: Some(timeout_ms),
                max_retries: Some(max_retries),
            });
            seen(&registry, &ambient, ctx).await;
        }
        let limits = limits
            .lock()
            .map(|limits| limits.clone())
            .unwrap_or_default();
        assert_eq!(limits, vec![(1, Some(10)), (2, Some(10)), (2, Some(20))]);
    }

    #[tokio::test]
    async fn a_grant_changed_between_calls_is_honoured() {
        let mut context = AgentContext::default();
        context.insert_named_dependency("billing", Db("acme"));
        let ambient = AgentContextHandle::new(context);
        let strict = caching(observer(ToolDependencyRequirements::strict(["billing"])));
        let billing = |seen: Value| seen["billing"].clone();
        assert_eq!(
            billing(seen(&strict, &ambient, ToolContext::default()).await),
            Value::Null
        );
        ambient.update(|context| {
            context.grant_tool_capabilities(
                "observe",
                ToolCapabilityGrant::new().with_host_capabilities(["billing"]),
            );
        });
        assert_eq!(
            billing(seen(&strict, &ambient, ToolContext::default()).await),
            "acme"
        );
        ambient.update(|context| {
            context.grant_tool_capabilities("observe", ToolCapabilityGrant::new());
        });
        assert_eq!(
            billing(seen(&strict, &ambient, ToolContext::default()).await),
            Value::Null
        );
    }

    #[tokio::test]
    async fn a_strict_tool_sees_nothing_ambient_after_a_legacy_one_of_its_name() {
        let mut context = AgentContext::default();
        context.insert_dependency(Db("primary"));
        context.insert_named_dependency("billing", Db("acme"));
        let ambient = AgentContextHandle::new(context);
        let mut registry = caching(observer(ToolDependencyRequirements::legacy()));
        let caller = ToolContext::default().with_dependency(Db("from-the-caller"));
        let base = || caller.clone();
        assert_eq!(
            seen(&registry, &ambient, base()).await["broad_handle"],
            true
        );
        // The same name, now Strict: the Legacy tool's bag must not be reused.
        registry.insert_tool(Arc::new(observer(ToolDependencyRequirements::strict([
            "billing",
        ]))));
        let nothing = json!({"db": null, "billing": null, "broad_handle": false, "marker": null, "shell": null});
        for _ in 0..2 {
            assert_eq!(seen(&registry, &ambient, base()).await, nothing);
        }
    }
}

//! The tool registry: where tools and toolsets are registered, exposed to
//! a model and dispatched.

mod attempts;
mod availability;
mod dispatch;
mod refresh;
mod resolved;
mod returns;
mod shortening;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

pub use availability::{AvailabilityReport, ToolsUnavailableError};
pub use dispatch::ToolCallOutcome;
pub use refresh::ToolsetRefreshReport;
use refresh::Watched;
use resolved::ResolvedBags;

use super::instruction::dedup_by_group;
use super::{
    DynTool, Tool, ToolDependencyRequirements, ToolExecutionHook, ToolFacts, ToolInstruction,
    ToolLimits,
};
use crate::context::AgentContext;
use crate::model::ToolDefinition;
use crate::tools::panic_guard::survives;
use crate::tools::{DynToolset, IntoDynToolset};

/// Retry budget when neither tool, toolset nor registry sets one.
pub const DEFAULT_MAX_RETRIES: u32 = 3;

/// Defaults a toolset passes to its tools.
#[derive(Debug)]
pub(crate) struct ToolsetDefaults {
    pub(crate) name: String,
    pub(crate) timeout_ms: Option<u64>,
    pub(crate) max_retries: Option<u32>,
}

/// One registered tool with what the registry derived from it once: its
/// definition and its typed facts, read when the tool is registered and
/// never again from metadata.
pub(crate) struct ToolEntry {
    pub(crate) tool: DynTool,
    pub(crate) definition: Arc<ToolDefinition>,
    pub(crate) facts: ToolFacts,
    pub(crate) toolset: Option<Arc<ToolsetDefaults>>,
    pub(crate) requirements: ToolDependencyRequirements,
    pub(crate) validates: bool,
    pub(crate) delegates: bool,
    pub(crate) name: Arc<str>,
}

impl ToolEntry {
    fn new(tool: DynTool, toolset: Option<Arc<ToolsetDefaults>>) -> Self {
        let definition = Arc::new(tool.definition());
        let facts = tool.facts();
        let requirements = facts.dependency_requirements();
        let name = Arc::from(definition.name.as_str());
        let validates = tool.validates_arguments();
        let delegates = tool.delegates_execution();
        Self {
            tool,
            definition,
            facts,
            toolset,
            requirements,
            validates,
            delegates,
            name,
        }
    }
}

/// Tools and toolsets available to an agent.
///
/// Tool names are unique: registering a name again replaces the earlier
/// tool. Definitions are listed in name order so prompts are stable.
/// Cloning is cheap (tools are shared).
#[derive(Clone, Default)]
pub struct ToolRegistry {
    entries: BTreeMap<String, Arc<ToolEntry>>,
    toolsets: Vec<DynToolset>,
    /// Instructions with the toolset that contributed them.
    instructions: Vec<(Option<Arc<str>>, ToolInstruction)>,
    timeout_ms: Option<u64>,
    max_retries: Option<u32>,
    hooks: Vec<Arc<dyn ToolExecutionHook>>,
    tool_hooks: HashMap<String, Vec<Arc<dyn ToolExecutionHook>>>,
    limits: ToolLimits,
    /// The toolsets whose tool lists can change after setup, with the list each was last
    /// registered with.
    watched: Vec<Watched>,
    /// The dependency bags of earlier calls, when this registry keeps them
    /// (a run's does); clones start without.
    resolved: ResolvedBags,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names())
            .field("timeout_ms", &self.timeout_ms)
            .field("max_retries", &self.max_retries)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl ToolRegistry {
    /// An empty registry.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool.
    #[must_use]
    pub fn with_tool(mut self, tool: DynTool) -> Self {
        self.insert_tool(tool);
        self
    }

    /// Adds a tool in place.
    pub fn insert_tool(&mut self, tool: DynTool) {
        let entry = ToolEntry::new(tool, None);
        self.entries
            .insert(entry.definition.name.clone(), Arc::new(entry));
    }

    /// Adds every tool of a toolset, with its instructions and defaults.
    #[must_use]
    pub fn with_toolset(mut self, toolset: &impl IntoDynToolset) -> Self {
        self.insert_toolset(toolset);
        self
    }

    /// Adds a toolset in place.
    ///
    /// Inserting a toolset again (same name) refreshes it: its previous
    /// tools and instructions are dropped and its lifecycle still runs
    /// once per run.
    pub fn insert_toolset(&mut self, toolset: &impl IntoDynToolset) {
        let toolset = toolset.to_dyn_toolset();
        self.forget_toolset(toolset.name());
        self.add_toolset(toolset);
    }

    /// Why `toolset`'s tools cannot join: the first of them whose name a tool of another
    /// toolset (or one registered on its own) already has, in words naming both; `None` when
    /// every name is free.
    pub(crate) fn name_clash(&self, toolset: &DynToolset) -> Option<String> {
        let own = toolset.name();
        toolset.get_tools().iter().find_map(|tool| {
            let entry = self.entries.get(tool.name())?;
            let owner = entry
                .toolset
                .as_ref()
                .map(|defaults| defaults.name.as_str());
            if owner == Some(own) {
                return None;
            }
            let other = owner.map_or_else(
                || "a tool registered on its own".to_string(),
                |owner| format!("toolset `{owner}`"),
            );
            Some(format!(
                "its tool `{}` has the name of a tool of {other}, so one would hide the other; \
                 give one of the toolsets a `prefix`, or choose its tools with `tools:`",
                tool.name()
            ))
        })
    }

    /// Adds a toolset's tools, instructions and lifecycle without dropping
    /// an earlier toolset of the same name (tools with equal names still
    /// replace earlier ones).
    pub(crate) fn add_toolset(&mut self, toolset: DynToolset) {
        // Read before the tools: a change that lands in between is read again next time.
        if let Some(watched) = Watched::of(&toolset) {
            self.watched
                .retain(|existing| existing.toolset != watched.toolset);
            self.watched.push(watched);
        }
        let defaults = Arc::new(ToolsetDefaults {
            name: toolset.name().to_string(),
            timeout_ms: toolset.timeout_ms(),
            max_retries: toolset.max_retries(),
        });
        for tool in toolset.get_tools() {
            let entry = ToolEntry::new(tool, Some(defaults.clone()));
            self.entries
                .insert(entry.definition.name.clone(), Arc::new(entry));
        }
        let owner = Some(Arc::<str>::from(toolset.name()));
        self.instructions.extend(
            toolset
                .get_instructions()
                .into_iter()
                .map(|instruction| (owner.clone(), instruction)),
        );
        if !self
            .toolsets
            .iter()
            .any(|existing| existing.name() == toolset.name())
        {
            self.toolsets.push(toolset);
        }
    }

    /// Drops a toolset's tools, instructions and lifecycle entry.
    fn forget_toolset(&mut self, name: &str) {
        self.entries.retain(|_, entry| {
            entry
                .toolset
                .as_ref()
                .is_none_or(|defaults| defaults.name != name)
        });
        self.instructions
            .retain(|(owner, _)| owner.as_deref() != Some(name));
        self.toolsets.retain(|existing| existing.name() != name);
        self.watched.retain(|watched| watched.toolset != name);
    }

    /// Adds every tool and toolset of another registry (its defaults and
    /// hooks are not copied). A toolset the other registry shares by name
    /// replaces this registry's, as with [`Self::insert_toolset`].
    pub fn extend(&mut self, other: &Self) {
        for toolset in &other.toolsets {
            self.forget_toolset(toolset.name());
        }
        for (name, entry) in &other.entries {
            self.entries.insert(name.clone(), entry.clone());
        }
        self.toolsets.extend(other.toolsets.iter().cloned());
        self.instructions.extend(other.instructions.iter().cloned());
        self.watched.extend(other.watched.iter().cloned());
    }

    /// Takes another registry's defaults and hooks (not its tools).
    pub(crate) fn adopt_settings(&mut self, other: &Self) {
        self.timeout_ms = other.timeout_ms;
        self.max_retries = other.max_retries;
        self.limits = other.limits;
        self.hooks.clone_from(&other.hooks);
        self.tool_hooks.clone_from(&other.tool_hooks);
    }

    /// Registry-wide timeout default.
    #[must_use]
    pub fn with_timeout_ms(mut self, timeout_ms: u64) -> Self {
        self.timeout_ms = Some(timeout_ms);
        self
    }

    /// Registry-wide retry default.
    #[must_use]
    pub fn with_max_retries(mut self, max_retries: u32) -> Self {
        self.max_retries = Some(max_retries);
        self
    }

    /// Bounds on every call's arguments and on what goes back to the
    /// model (see [`ToolLimits`]).
    #[must_use]
    pub fn with_limits(mut self, limits: ToolLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The bounds this registry applies to every call.
    #[must_use]
    pub fn limits(&self) -> &ToolLimits {
        &self.limits
    }

    /// Fills the registry-level limits from an outer level (the agent
    /// policy) where the registry sets none.
    #[must_use]
    pub fn with_fallback_limits(
        mut self,
        timeout_ms: Option<u64>,
        max_retries: Option<u32>,
    ) -> Self {
        self.timeout_ms = self.timeout_ms.or(timeout_ms);
        self.max_retries = self.max_retries.or(max_retries);
        self
    }

    /// Keeps each tool's resolved dependency bag and reuses it while what
    /// it was built from is unchanged. For a registry that lives as long
    /// as one run: the bags hold the run's context.
    #[must_use]
    pub(crate) fn caching_dependencies(mut self) -> Self {
        self.resolved = ResolvedBags::enabled();
        self
    }

    /// Adds a global execution hook (runs first on input, last on output).
    #[must_use]
    pub fn with_execution_hook(mut self, hook: Arc<dyn ToolExecutionHook>) -> Self {
        self.hooks.push(hook);
        self
    }

    /// Adds a hook for one tool (runs after global hooks on input, before
    /// them on output).
    #[must_use]
    pub fn with_tool_execution_hook(
        mut self,
        tool: impl Into<String>,
        hook: Arc<dyn ToolExecutionHook>,
    ) -> Self {
        self.tool_hooks.entry(tool.into()).or_default().push(hook);
        self
    }

    /// Registered tools whose names providers would reject, with the
    /// reason. Agent runs refuse to start while there are any.
    #[must_use]
    pub fn invalid_tool_names(&self) -> Vec<(String, String)> {
        self.entries
            .keys()
            .filter_map(|name| {
                super::validate_tool_name(name)
                    .err()
                    .map(|problem| (name.clone(), problem))
            })
            .collect()
    }

    /// Registered tool names, sorted.
    #[must_use]
    pub fn names(&self) -> Vec<String> {
        self.entries.keys().cloned().collect()
    }

    /// True when no tool is registered.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Number of registered tools.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// A registered tool's entry: the tool with the facts read from it once.
    pub(crate) fn entry(&self, name: &str) -> Option<&ToolEntry> {
        self.entries.get(name).map(|entry| &**entry)
    }

    /// A registered tool.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&DynTool> {
        self.entries.get(name).map(|entry| &entry.tool)
    }

    /// The registered (unprepared) definition of a tool.
    #[must_use]
    pub fn definition(&self, name: &str) -> Option<&ToolDefinition> {
        self.entries.get(name).map(|entry| &*entry.definition)
    }

    /// The typed facts of a registered tool: what the runtime follows
    /// for it, whatever its definition's metadata says.
    #[must_use]
    pub fn facts(&self, name: &str) -> Option<&ToolFacts> {
        self.entries.get(name).map(|entry| &entry.facts)
    }

    /// The dependency requirements a tool declared.
    #[must_use]
    pub fn dependency_requirements(&self, name: &str) -> Option<&ToolDependencyRequirements> {
        self.entries.get(name).map(|entry| &entry.requirements)
    }

    /// All registered definitions in name order, ignoring context.
    #[must_use]
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.entries
            .values()
            .map(|entry| ToolDefinition::clone(&entry.definition))
            .collect()
    }

    /// Toolset instructions, one per group (the first registered wins).
    #[must_use]
    pub fn instructions(&self) -> Vec<ToolInstruction> {
        dedup_by_group(
            self.instructions
                .iter()
                .map(|(_, instruction)| instruction.clone()),
        )
    }

    /// Registered toolsets, in registration order.
    #[must_use]
    pub fn toolsets(&self) -> &[DynToolset] {
        &self.toolsets
    }

    /// Effective timeout: tool, then toolset, then registry.
    #[must_use]
    pub fn timeout_ms_for(&self, name: &str) -> Option<u64> {
        self.entries
            .get(name)
            .map_or(self.timeout_ms, |entry| self.entry_timeout_ms(entry))
    }

    /// Effective retry budget: tool, then toolset, then registry, then
    /// [`DEFAULT_MAX_RETRIES`].
    #[must_use]
    pub fn max_retries_for(&self, name: &str) -> u32 {
        self.entries
            .get(name)
            .map_or(self.max_retries.unwrap_or(DEFAULT_MAX_RETRIES), |entry| {
                self.entry_max_retries(entry)
            })
    }

    fn entry_timeout_ms(&self, entry: &ToolEntry) -> Option<u64> {
        self.call_limits(entry, InheritedLimits::default())
            .timeout_ms
    }

    fn entry_max_retries(&self, entry: &ToolEntry) -> u32 {
        self.call_limits(entry, InheritedLimits::default())
            .max_retries
    }

    /// Effective limits of one call: tool, then toolset, then this
    /// registry, then limits inherited from an outer registry (a proxy's
    /// caller), then the default. A delegating tool (`call_tool`) gets no
    /// inherited timeout and no internal retries: the tool it runs applies
    /// its own.
    pub(crate) fn call_limits(&self, entry: &ToolEntry, inherited: InheritedLimits) -> CallLimits {
        let toolset = entry.toolset.as_deref();
        let max_retries = entry
            .facts
            .max_retries
            .or_else(|| toolset.and_then(|toolset| toolset.max_retries))
            .or(self.max_retries)
            .or(inherited.max_retries)
            .unwrap_or(DEFAULT_MAX_RETRIES);
        if entry.delegates {
            return CallLimits {
                timeout_ms: entry.facts.timeout_ms,
                max_retries,
                internal_retries: 0,
            };
        }
        CallLimits {
            timeout_ms: entry
                .facts
                .timeout_ms
                .or_else(|| toolset.and_then(|toolset| toolset.timeout_ms))
                .or(self.timeout_ms)
                .or(inherited.timeout_ms),
            max_retries,
            internal_retries: max_retries,
        }
    }

    /// The limits this registry passes on to registries it dispatches
    /// into.
    pub(crate) fn inherit(&self, outer: InheritedLimits) -> InheritedLimits {
        InheritedLimits {
            timeout_ms: self.timeout_ms.or(outer.timeout_ms),
            max_retries: self.max_retries.or(outer.max_retries),
        }
    }
}

/// [`Tool::is_loaded`] behind [`survives`]: a panic counts as not loaded.
pub(crate) fn is_loaded_in(tool: &dyn Tool, context: &AgentContext) -> bool {
    survives(|| tool.is_loaded(context))
}

/// [`Tool::is_available`] behind [`survives`]: a panic counts as
/// unavailable.
pub(crate) fn is_available_in(tool: &dyn Tool, context: &AgentContext) -> bool {
    survives(|| tool.is_available(context))
}

/// Whether the model may call `tool` now: the toolset it came from (if
/// any) is up, and its own availability check passes behind
/// [`survives`]. The one rule the registry, the proxy and tool search
/// share.
pub(crate) fn is_usable_in(tool: &dyn Tool, toolset: Option<&str>, context: &AgentContext) -> bool {
    toolset.is_none_or(|name| !context.unavailable_toolsets.contains(name))
        && is_available_in(tool, context)
}

/// [`Tool::prepare_definition`], with a panic counting as `None` (hidden).
pub(crate) fn prepare_definition_in(
    tool: &dyn Tool,
    context: &AgentContext,
    definition: &Arc<ToolDefinition>,
) -> Option<Arc<ToolDefinition>> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tool.prepare_definition(context, definition)
    }))
    .ok()
    .flatten()
}

/// Registry-level limits carried into nested registries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct InheritedLimits {
    pub(crate) timeout_ms: Option<u64>,
    pub(crate) max_retries: Option<u32>,
}

/// The limits of one call.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CallLimits {
    pub(crate) timeout_ms: Option<u64>,
    /// The model-correction budget (and the internal one, unless
    /// delegating).
    pub(crate) max_retries: u32,
    pub(crate) internal_retries: u32,
}

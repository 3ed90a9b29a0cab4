//! A tool that wraps another with a changed definition, visibility or
//! defaults: the building block of prefixed, deferred and searchable tools.

use std::sync::Arc;

use serde_json::Value;

use super::{DynTool, Tool, ToolError, ToolFacts, ToolResult, ToolUserInputPreprocessResult};
use crate::context::AgentContext;
use crate::model::ToolDefinition;
use crate::tools::ToolContext;
use crate::BoxFuture;

pub(crate) type LoadedFn = Arc<dyn Fn(&AgentContext) -> bool + Send + Sync>;

/// Forwards everything to `inner` except what is overridden: the one
/// delegating base of the toolset combinators.
pub(crate) struct WrappedTool {
    inner: DynTool,
    definition: ToolDefinition,
    facts: ToolFacts,
    loaded: Option<LoadedFn>,
    toolset: Option<String>,
}

impl WrappedTool {
    /// Wraps `inner` under `definition` (a renamed or re-described copy of
    /// the inner definition), keeping the inner tool's facts.
    pub(crate) fn new(inner: DynTool, definition: ToolDefinition) -> Self {
        let facts = inner.facts();
        Self {
            inner,
            definition,
            facts,
            loaded: None,
            toolset: None,
        }
    }

    /// Changes the facts (and the metadata hosts read from them).
    pub(crate) fn with_facts(mut self, change: impl FnOnce(&mut ToolFacts)) -> Self {
        change(&mut self.facts);
        self.facts.write_metadata(&mut self.definition.metadata);
        self
    }

    /// The inner tool's own toolset: when its lifecycle leaves it
    /// unavailable, this tool is unavailable too.
    pub(crate) fn with_toolset(mut self, toolset: String) -> Self {
        self.toolset = Some(toolset);
        self
    }

    /// Fallback limits (from the inner tool's toolset) used when the
    /// inner tool sets none.
    pub(crate) fn with_defaults(
        mut self,
        timeout_ms: Option<u64>,
        max_retries: Option<u32>,
    ) -> Self {
        self.facts.timeout_ms = self.facts.timeout_ms.or(timeout_ms);
        self.facts.max_retries = self.facts.max_retries.or(max_retries);
        self
    }

    pub(crate) fn with_loaded(mut self, loaded: LoadedFn) -> Self {
        self.loaded = Some(loaded);
        self
    }
}

impl Tool for WrappedTool {
    fn name(&self) -> &str {
        &self.definition.name
    }

    fn definition(&self) -> ToolDefinition {
        self.definition.clone()
    }

    fn call<'a>(
        &'a self,
        ctx: ToolContext,
        arguments: &'a Value,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        self.inner.call(ctx, arguments)
    }

    fn facts(&self) -> ToolFacts {
        self.facts.clone()
    }

    fn is_available(&self, context: &AgentContext) -> bool {
        self.toolset
            .as_ref()
            .is_none_or(|toolset| !context.unavailable_toolsets.contains(toolset))
            && self.inner.is_available(context)
    }

    fn is_loaded(&self, context: &AgentContext) -> bool {
        self.loaded.as_ref().is_none_or(|loaded| loaded(context)) && self.inner.is_loaded(context)
    }

    fn prepare_definition(
        &self,
        context: &AgentContext,
        definition: &Arc<ToolDefinition>,
    ) -> Option<Arc<ToolDefinition>> {
        let prepared = self.inner.prepare_definition(context, definition)?;
        if prepared.name == self.definition.name {
            return Some(prepared);
        }
        let mut renamed = Arc::unwrap_or_clone(prepared);
        renamed.name.clone_from(&self.definition.name);
        Some(Arc::new(renamed))
    }

    fn validate_arguments(
        &self,
        ctx: &ToolContext,
        arguments: &mut Value,
    ) -> Result<(), ToolError> {
        self.inner.validate_arguments(ctx, arguments)
    }

    fn delegates_execution(&self) -> bool {
        self.inner.delegates_execution()
    }

    fn validates_arguments(&self) -> bool {
        self.inner.validates_arguments()
    }

    fn check_arguments(&self, arguments: &Value) -> Result<(), ToolError> {
        self.inner.check_arguments(arguments)
    }

    fn preprocess_user_input(
        &self,
        ctx: ToolContext,
        user_input: Value,
    ) -> Option<BoxFuture<'_, Result<ToolUserInputPreprocessResult, ToolError>>> {
        self.inner.preprocess_user_input(ctx, user_input)
    }
}

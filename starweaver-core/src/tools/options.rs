//! What a function tool's `with_*` builders set, and the builders
//! themselves, written once for manual-schema and typed tools alike.

use std::sync::Arc;

use serde_json::Value;

use super::{
    FunctionTool, ToolDependencyRequirements, ToolError, ToolFacts, ToolKind,
    ToolUserInputPreprocessResult,
};
use crate::context::AgentContext;
use crate::model::ToolDefinition;
use crate::tools::ToolContext;
use crate::BoxFuture;

pub(crate) type AvailabilityFn = Arc<dyn Fn(&AgentContext) -> bool + Send + Sync>;
pub(crate) type PrepareFn =
    Arc<dyn Fn(&AgentContext, ToolDefinition) -> Option<ToolDefinition> + Send + Sync>;
pub(crate) type ValidatorFn =
    Arc<dyn Fn(&ToolContext, &mut Value) -> Result<(), ToolError> + Send + Sync>;
pub(crate) type PreprocessFn = Arc<
    dyn Fn(
            ToolContext,
            Value,
        ) -> BoxFuture<'static, Result<ToolUserInputPreprocessResult, ToolError>>
        + Send
        + Sync,
>;

/// Everything a builder method can set on a tool.
#[derive(Clone)]
pub(crate) struct ToolOptions {
    /// The definition, its metadata kept in step with `facts`.
    pub(crate) definition: ToolDefinition,
    pub(crate) facts: ToolFacts,
    pub(crate) availability: Option<AvailabilityFn>,
    pub(crate) prepare: Option<PrepareFn>,
    pub(crate) validators: Vec<ValidatorFn>,
    pub(crate) preprocessor: Option<PreprocessFn>,
    pub(crate) delegates: bool,
}

impl ToolOptions {
    pub(crate) fn new(definition: ToolDefinition) -> Self {
        Self {
            definition,
            facts: ToolFacts::default(),
            availability: None,
            prepare: None,
            validators: Vec::new(),
            preprocessor: None,
            delegates: false,
        }
    }

    /// Changes the facts and writes them into the definition's metadata,
    /// so what hosts read always matches what the runtime follows.
    fn update_facts(&mut self, change: impl FnOnce(&mut ToolFacts)) {
        change(&mut self.facts);
        self.facts.write_metadata(&mut self.definition.metadata);
    }

    pub(crate) fn run_validators(
        &self,
        ctx: &ToolContext,
        arguments: &mut Value,
    ) -> Result<(), ToolError> {
        self.validators
            .iter()
            .try_for_each(|validator| validator(ctx, arguments))
    }

    pub(crate) fn is_available(&self, context: &AgentContext) -> bool {
        self.availability
            .as_ref()
            .is_none_or(|available| available(context))
    }

    /// The definition for one request: the shared one unless a
    /// `with_prepare_definition` closure changes (or hides) it.
    pub(crate) fn prepare(
        &self,
        context: &AgentContext,
        definition: &Arc<ToolDefinition>,
    ) -> Option<Arc<ToolDefinition>> {
        match &self.prepare {
            Some(prepare) => prepare(context, ToolDefinition::clone(definition)).map(Arc::new),
            None => Some(definition.clone()),
        }
    }

    pub(crate) fn preprocess(
        &self,
        ctx: ToolContext,
        user_input: Value,
    ) -> Option<BoxFuture<'static, Result<ToolUserInputPreprocessResult, ToolError>>> {
        self.preprocessor
            .as_ref()
            .map(|preprocess| preprocess(ctx, user_input))
    }
}

impl std::fmt::Debug for ToolOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolOptions")
            .field("definition", &self.definition)
            .field("facts", &self.facts)
            .field("validators", &self.validators.len())
            .finish_non_exhaustive()
    }
}

impl<A> FunctionTool<A> {
    /// Sets the tool-level timeout (wins over toolset and registry).
    #[must_use]
    pub fn with_timeout_ms(mut self, timeout_ms: u64) -> Self {
        self.options.facts.timeout_ms = Some(timeout_ms);
        self
    }

    /// Sets the tool-level retry budget (wins over toolset and registry).
    #[must_use]
    pub fn with_max_retries(mut self, max_retries: u32) -> Self {
        self.options.facts.max_retries = Some(max_retries);
        self
    }

    /// Adds capability tags.
    #[must_use]
    pub fn with_tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.options
            .update_facts(|facts| facts.add_tags(tags.into_iter().map(Into::into)));
        self
    }

    /// Hides this tool when another available tool carries `tag`.
    #[must_use]
    pub fn with_hidden_by_tag(self, tag: impl Into<String>) -> Self {
        self.with_hidden_by_tags([tag.into()])
    }

    /// Hides this tool when another available tool carries any of these tags.
    #[must_use]
    pub fn with_hidden_by_tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.options
            .update_facts(|facts| facts.add_hidden_by_tags(tags.into_iter().map(Into::into)));
        self
    }

    /// Sets the tool kind (shown to hosts as `starweaver_tool_kind`). Kind
    /// `unapproved` also requires approval.
    #[must_use]
    pub fn with_kind(mut self, kind: ToolKind) -> Self {
        self.options.update_facts(|facts| facts.set_kind(kind));
        self
    }

    /// Sets the provider strict-schema preference.
    #[must_use]
    pub fn with_strict_schema(mut self, strict: bool) -> Self {
        self.options.definition.strict = Some(strict);
        self
    }

    /// Requires model-order execution for calls of this tool.
    #[must_use]
    pub fn with_sequential(mut self, sequential: bool) -> Self {
        self.options.definition.sequential = Some(sequential);
        self
    }

    /// Declares that a call must not run twice: when a journaled run resumes after its
    /// process died while a call of this tool was running, the call waits for a person's
    /// approval instead of running again (see [`super::ToolFacts::at_most_once`]).
    #[must_use]
    pub fn with_at_most_once(mut self, at_most_once: bool) -> Self {
        self.options
            .update_facts(|facts| facts.at_most_once = at_most_once);
        self
    }

    /// Publishes the JSON Schema of successful results.
    #[must_use]
    pub fn with_return_schema(mut self, schema: Value) -> Self {
        self.options.definition.return_schema = Some(schema);
        self
    }

    /// Adds one metadata entry. A key the runtime understands (see
    /// [`super::FACT_METADATA_KEYS`], such as
    /// `starweaver_tool_dependencies`) is read into the tool's facts here,
    /// once; any other key is shown to hosts as given.
    #[must_use]
    pub fn with_metadata(mut self, key: impl Into<String>, value: Value) -> Self {
        let key = key.into();
        self.options
            .update_facts(|facts| facts.absorb(&key, &value));
        if !super::FACT_METADATA_KEYS.contains(&key.as_str()) {
            self.options.definition.metadata.insert(key, value);
        }
        self
    }

    /// Requires human approval before each call.
    #[must_use]
    pub fn with_approval_required(mut self, required: bool) -> Self {
        self.options
            .update_facts(|facts| facts.approval_required = required);
        self
    }

    /// Names the request kind an approval of this tool shows hosts
    /// (default `tool_approval`).
    #[must_use]
    pub fn with_approval_request_kind(mut self, kind: impl Into<String>) -> Self {
        let kind = kind.into();
        self.options
            .update_facts(|facts| facts.approval_request_kind = Some(kind));
        self
    }

    /// Declares the tool's dependency profile (Filtered or Strict).
    #[must_use]
    pub fn with_dependencies(mut self, requirements: ToolDependencyRequirements) -> Self {
        self.options
            .update_facts(|facts| facts.dependencies = Some(requirements));
        self
    }

    /// Exposes the tool only when `available` returns true.
    #[must_use]
    pub fn with_availability<F>(mut self, available: F) -> Self
    where
        F: Fn(&AgentContext) -> bool + Send + Sync + 'static,
    {
        self.options.availability = Some(Arc::new(available));
        self
    }

    /// Adjusts the definition per request; `None` hides the tool. What
    /// the runtime follows (approval, kind, tags, limits) stays the
    /// tool's facts whatever metadata the prepared definition shows.
    #[must_use]
    pub fn with_prepare_definition<F>(mut self, prepare: F) -> Self
    where
        F: Fn(&AgentContext, ToolDefinition) -> Option<ToolDefinition> + Send + Sync + 'static,
    {
        self.options.prepare = Some(Arc::new(prepare));
        self
    }

    /// Appends a raw-JSON argument validator; validators run in order
    /// and may normalise the arguments in place.
    #[must_use]
    pub fn with_argument_validator<F>(mut self, validator: F) -> Self
    where
        F: Fn(&ToolContext, &mut Value) -> Result<(), ToolError> + Send + Sync + 'static,
    {
        self.options.validators.push(Arc::new(validator));
        self
    }

    /// Preprocesses human input supplied with an approval.
    #[must_use]
    pub fn with_user_input_preprocessor<F, Fut>(mut self, preprocess: F) -> Self
    where
        F: Fn(ToolContext, Value) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<ToolUserInputPreprocessResult, ToolError>>
            + Send
            + 'static,
    {
        self.options.preprocessor =
            Some(Arc::new(move |ctx, input| Box::pin(preprocess(ctx, input))));
        self
    }
}

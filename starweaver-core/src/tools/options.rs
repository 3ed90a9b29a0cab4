//! Options shared by function and typed tools, and the `with_*` builder
//! methods both expose.

use std::sync::Arc;

use serde_json::Value;

use super::{ToolError, ToolUserInputPreprocessResult};
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
    pub(crate) definition: ToolDefinition,
    pub(crate) timeout_ms: Option<u64>,
    pub(crate) max_retries: Option<u32>,
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
            timeout_ms: None,
            max_retries: None,
            availability: None,
            prepare: None,
            validators: Vec::new(),
            preprocessor: None,
            delegates: false,
        }
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

    pub(crate) fn prepare(
        &self,
        context: &AgentContext,
        definition: ToolDefinition,
    ) -> Option<ToolDefinition> {
        match &self.prepare {
            Some(prepare) => prepare(context, definition),
            None => Some(definition),
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
            .field("timeout_ms", &self.timeout_ms)
            .field("max_retries", &self.max_retries)
            .field("validators", &self.validators.len())
            .finish_non_exhaustive()
    }
}

/// Generates the `with_*` builder methods on a tool type whose options
/// live at `self.<path>`.
macro_rules! tool_builder_methods {
    ($($path:ident).+) => {
        /// Sets the tool-level timeout (wins over toolset and registry).
        #[must_use]
        pub fn with_timeout_ms(mut self, timeout_ms: u64) -> Self {
            self.$($path).+.timeout_ms = Some(timeout_ms);
            self
        }

        /// Sets the tool-level retry budget (wins over toolset and registry).
        #[must_use]
        pub fn with_max_retries(mut self, max_retries: u32) -> Self {
            self.$($path).+.max_retries = Some(max_retries);
            self
        }

        /// Adds capability tags.
        #[must_use]
        pub fn with_tags<I, S>(mut self, tags: I) -> Self
        where
            I: IntoIterator<Item = S>,
            S: Into<String>,
        {
            $crate::tools::metadata::push_tags(
                &mut self.$($path).+.definition.metadata,
                $crate::tools::TAGS_METADATA_KEY,
                tags.into_iter().map(Into::into),
            );
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
            $crate::tools::metadata::push_tags(
                &mut self.$($path).+.definition.metadata,
                $crate::tools::HIDDEN_BY_TAGS_METADATA_KEY,
                tags.into_iter().map(Into::into),
            );
            self
        }

        /// Sets the tool kind (stored as `starweaver_tool_kind`). Kind
        /// `unapproved` also requires approval (`approval_required`).
        #[must_use]
        pub fn with_kind(mut self, kind: $crate::tools::ToolKind) -> Self {
            let metadata = &mut self.$($path).+.definition.metadata;
            metadata.insert(
                $crate::tools::TOOL_KIND_METADATA_KEY.to_string(),
                serde_json::Value::from(kind.as_str()),
            );
            if kind == $crate::tools::ToolKind::Unapproved {
                // Approval has one key; the kind implies it.
                metadata.insert(
                    $crate::tools::APPROVAL_REQUIRED_METADATA_KEY.to_string(),
                    serde_json::Value::Bool(true),
                );
            }
            self
        }

        /// Sets the provider strict-schema preference.
        #[must_use]
        pub fn with_strict_schema(mut self, strict: bool) -> Self {
            self.$($path).+.definition.strict = Some(strict);
            self
        }

        /// Requires model-order execution for calls of this tool.
        #[must_use]
        pub fn with_sequential(mut self, sequential: bool) -> Self {
            self.$($path).+.definition.sequential = Some(sequential);
            self
        }

        /// Publishes the JSON Schema of successful results.
        #[must_use]
        pub fn with_return_schema(mut self, schema: serde_json::Value) -> Self {
            self.$($path).+.definition.return_schema = Some(schema);
            self
        }

        /// Adds one metadata entry.
        #[must_use]
        pub fn with_metadata(mut self, key: impl Into<String>, value: serde_json::Value) -> Self {
            self.$($path).+.definition.metadata.insert(key.into(), value);
            self
        }

        /// Requires human approval before each call.
        #[must_use]
        pub fn with_approval_required(mut self, required: bool) -> Self {
            self.$($path).+.definition.metadata.insert(
                $crate::tools::APPROVAL_REQUIRED_METADATA_KEY.to_string(),
                serde_json::Value::Bool(required),
            );
            self
        }

        /// Declares the tool's dependency profile (Filtered or Strict).
        #[must_use]
        pub fn with_dependencies(mut self, requirements: $crate::tools::ToolDependencyRequirements) -> Self {
            self.$($path).+.definition.metadata.insert(
                $crate::tools::TOOL_DEPENDENCIES_METADATA_KEY.to_string(),
                requirements.to_metadata_value(),
            );
            self
        }

        /// Exposes the tool only when `available` returns true.
        #[must_use]
        pub fn with_availability<F>(mut self, available: F) -> Self
        where
            F: Fn(&$crate::context::AgentContext) -> bool + Send + Sync + 'static,
        {
            self.$($path).+.availability = Some(std::sync::Arc::new(available));
            self
        }

        /// Adjusts the definition per request; `None` hides the tool.
        #[must_use]
        pub fn with_prepare_definition<F>(mut self, prepare: F) -> Self
        where
            F: Fn(&$crate::context::AgentContext, $crate::model::ToolDefinition) -> Option<$crate::model::ToolDefinition>
                + Send
                + Sync
                + 'static,
        {
            self.$($path).+.prepare = Some(std::sync::Arc::new(prepare));
            self
        }

        /// Appends a raw-JSON argument validator; validators run in order
        /// and may normalise the arguments in place.
        #[must_use]
        pub fn with_argument_validator<F>(mut self, validator: F) -> Self
        where
            F: Fn(&$crate::tools::ToolContext, &mut serde_json::Value) -> Result<(), $crate::tools::ToolError>
                + Send
                + Sync
                + 'static,
        {
            self.$($path).+.validators.push(std::sync::Arc::new(validator));
            self
        }

        /// Preprocesses human input supplied with an approval.
        #[must_use]
        pub fn with_user_input_preprocessor<F, Fut>(mut self, preprocess: F) -> Self
        where
            F: Fn($crate::tools::ToolContext, serde_json::Value) -> Fut + Send + Sync + 'static,
            Fut: std::future::Future<
                    Output = Result<$crate::tools::ToolUserInputPreprocessResult, $crate::tools::ToolError>,
                > + Send
                + 'static,
        {
            self.$($path).+.preprocessor = Some(std::sync::Arc::new(move |ctx, input| {
                Box::pin(preprocess(ctx, input))
            }));
            self
        }
    };
}

pub(crate) use tool_builder_methods;

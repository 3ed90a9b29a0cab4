//! `LoadOptions`: what the host adds to a manifest when loading it.

use std::collections::BTreeMap;
use std::fmt;
use std::num::NonZeroU32;
use std::sync::Arc;

use starweaver_core::model::DynModel;
use starweaver_core::tools::DynTool;

use super::mcp::{mcp_toolset, McpBuilder};

/// Finds a code tool by name for `tools` and `deferred` toolsets; the catalog by default.
pub type ToolResolver = Arc<dyn Fn(&str) -> Option<DynTool> + Send + Sync>;

/// Host settings for [`super::load()`]: variable overrides, where code tools come from, a model
/// of the host's own and a step limit. The manifest's folder is not one of them: it is the
/// folder the manifest was checked in ([`crate::validate::Checked::base_dir`]), so the paths the
/// checker verified are the paths that load.
#[derive(Clone)]
pub struct LoadOptions {
    /// Values that replace the manifest's `vars` defaults (`--var key=value`).
    pub vars: BTreeMap<String, String>,
    /// Resolves tool names of `tools` and `deferred` toolsets.
    pub tools: ToolResolver,
    /// A model to use instead of the one `model.id` names (a host's own client, or a
    /// scripted model in tests); `model.id` is then not resolved.
    pub model: Option<DynModel>,
    /// The most model requests a run may make, over the manifest's `runtime.max_steps`
    /// (`starweaver run --max-steps`).
    pub max_steps: Option<NonZeroU32>,
    /// Builds the toolset of each `type: mcp` entry: [`mcp_toolset`] unless the host gives a
    /// builder of its own (a stand-in for a host that must start no server).
    pub mcp: McpBuilder,
}

impl fmt::Debug for LoadOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadOptions")
            .field("vars", &self.vars)
            .field(
                "model",
                &self.model.as_ref().map(|model| model.name().to_string()),
            )
            .field("max_steps", &self.max_steps)
            .finish_non_exhaustive()
    }
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            vars: BTreeMap::new(),
            tools: Arc::new(starweaver_core::catalog::get),
            model: None,
            max_steps: None,
            mcp: Arc::new(mcp_toolset),
        }
    }
}

impl LoadOptions {
    /// Options with the catalog as tool source, the manifest's variable defaults and model.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Overrides one variable.
    #[must_use]
    pub fn with_var(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.vars.insert(name.into(), value.into());
        self
    }

    /// Replaces all variable overrides.
    #[must_use]
    pub fn with_vars(mut self, vars: BTreeMap<String, String>) -> Self {
        self.vars = vars;
        self
    }

    /// Resolves code tools with `resolver` instead of the catalog.
    #[must_use]
    pub fn with_tools(
        mut self,
        resolver: impl Fn(&str) -> Option<DynTool> + Send + Sync + 'static,
    ) -> Self {
        self.tools = Arc::new(resolver);
        self
    }

    /// Uses `model` instead of resolving `model.id`.
    #[must_use]
    pub fn with_model(mut self, model: DynModel) -> Self {
        self.model = Some(model);
        self
    }

    /// Builds `type: mcp` toolsets with `builder` instead of [`mcp_toolset`]: `builder` gets
    /// each entry and the manifest's folder.
    #[must_use]
    pub fn with_mcp(
        mut self,
        builder: impl Fn(
                &crate::manifest::McpToolsetSpec,
                &std::path::Path,
            ) -> Result<starweaver_core::tools::DynToolset, super::LoadError>
            + Send
            + Sync
            + 'static,
    ) -> Self {
        self.mcp = Arc::new(builder);
        self
    }

    /// Limits a run to `steps` model requests, over the manifest's `runtime.max_steps`.
    #[must_use]
    pub const fn with_max_steps(mut self, steps: NonZeroU32) -> Self {
        self.max_steps = Some(steps);
        self
    }
}

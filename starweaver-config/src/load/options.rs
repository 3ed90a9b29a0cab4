//! `LoadOptions`: what the host adds to a manifest when loading it.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use starweaver_core::model::DynModel;
use starweaver_core::tools::DynTool;

/// Finds a code tool by name for `tools` and `deferred` toolsets; the catalog by default.
pub type ToolResolver = Arc<dyn Fn(&str) -> Option<DynTool> + Send + Sync>;

/// Host settings for [`super::load()`]: where the manifest lives, variable overrides, and where
/// code tools come from.
#[derive(Clone)]
pub struct LoadOptions {
    /// The manifest's folder: a local environment's `root` is relative to it.
    pub base_dir: PathBuf,
    /// Values that replace the manifest's `vars` defaults (`--var key=value`).
    pub vars: BTreeMap<String, String>,
    /// Resolves tool names of `tools` and `deferred` toolsets.
    pub tools: ToolResolver,
    /// A model to use instead of the one `model.id` names (a host's own client, or a
    /// scripted model in tests); `model.id` is then not resolved.
    pub model: Option<DynModel>,
}

impl fmt::Debug for LoadOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadOptions")
            .field("base_dir", &self.base_dir)
            .field("vars", &self.vars)
            .field(
                "model",
                &self.model.as_ref().map(|model| model.name().to_string()),
            )
            .finish_non_exhaustive()
    }
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            base_dir: PathBuf::from("."),
            vars: BTreeMap::new(),
            tools: Arc::new(starweaver_core::catalog::get),
            model: None,
        }
    }
}

impl LoadOptions {
    /// Options for a manifest in `base_dir`, with the catalog as tool source.
    #[must_use]
    pub fn new(base_dir: impl Into<PathBuf>) -> Self {
        Self::default().with_base_dir(base_dir)
    }

    /// Sets the manifest's folder.
    #[must_use]
    pub fn with_base_dir(mut self, base_dir: impl Into<PathBuf>) -> Self {
        self.base_dir = base_dir.into();
        self
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
}

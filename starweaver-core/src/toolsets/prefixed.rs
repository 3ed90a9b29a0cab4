//! Namespacing a toolset's tool names with a prefix.

use std::sync::Arc;

use super::wrapping::WrapsToolset;
use crate::tools::wrapped::WrappedTool;
use crate::tools::DynTool;
use crate::tools::{DynToolset, IntoDynToolset};

/// Exposes another toolset's tools as `<prefix>_<name>`, so several copies
/// (two proxies, two environments) can live in one registry.
#[derive(Clone)]
pub struct PrefixedToolset {
    prefix: String,
    inner: DynToolset,
}

impl std::fmt::Debug for PrefixedToolset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrefixedToolset")
            .field("prefix", &self.prefix)
            .field("inner", &self.inner.name())
            .finish()
    }
}

impl PrefixedToolset {
    /// Wraps `inner` under `prefix`.
    pub fn new(prefix: impl Into<String>, inner: impl IntoDynToolset) -> Self {
        Self {
            prefix: prefix.into(),
            inner: inner.to_dyn_toolset(),
        }
    }

    /// The prefix.
    #[must_use]
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The prefixed form of a tool name.
    #[must_use]
    pub fn prefixed_name(&self, name: &str) -> String {
        format!("{}_{name}", self.prefix)
    }
}

impl WrapsToolset for PrefixedToolset {
    fn inner(&self) -> &DynToolset {
        &self.inner
    }

    fn name(&self) -> &str {
        &self.prefix
    }

    fn get_tools(&self) -> Vec<DynTool> {
        self.inner
            .get_tools()
            .into_iter()
            .map(|tool| {
                let mut definition = tool.definition();
                definition.name = self.prefixed_name(&definition.name);
                Arc::new(WrappedTool::new(tool, definition)) as DynTool
            })
            .collect()
    }
}

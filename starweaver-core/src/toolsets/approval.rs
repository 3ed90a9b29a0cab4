//! Requiring human approval for another toolset's tools.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::wrapping::WrapsToolset;
use crate::tools::wrapped::WrappedTool;
use crate::tools::DynTool;
use crate::tools::{DynToolset, IntoDynToolset};

/// Puts another toolset's tools behind human approval: a call of a gated
/// tool makes the run wait until the host answers with
/// `AgentHitlUserInteraction::approved` or `denied`. Hosts use it to gate
/// tools they did not write, such as the filesystem bundle's writes:
///
/// ```
/// use std::sync::Arc;
/// use starweaver_core::bundles::filesystem_tools;
/// use starweaver_core::tools::{DynToolset, ToolRegistry};
/// use starweaver_core::toolsets::ApprovalRequiredToolset;
///
/// let gated: DynToolset = Arc::new(
///     ApprovalRequiredToolset::new(filesystem_tools()).with_tools(["write_file", "edit_file"]),
/// );
/// let registry = ToolRegistry::new().with_toolset(&gated);
/// assert!(registry.get("write_file").is_some());
/// ```
///
/// Without [`Self::with_tools`] every tool of the toolset is gated. Names
/// the toolset does not have are reported by [`Self::unknown_tools`].
#[derive(Clone)]
pub struct ApprovalRequiredToolset {
    inner: DynToolset,
    only: Option<BTreeSet<String>>,
}

impl std::fmt::Debug for ApprovalRequiredToolset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApprovalRequiredToolset")
            .field("inner", &self.inner.name())
            .field("only", &self.only)
            .finish()
    }
}

impl ApprovalRequiredToolset {
    /// Gates every tool of `inner`.
    pub fn new(inner: impl IntoDynToolset) -> Self {
        Self {
            inner: inner.to_dyn_toolset(),
            only: None,
        }
    }

    /// Gates only these tools (by their name in `inner`).
    #[must_use]
    pub fn with_tools<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.only = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Named tools that `inner` does not have (typos in a host's list).
    #[must_use]
    pub fn unknown_tools(&self) -> Vec<String> {
        let Some(only) = &self.only else {
            return Vec::new();
        };
        let known: BTreeSet<String> = self
            .inner
            .get_tools()
            .iter()
            .map(|tool| tool.name().to_string())
            .collect();
        only.difference(&known).cloned().collect()
    }

    fn gates(&self, name: &str) -> bool {
        self.only.as_ref().is_none_or(|only| only.contains(name))
    }
}

impl WrapsToolset for ApprovalRequiredToolset {
    fn inner(&self) -> &DynToolset {
        &self.inner
    }

    fn get_tools(&self) -> Vec<DynTool> {
        self.inner
            .get_tools()
            .into_iter()
            .map(|tool| {
                if !self.gates(tool.name()) {
                    return tool;
                }
                let definition = tool.definition();
                Arc::new(
                    WrappedTool::new(tool, definition)
                        .with_facts(|facts| facts.approval_required = true),
                ) as DynTool
            })
            .collect()
    }
}

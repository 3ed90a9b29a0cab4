//! The [`Toolset`] trait.

use std::sync::Arc;

use super::ToolsetLifecyclePolicy;
use super::{DynTool, ToolError, ToolInstruction, ToolListChanges};
use crate::context::AgentContext;
use crate::BoxFuture;

/// A shared, type-erased toolset.
pub type DynToolset = Arc<dyn Toolset>;

/// A group of tools registered together.
pub trait Toolset: Send + Sync {
    /// Toolset name (used in events and diagnostics).
    fn name(&self) -> &str;

    /// Stable namespace id, if the toolset has one (tool search loads
    /// whole namespaces).
    fn id(&self) -> Option<&str> {
        None
    }

    /// The tools, in registration order.
    fn get_tools(&self) -> Vec<DynTool>;

    /// Instructions for the system prompt.
    fn get_instructions(&self) -> Vec<ToolInstruction> {
        Vec::new()
    }

    /// Timeout default for the toolset's tools.
    fn timeout_ms(&self) -> Option<u64> {
        None
    }

    /// Retry default for the toolset's tools.
    fn max_retries(&self) -> Option<u32> {
        None
    }

    /// Whether the toolset can serve this context at all.
    fn is_available(&self, _context: &AgentContext) -> bool {
        true
    }

    /// When the runtime should call [`Self::enter_with_context`] and
    /// [`Self::exit_with_context`].
    fn lifecycle_policy(&self) -> ToolsetLifecyclePolicy {
        ToolsetLifecyclePolicy::default()
    }

    /// Toolsets this one wraps (a proxy's or a search's). The runtime runs
    /// their availability checks and lifecycle too; a wrapped toolset
    /// that fails hides only its own tools.
    fn wrapped_toolsets(&self) -> Vec<DynToolset> {
        Vec::new()
    }

    /// The signal this toolset raises when its tool list changes after setup (an MCP server
    /// that announces a new list); `None`, the default, for a list that never changes. Before
    /// each model request the runtime re-reads a toolset whose signal moved
    /// ([`Self::refresh_tools`], then [`Self::get_tools`]), so the model's next request
    /// carries the new list.
    fn tool_list_changes(&self) -> Option<ToolListChanges> {
        None
    }

    /// Re-reads the tool list from its source when [`Self::tool_list_changes`] says it is
    /// stale, so that [`Self::get_tools`] gives the new one. An error (a list that cannot be
    /// read, or offered under the toolset's rules) hides the toolset's tools for the run until
    /// its list changes again; the run reports it as `toolset_failed`.
    fn refresh_tools<'a>(&'a self) -> BoxFuture<'a, Result<(), ToolError>> {
        Box::pin(async { Ok(()) })
    }

    /// Sets up resources before the inventory is read.
    fn enter_with_context<'a>(
        &'a self,
        _context: &'a mut AgentContext,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        Box::pin(async { Ok(()) })
    }

    /// Releases resources before the run exits.
    fn exit_with_context<'a>(
        &'a self,
        _context: &'a mut AgentContext,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        Box::pin(async { Ok(()) })
    }
}

/// Anything that can be shared as a [`DynToolset`]: a toolset value
/// (cloned into an `Arc`), an `Arc<T>` of one, or a `DynToolset`.
pub trait IntoDynToolset {
    /// A shared handle to the toolset.
    fn to_dyn_toolset(&self) -> DynToolset;
}

impl<T: Toolset + 'static> IntoDynToolset for Arc<T> {
    fn to_dyn_toolset(&self) -> DynToolset {
        self.clone()
    }
}

impl<T: Toolset + Clone + 'static> IntoDynToolset for T {
    fn to_dyn_toolset(&self) -> DynToolset {
        Arc::new(self.clone())
    }
}

impl IntoDynToolset for DynToolset {
    fn to_dyn_toolset(&self) -> DynToolset {
        self.clone()
    }
}

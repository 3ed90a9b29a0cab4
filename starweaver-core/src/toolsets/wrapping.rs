//! Toolsets that wrap another toolset and change only its tools
//! (prefixed, approval-required): they say what they change, and one
//! blanket implementation passes everything else to the wrapped toolset.

use crate::context::AgentContext;
use crate::tools::{
    DynTool, DynToolset, ToolError, ToolInstruction, ToolListChanges, Toolset,
    ToolsetLifecyclePolicy,
};
use crate::BoxFuture;

/// A combinator over one wrapped toolset. Implementing it gives a
/// [`Toolset`] whose instructions, limits, availability and lifecycle are
/// the wrapped toolset's; a new `Toolset` method needs one line here, not
/// one per combinator.
pub(crate) trait WrapsToolset: Send + Sync {
    /// The wrapped toolset.
    fn inner(&self) -> &DynToolset;

    /// The toolset's name (the wrapped one's unless renamed).
    fn name(&self) -> &str {
        self.inner().name()
    }

    /// The wrapped toolset's tools, changed.
    fn get_tools(&self) -> Vec<DynTool>;
}

impl<T: WrapsToolset> Toolset for T {
    fn name(&self) -> &str {
        WrapsToolset::name(self)
    }

    fn id(&self) -> Option<&str> {
        self.inner().id()
    }

    fn get_tools(&self) -> Vec<DynTool> {
        WrapsToolset::get_tools(self)
    }

    fn get_instructions(&self) -> Vec<ToolInstruction> {
        self.inner().get_instructions()
    }

    fn timeout_ms(&self) -> Option<u64> {
        self.inner().timeout_ms()
    }

    fn max_retries(&self) -> Option<u32> {
        self.inner().max_retries()
    }

    fn is_available(&self, context: &AgentContext) -> bool {
        self.inner().is_available(context)
    }

    fn lifecycle_policy(&self) -> ToolsetLifecyclePolicy {
        self.inner().lifecycle_policy()
    }

    fn wrapped_toolsets(&self) -> Vec<DynToolset> {
        self.inner().wrapped_toolsets()
    }

    fn tool_list_changes(&self) -> Option<ToolListChanges> {
        self.inner().tool_list_changes()
    }

    fn refresh_tools<'a>(&'a self) -> BoxFuture<'a, Result<(), ToolError>> {
        self.inner().refresh_tools()
    }

    fn enter_with_context<'a>(
        &'a self,
        context: &'a mut AgentContext,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        self.inner().enter_with_context(context)
    }

    fn exit_with_context<'a>(
        &'a self,
        context: &'a mut AgentContext,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        self.inner().exit_with_context(context)
    }
}

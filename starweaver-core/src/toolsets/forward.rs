//! The `Toolset` methods a wrapping combinator passes to the toolset it
//! wraps unchanged, written once for every combinator that only changes
//! its tools (prefixed, approval-required).

/// Expands, inside an `impl Toolset for X` whose `X` has an `inner:
/// DynToolset` field, every method except `name` and `get_tools`.
macro_rules! forward_toolset_to_inner {
    () => {
        fn id(&self) -> Option<&str> {
            self.inner.id()
        }

        fn get_instructions(&self) -> Vec<$crate::tools::ToolInstruction> {
            self.inner.get_instructions()
        }

        fn timeout_ms(&self) -> Option<u64> {
            self.inner.timeout_ms()
        }

        fn max_retries(&self) -> Option<u32> {
            self.inner.max_retries()
        }

        fn is_available(&self, context: &$crate::context::AgentContext) -> bool {
            self.inner.is_available(context)
        }

        fn lifecycle_policy(&self) -> $crate::tools::ToolsetLifecyclePolicy {
            self.inner.lifecycle_policy()
        }

        fn wrapped_toolsets(&self) -> Vec<$crate::tools::DynToolset> {
            self.inner.wrapped_toolsets()
        }

        fn enter_with_context<'a>(
            &'a self,
            context: &'a mut $crate::context::AgentContext,
        ) -> $crate::BoxFuture<'a, Result<(), $crate::tools::ToolError>> {
            self.inner.enter_with_context(context)
        }

        fn exit_with_context<'a>(
            &'a self,
            context: &'a mut $crate::context::AgentContext,
        ) -> $crate::BoxFuture<'a, Result<(), $crate::tools::ToolError>> {
            self.inner.exit_with_context(context)
        }
    };
}

pub(crate) use forward_toolset_to_inner;

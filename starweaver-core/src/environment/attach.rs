//! How tools find the active environment: a named host capability.

use super::DynEnvironment;
use crate::context::AgentContext;
use crate::tools::ToolContext;

/// Host-capability name under which the active environment is attached.
/// First-party bundles request it through their Filtered profile.
pub const ENVIRONMENT_CAPABILITY: &str = "starweaver.environment";

/// Makes `provider` the active environment of runs with this context:
/// filesystem and shell bundles and skills resolve it from there.
/// Attaching again replaces the previous provider.
pub fn attach_environment(context: &mut AgentContext, provider: DynEnvironment) {
    context.insert_named_dependency(ENVIRONMENT_CAPABILITY, provider);
}

/// The environment attached to an agent context.
#[must_use]
pub fn attached_environment(context: &AgentContext) -> Option<DynEnvironment> {
    context
        .dependencies
        .get_named::<DynEnvironment>(ENVIRONMENT_CAPABILITY)
        .map(|provider| (*provider).clone())
}

/// The environment a tool call may use: the host capability granted to
/// the tool's profile, or one attached directly to the call's
/// dependencies.
#[must_use]
pub fn tool_environment(ctx: &ToolContext) -> Option<DynEnvironment> {
    let capabilities = ctx.dependency::<crate::context::HostCapabilities>();
    capabilities
        .and_then(|host| host.get::<DynEnvironment>(ENVIRONMENT_CAPABILITY))
        .or_else(|| ctx.named_dependency::<DynEnvironment>(ENVIRONMENT_CAPABILITY))
        .map(|provider| (*provider).clone())
}

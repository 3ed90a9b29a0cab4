//! How shell tools find the process-capable provider: a named host
//! capability, as for the environment.

use super::DynProcessShell;
use crate::context::AgentContext;
use crate::tools::ToolContext;

/// Host-capability name under which background processes are attached.
pub const PROCESS_SHELL_CAPABILITY: &str = "starweaver.process_shell";

/// Makes `provider` the one that runs background commands for runs with
/// this context (`shell_exec` with `background: true` and the handle
/// tools). Attaching again replaces the previous provider.
pub fn attach_process_shell(context: &mut AgentContext, provider: DynProcessShell) {
    context.insert_named_dependency(PROCESS_SHELL_CAPABILITY, provider);
}

/// The process-capable provider attached to an agent context.
#[must_use]
pub fn attached_process_shell(context: &AgentContext) -> Option<DynProcessShell> {
    context
        .dependencies
        .get_named::<DynProcessShell>(PROCESS_SHELL_CAPABILITY)
        .map(|provider| (*provider).clone())
}

/// The process-capable provider a tool call may use: the host capability
/// granted to the tool's profile, or one attached directly to the call's
/// dependencies.
#[must_use]
pub fn tool_process_shell(ctx: &ToolContext) -> Option<DynProcessShell> {
    let capabilities = ctx.dependency::<crate::context::HostCapabilities>();
    capabilities
        .and_then(|host| host.get::<DynProcessShell>(PROCESS_SHELL_CAPABILITY))
        .or_else(|| ctx.named_dependency::<DynProcessShell>(PROCESS_SHELL_CAPABILITY))
        .map(|provider| (*provider).clone())
}

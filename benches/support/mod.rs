//! What several benches share.

use std::sync::Arc;

use starweaver::environment::LocalEnvironmentProvider;
use starweaver::{attach_environment, AgentContext, AgentContextHandle, ToolContext};

/// A tool context with `provider` attached as the environment and the
/// process shell, as a host running the shell and filesystem tools sets
/// it up.
pub fn local_tool_context(provider: Arc<LocalEnvironmentProvider>) -> ToolContext {
    let mut agent_context = AgentContext::default();
    attach_environment(&mut agent_context, provider.clone());
    starweaver::attach_process_shell(&mut agent_context, provider);
    let mut dependencies = agent_context.dependencies.clone();
    dependencies.insert(AgentContextHandle::new(agent_context));
    ToolContext::default().with_dependencies(dependencies)
}

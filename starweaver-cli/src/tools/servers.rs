//! The toolsets that list their tools only once set up (MCP servers) entered for the listing
//! the way a run enters them, each within its own startup bound, and closed again before the
//! command ends, so what is listed is what a run would offer and no server outlives the
//! command.

use starweaver_config::load::LoadedAgent;
use starweaver_core::context::AgentContext;
use starweaver_core::tools::{ToolRegistry, ToolsetLifecycleStatus};

/// A toolset that could not be set up: the listing leaves its tools out and says why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Failed {
    /// The toolset's name.
    pub toolset: String,
    /// Why (for an MCP server: its exit status and the end of its stderr, or the bound that
    /// passed).
    pub error: String,
}

/// Runs `list` on the agent's registry and context after entering the toolsets that need it,
/// then exits them. Without such toolsets nothing starts and `list` sees the agent as loaded.
/// The servers run on a runtime of their own, on a thread of their own, so a caller inside an
/// async runtime can list too.
pub(super) fn entered<T: Send>(
    loaded: &LoadedAgent,
    list: impl FnOnce(&ToolRegistry, &AgentContext) -> T + Send,
) -> Result<(T, Vec<Failed>), String> {
    let registry = loaded.agent.tool_registry();
    if !registry.lists_tools_after_setup() {
        return Ok((list(registry, loaded.session.context()), Vec::new()));
    }
    let mut registry = registry.clone();
    let mut context = loaded.session.context().clone();
    std::thread::scope(|scope| {
        scope
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .enable_all()
                    .build()
                    .map_err(|error| format!("cannot start the servers' runtime: {error}"))?;
                Ok(runtime.block_on(async move {
                    let reports = registry.set_up_toolsets(&mut context).await;
                    let listed = list(&registry, &context);
                    registry.exit_toolsets(&mut context).await;
                    let failed = reports
                        .into_iter()
                        // A toolset unavailable by its own rule is hidden as in a run, not a
                        // failure.
                        .filter(|report| report.status == ToolsetLifecycleStatus::Failed)
                        .map(|report| Failed {
                            error: report.error.unwrap_or_default(),
                            toolset: report.toolset,
                        })
                        .collect();
                    (listed, failed)
                }))
            })
            .join()
            .unwrap_or_else(|_| Err("starting the toolsets failed unexpectedly".to_string()))
    })
}

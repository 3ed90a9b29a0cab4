//! [`McpToolset`]: a server's tools as a core toolset, the server
//! started when the toolset enters and stopped when it exits.

use std::sync::Arc;

use starweaver_core::context::AgentContext;
use starweaver_core::tools::{
    DynTool, ToolError, ToolListChanges, Toolset, ToolsetLifecyclePolicy,
};
use starweaver_core::BoxFuture;

use super::session::Session;
use super::tool::McpTool;
use super::{McpError, McpServerSpec, McpToolInfo};

/// An MCP server's tools as a toolset.
///
/// Entering the toolset (the runtime does it before a run reads its
/// tools) starts the server, runs the `initialize` handshake and lists
/// the tools, all within the spec's startup bound; a failure there leaves
/// the toolset unavailable, under the run's `unavailable_tools` policy.
/// Exiting it stops the server and its process group, and so does
/// dropping the last clone. Clones share one server. A server that failed
/// past its restarts hides its tools for the rest of the run; the next
/// entry tries it again.
#[derive(Clone)]
pub struct McpToolset {
    session: Arc<Session>,
}

impl std::fmt::Debug for McpToolset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpToolset")
            .field("spec", self.session.spec())
            .finish_non_exhaustive()
    }
}

impl McpToolset {
    /// A toolset for the server `spec` describes; nothing starts until
    /// it enters (or [`Self::describe`] runs).
    #[must_use]
    pub fn new(spec: McpServerSpec) -> Self {
        Self {
            session: Arc::new(Session::new(spec)),
        }
    }

    /// The spec it was made from.
    #[must_use]
    pub fn spec(&self) -> &McpServerSpec {
        self.session.spec()
    }

    /// Starts the server, once, within the startup bound, and lists its
    /// tools: what entering the toolset does. A running server is kept.
    ///
    /// # Errors
    /// How starting failed: [`McpError::Exited`] with the exit status and
    /// stderr tail, [`McpError::StartupTimeout`], a name collision, ...
    pub async fn start(&self) -> Result<(), McpError> {
        self.session.start().await
    }

    /// The offered tools with their mapped and server names, hints and
    /// approvals, starting the server when it is not running (what
    /// `starweaver tools` shows). Call [`Self::stop`] when done.
    ///
    /// # Errors
    /// When the server cannot be started or listed.
    pub async fn describe(&self) -> Result<Vec<McpToolInfo>, McpError> {
        self.session.describe().await
    }

    /// Stops the server and its process group; the next entry starts it
    /// again.
    pub async fn stop(&self) {
        self.session.stop().await;
    }
}

impl Toolset for McpToolset {
    fn name(&self) -> &str {
        &self.session.spec().name
    }

    fn id(&self) -> Option<&str> {
        Some(&self.session.spec().name)
    }

    /// The tools as last listed; empty before the toolset entered.
    fn get_tools(&self) -> Vec<DynTool> {
        self.session
            .snapshot()
            .tools
            .iter()
            .map(|offered| Arc::new(McpTool::new(&self.session, Arc::clone(offered))) as DynTool)
            .collect()
    }

    /// Raised when the server announces a new tool list.
    fn tool_list_changes(&self) -> Option<ToolListChanges> {
        Some(self.session.changes().clone())
    }

    /// Lists the server's tools again after it announced a change, under the same rules as
    /// the first listing (the `tools:` choice, name mapping and collisions, bounds).
    fn refresh_tools<'a>(&'a self) -> BoxFuture<'a, Result<(), ToolError>> {
        Box::pin(async move {
            self.session
                .refresh()
                .await
                .map_err(|error| ToolError::user_error(error.to_string()))
        })
    }

    fn lifecycle_policy(&self) -> ToolsetLifecyclePolicy {
        ToolsetLifecyclePolicy::managed()
    }

    fn enter_with_context<'a>(
        &'a self,
        _context: &'a mut AgentContext,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        Box::pin(async move {
            self.session
                .start()
                .await
                .map_err(|error| ToolError::user_error(error.to_string()))
        })
    }

    fn exit_with_context<'a>(
        &'a self,
        _context: &'a mut AgentContext,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        Box::pin(async move {
            self.session.stop().await;
            Ok(())
        })
    }
}

//! [`McpServer`]: a registry and its context made ready to serve, and the transports that
//! serve it.

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::ServiceExt as _;
use starweaver_core::context::{AgentContext, AgentContextHandle};
use starweaver_core::tools::{ToolRegistry, ToolsetLifecycleReport};

use super::handler::Session;
use super::http::HttpListener;
use super::shared::Shared;
use super::{ServeError, ServeOptions};

/// What serving starts with: what is served, what is not and why, and how the toolsets'
/// setup went. The command line writes it to standard error.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct StartupReport {
    /// The served tools' names, the agent tool last.
    pub served: Vec<String>,
    /// Tools left out because they are deferred.
    pub deferred: Vec<String>,
    /// Each toolset's setup (a failed or unavailable one hides its tools).
    pub lifecycle: Vec<ToolsetLifecycleReport>,
}

/// A manifest's tools ready to serve over MCP: the toolsets are set up (a server-backed
/// toolset has started its server and listed its tools), and every call goes through the
/// registry as an agent run's would.
///
/// One server serves one stdio session, or any number of HTTP sessions sharing its context;
/// [`McpServer::stop`] tears the toolsets down.
pub struct McpServer {
    shared: Arc<Shared>,
    report: StartupReport,
    /// Reads changed tool lists again and tells the clients; aborted when serving stops.
    follower: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("report", &self.report)
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// Sets up `registry`'s toolsets in `context` (the context an agent session of the
    /// manifest would run in: its environment, process shell and grants), as a run does
    /// before its first request, and reads their tools again.
    ///
    /// # Errors
    /// [`ServeError::NameCollision`] when the agent tool's name is a served tool's (the
    /// toolsets are torn down again first).
    pub async fn start(
        mut registry: ToolRegistry,
        mut context: AgentContext,
        options: ServeOptions,
    ) -> Result<Self, ServeError> {
        let lifecycle = registry.set_up_toolsets(&mut context).await;
        let shared = Arc::new(Shared::new(
            registry,
            AgentContextHandle::new(context),
            options,
        ));
        let listing = shared.listing();
        let mut served: Vec<String> = listing
            .tools
            .iter()
            .map(|tool| tool.name.to_string())
            .collect();
        if let Some(agent) = &shared.options.agent {
            if served.iter().any(|name| name == agent.name()) {
                let name = agent.name().to_string();
                stop_toolsets(&shared).await;
                return Err(ServeError::NameCollision { name });
            }
            served.push(agent.name().to_string());
        }
        let follower = tokio::spawn({
            let shared = Arc::clone(&shared);
            async move { shared.follow_list_changes().await }
        });
        Ok(Self {
            shared,
            follower,
            report: StartupReport {
                served,
                deferred: listing.deferred,
                lifecycle,
            },
        })
    }

    /// What is served, what is not, and how setup went.
    #[must_use]
    pub fn report(&self) -> &StartupReport {
        &self.report
    }

    /// Serves one session over this process's standard input and output until the client
    /// closes standard input (or the session fails). Nothing else may write to standard
    /// output meanwhile: it carries the protocol.
    ///
    /// # Errors
    /// [`ServeError::Session`] when the handshake fails or the session's task dies.
    pub async fn serve_stdio(&self) -> Result<(), ServeError> {
        let running = Session::new(self.shared.clone())
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|error| ServeError::Session(error.to_string()))?;
        running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|error| ServeError::Session(error.to_string()))
    }

    /// Binds the streamable HTTP endpoint at `addr` (`http://ADDR/mcp`); serve it with
    /// [`HttpListener::run`]. Only loopback addresses unless `allow_remote`.
    ///
    /// # Errors
    /// [`ServeError::NotLoopback`] and [`ServeError::Bind`].
    pub async fn bind_http(
        &self,
        addr: SocketAddr,
        allow_remote: bool,
    ) -> Result<HttpListener, ServeError> {
        HttpListener::bind(self.shared.clone(), addr, allow_remote).await
    }

    /// Tears the toolsets down (a server-backed toolset stops its server), as a run does when
    /// it ends.
    pub async fn stop(self) -> Vec<ToolsetLifecycleReport> {
        self.follower.abort();
        stop_toolsets(&self.shared).await
    }
}

/// Exits the toolsets with the shared context taken out of its handle.
async fn stop_toolsets(shared: &Shared) -> Vec<ToolsetLifecycleReport> {
    let mut context = shared.context.replace(AgentContext::default());
    let reports = shared.registry().exit_toolsets(&mut context).await;
    shared.context.replace(context);
    reports
}

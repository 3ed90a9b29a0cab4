//! Streamable HTTP: the SDK's service behind a plain HTTP/1.1 listener, answering at `/mcp`
//! only.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::handler::Session;
use super::shared::Shared;
use super::ServeError;

/// The path clients post to.
pub const MCP_PATH: &str = "/mcp";

/// A bound HTTP listener, not yet serving: its URL can be shown before the first client
/// connects.
pub struct HttpListener {
    listener: TcpListener,
    addr: SocketAddr,
    service: StreamableHttpService<Session, LocalSessionManager>,
    stop: CancellationToken,
}

impl std::fmt::Debug for HttpListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpListener")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

/// Whether `addr` may be served: a loopback address, or any with `allow_remote` (anyone who
/// reaches the port can call every served tool). A host checks it before setting anything up,
/// so a refused address starts no toolset and no server.
///
/// # Errors
/// [`ServeError::NotLoopback`].
pub fn check_http_address(addr: SocketAddr, allow_remote: bool) -> Result<(), ServeError> {
    if addr.ip().is_loopback() || allow_remote {
        Ok(())
    } else {
        Err(ServeError::NotLoopback { addr })
    }
}

impl HttpListener {
    /// Binds `addr`. Only loopback addresses unless `allow_remote`: anyone who reaches the
    /// port can call every served tool. A remote listener also accepts any `Host` header,
    /// since its clients name it by a name this process cannot know.
    pub(crate) async fn bind(
        shared: Arc<Shared>,
        addr: SocketAddr,
        allow_remote: bool,
    ) -> Result<Self, ServeError> {
        check_http_address(addr, allow_remote)?;
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Bind { addr, source })?;
        let bound = listener
            .local_addr()
            .map_err(|source| ServeError::Bind { addr, source })?;
        let stop = CancellationToken::new();
        let mut config = StreamableHttpServerConfig::default()
            .with_cancellation_token(stop.child_token())
            .with_allowed_hosts(allowed_hosts(bound));
        if allow_remote {
            config = config.disable_allowed_hosts();
        }
        let service = StreamableHttpService::new(
            move || Ok(Session::new(shared.clone())),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        Ok(Self {
            listener,
            addr: bound,
            service,
            stop,
        })
    }

    /// The address it listens on (with the port the system chose for port 0).
    #[must_use]
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The endpoint clients connect to, `http://ADDR/mcp`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}{MCP_PATH}", self.addr)
    }

    /// Serves until `shutdown` is cancelled, each connection on its own task; its sessions
    /// end with it.
    pub async fn run(self, shutdown: CancellationToken) {
        loop {
            let accepted = tokio::select! {
                () = shutdown.cancelled() => break,
                accepted = self.listener.accept() => accepted,
            };
            // A failed accept (a client that went away, too many open files) ends that
            // connection, not the server.
            let Ok((stream, _)) = accepted else { continue };
            let service = self.service.clone();
            let stop = self.stop.clone();
            tokio::spawn(async move {
                let handler = hyper::service::service_fn(move |request| {
                    let service = service.clone();
                    async move { Ok::<_, Infallible>(route(&service, request).await) }
                });
                let connection = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), handler);
                tokio::select! {
                    _ = connection => {}
                    () = stop.cancelled() => {}
                }
            });
        }
        self.stop.cancel();
    }
}

/// `/mcp` to the SDK's service, anything else 404.
async fn route(
    service: &StreamableHttpService<Session, LocalSessionManager>,
    request: Request<Incoming>,
) -> Response<BoxBody<Bytes, Infallible>> {
    if request.uri().path() == MCP_PATH {
        return service.handle(request).await;
    }
    let mut response = Response::new(
        Full::new(Bytes::from_static(b"not found: the MCP endpoint is /mcp\n")).boxed(),
    );
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

/// The `Host` values a loopback listener accepts: the loopback names, with and without the
/// bound port.
fn allowed_hosts(addr: SocketAddr) -> Vec<String> {
    let port = addr.port();
    let mut hosts = Vec::new();
    for host in ["localhost", "127.0.0.1", "[::1]", "::1"] {
        hosts.push(host.to_string());
        hosts.push(format!("{host}:{port}"));
    }
    hosts
}

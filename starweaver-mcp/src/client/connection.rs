//! One live connection to a server: the started process (for stdio), the
//! `initialize` handshake, tool listing and calls raced against the
//! server's death, the call bound and the message bound.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotification,
    CancelledNotificationParam, ClientCapabilities, ClientConfig, ClientRequest, Implementation,
    JsonObject, ProgressNotificationParam, RequestId, ServerResult, Tool as ServerTool,
};
use rmcp::service::{Peer, PeerRequestOptions, RunningService, ServiceError};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use starweaver_core::tools::ToolListChanges;

use super::bounded::BoundedLines;
use super::process::{self, Launch, ServerProcess};
use super::tap::{ProgressRoutes, Tap};
use super::{McpError, McpServerSpec, McpTransport};

/// How long a transport that closed waits for its process's exit status,
/// so the error can say how the server ended.
const EXIT_WAIT: Duration = Duration::from_secs(1);

/// The client's side of the handshake. What the server sends on its own is read on the
/// transport ([`Tap`]), in order: progress and tool list changes; the rest is ignored.
#[derive(Clone)]
struct Handler;

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("starweaver", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// A connected, initialized server.
pub(crate) struct Connection {
    toolset: String,
    service: RunningService<RoleClient, Handler>,
    process: Option<ServerProcess>,
    routes: Arc<ProgressRoutes>,
    oversized: Arc<AtomicBool>,
    max_message_bytes: usize,
}

/// How a call failed.
pub(crate) enum CallFailure {
    /// The server answered with a JSON-RPC error: its text.
    Server(String),
    /// The call passed its bound (and was cancelled on the server).
    Timeout,
    /// The connection is gone or broken.
    Connection(McpError),
}

impl Connection {
    /// Starts (for stdio) and initializes the server within `timeout`; its tool list
    /// changes are marked on `changes`. A server whose process ends meanwhile is
    /// [`McpError::Exited`].
    pub(crate) async fn open(
        spec: &McpServerSpec,
        timeout: Duration,
        changes: &ToolListChanges,
    ) -> Result<Self, McpError> {
        let oversized = Arc::new(AtomicBool::new(false));
        let routes = Arc::new(ProgressRoutes::default());
        let handler = Handler;
        let protocol = |message: String, stderr: String| McpError::Protocol {
            toolset: spec.name.clone(),
            message,
            stderr,
        };
        let timed_out = |stderr: String| McpError::StartupTimeout {
            toolset: spec.name.clone(),
            timeout,
            stderr,
        };
        let (service, process) = match &spec.transport {
            McpTransport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let started = process::start(&Launch {
                    toolset: &spec.name,
                    command,
                    args,
                    env,
                    cwd,
                    sandbox: spec.sandbox.as_ref(),
                })
                .await?;
                let read =
                    BoundedLines::new(started.stdout, spec.max_message_bytes, oversized.clone());
                let transport = AsyncRwTransport::new_client(read, started.stdin)
                    .with_max_line_length(spec.max_message_bytes);
                let process = started.process;
                let handshake = tokio::time::timeout(
                    timeout,
                    handler.serve(Tap::new(transport, Arc::clone(&routes), changes.clone())),
                );
                let service = tokio::select! {
                    served = handshake => match served {
                        Ok(Ok(service)) => service,
                        Ok(Err(error)) => {
                            return Err(ended(&process, protocol(format!("initialize failed: {error}"), process.stderr())).await)
                        }
                        Err(_) => return Err(timed_out(process.stderr())),
                    },
                    status = process.ended() => return Err(process.exited_error(status)),
                };
                (service, Some(process))
            }
            McpTransport::Http { url, headers } => {
                let transport = http_transport(spec, url, headers)?;
                match tokio::time::timeout(
                    timeout,
                    handler.serve(Tap::new(transport, Arc::clone(&routes), changes.clone())),
                )
                .await
                {
                    Ok(Ok(service)) => (service, None),
                    Ok(Err(error)) => {
                        return Err(protocol(
                            format!("initialize failed: {error}"),
                            String::new(),
                        ))
                    }
                    Err(_) => return Err(timed_out(String::new())),
                }
            }
            McpTransport::Stream(connector) => {
                let stream = connector.connect().await.map_err(|error| {
                    protocol(format!("could not connect: {error}"), String::new())
                })?;
                let read =
                    BoundedLines::new(stream.read, spec.max_message_bytes, oversized.clone());
                let transport = AsyncRwTransport::new_client(read, stream.write)
                    .with_max_line_length(spec.max_message_bytes);
                match tokio::time::timeout(
                    timeout,
                    handler.serve(Tap::new(transport, Arc::clone(&routes), changes.clone())),
                )
                .await
                {
                    Ok(Ok(service)) => (service, None),
                    Ok(Err(error)) => {
                        return Err(protocol(
                            format!("initialize failed: {error}"),
                            String::new(),
                        ))
                    }
                    Err(_) => return Err(timed_out(String::new())),
                }
            }
        };
        Ok(Self {
            toolset: spec.name.clone(),
            service,
            process,
            routes,
            oversized,
            max_message_bytes: spec.max_message_bytes,
        })
    }

    /// Every tool the server lists (all pages), within `timeout`; past it,
    /// the error names `bound`, the startup bound it is part of.
    pub(crate) async fn list_tools(
        &self,
        timeout: Duration,
        bound: Duration,
    ) -> Result<Vec<ServerTool>, McpError> {
        let listing = self.service.peer().list_all_tools();
        let outcome = match &self.process {
            Some(process) => tokio::select! {
                listed = tokio::time::timeout(timeout, listing) => listed,
                status = process.ended() => return Err(process.exited_error(status)),
            },
            None => tokio::time::timeout(timeout, listing).await,
        };
        match outcome {
            Ok(Ok(tools)) => Ok(tools),
            Ok(Err(error)) => Err(self.broken(&error, "tools/list").await),
            Err(_) => Err(McpError::StartupTimeout {
                toolset: self.toolset.clone(),
                timeout: bound,
                stderr: self.stderr(),
            }),
        }
    }

    /// Calls the server's tool `name`, bounded by `timeout`: a call past
    /// it is dropped, which sends `notifications/cancelled`. A server
    /// that dies meanwhile fails the call at once. The request carries a
    /// progress token; each progress notification the server sends for it
    /// goes to `on_progress` as it arrives, all of them before this returns.
    pub(crate) async fn call(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        timeout: Duration,
        mut on_progress: impl FnMut(ProgressNotificationParam),
    ) -> Result<CallToolResult, CallFailure> {
        let mut params = CallToolRequestParams::new(name.to_string());
        params.arguments = arguments;
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let peer = self.service.peer();
        let handle = match peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(handle) => handle,
            Err(error) => {
                return Err(CallFailure::Connection(
                    self.broken(&error, "tools/call").await,
                ))
            }
        };
        let mut claim = self.routes.claim(handle.progress_token.clone());
        let mut guard = CancelOnDrop {
            peer: peer.clone(),
            id: Some(handle.id.clone()),
        };
        let answer = std::pin::pin!(tokio::time::timeout(timeout, handle.await_response()));
        let ended = async {
            match &self.process {
                Some(process) => process.exited_error(process.ended().await),
                None => std::future::pending().await,
            }
        };
        let mut ended = std::pin::pin!(ended);
        let mut answer = answer;
        let outcome = loop {
            tokio::select! {
                biased;
                Some(params) = claim.receiver.recv() => on_progress(params),
                answered = &mut answer => break answered,
                error = &mut ended => {
                    // Nobody is left to tell.
                    guard.disarm();
                    return Err(CallFailure::Connection(error));
                }
            }
        };
        // Notifications that came before the answer were routed before it.
        while let Ok(params) = claim.receiver.try_recv() {
            on_progress(params);
        }
        if outcome.is_ok() {
            guard.disarm();
        }
        match outcome {
            Ok(Ok(ServerResult::CallToolResult(result))) => Ok(result),
            Ok(Ok(_)) => Err(CallFailure::Server(
                "the server answered `tools/call` with something other than a tool result"
                    .to_string(),
            )),
            Ok(Err(ServiceError::McpError(error))) => Err(CallFailure::Server(format!(
                "the server answered error {}: {}",
                error.code.0, error.message
            ))),
            Ok(Err(error)) => Err(CallFailure::Connection(
                self.broken(&error, "tools/call").await,
            )),
            Err(_) => Err(CallFailure::Timeout),
        }
    }

    /// The error for a request that failed on the connection: the
    /// process's end when it ended, the message bound when it tripped.
    async fn broken(&self, error: &ServiceError, request: &str) -> McpError {
        if self.oversized.load(Ordering::Relaxed) {
            return McpError::Protocol {
                toolset: self.toolset.clone(),
                message: format!(
                    "the server sent a message larger than {} bytes; the connection was closed",
                    self.max_message_bytes
                ),
                stderr: String::new(),
            };
        }
        let fallback = McpError::Protocol {
            toolset: self.toolset.clone(),
            message: format!("{request} failed: {error}"),
            stderr: self.stderr(),
        };
        match &self.process {
            Some(process) => ended(process, fallback).await,
            None => fallback,
        }
    }

    /// Whether the connection can no longer serve calls.
    pub(crate) fn is_dead(&self) -> bool {
        self.oversized.load(Ordering::Relaxed)
            || self.service.is_closed()
            || self.service.peer().is_transport_closed()
            || self
                .process
                .as_ref()
                .is_some_and(|process| process.exit_status().is_some())
    }

    /// The end of the server's stderr (empty without a process).
    pub(crate) fn stderr(&self) -> String {
        self.process
            .as_ref()
            .map(ServerProcess::stderr)
            .unwrap_or_default()
    }

    /// Closes the connection and stops the server's process group.
    pub(crate) async fn close(mut self) {
        let _ = self.service.close_with_timeout(EXIT_WAIT).await;
        if let Some(process) = &self.process {
            process.stop().await;
        }
    }
}

/// Tells the server a call was abandoned (past its bound, or dropped by its caller) unless
/// disarmed once the call is answered.
struct CancelOnDrop {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl CancelOnDrop {
    fn disarm(&mut self) {
        self.id = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        let params = CancelledNotificationParam::new(
            Some(id),
            Some("the call was abandoned by the client".to_string()),
        );
        runtime.spawn(async move {
            // A server that is gone needs no telling.
            let _ = peer
                .send_notification(CancelledNotification::new(params).into())
                .await;
        });
    }
}

/// `fallback`, or how the process ended when it ends within a moment.
async fn ended(process: &ServerProcess, fallback: McpError) -> McpError {
    match tokio::time::timeout(EXIT_WAIT, process.ended()).await {
        Ok(status) => process.exited_error(status),
        Err(_) => fallback,
    }
}

/// The streamable HTTP transport for `url`, with `headers` on every
/// request and the message bound on every answer.
fn http_transport(
    spec: &McpServerSpec,
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<StreamableHttpClientTransport<reqwest::Client>, McpError> {
    let invalid = |message: String| McpError::Invalid {
        toolset: spec.name.clone(),
        message,
    };
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(invalid(format!(
            "`{url}` is not an http(s) URL; give the server's streamable HTTP endpoint"
        )));
    }
    let mut custom = HashMap::new();
    for (name, value) in headers {
        let header = reqwest::header::HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| invalid(format!("`{name}` is not a valid HTTP header name")))?;
        let mut value = reqwest::header::HeaderValue::from_str(value)
            .map_err(|_| invalid(format!("the value of header `{name}` is not valid in HTTP")))?;
        value.set_sensitive(true);
        custom.insert(header, value);
    }
    // The model clients install the same provider; whichever comes first
    // wins and the other is a no-op.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .build()
        .map_err(|error| invalid(format!("the HTTP client cannot be built: {error}")))?;
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_string())
        .custom_headers(custom)
        .max_json_response_size(spec.max_message_bytes)
        .max_sse_event_size(spec.max_message_bytes)
        .reinit_on_expired_session(true);
    Ok(StreamableHttpClientTransport::with_client(client, config))
}

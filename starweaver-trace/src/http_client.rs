//! The OTLP exporter's HTTP client: the workspace's `reqwest`, driven on a small runtime of
//! its own, since the batch exporter sends from a thread of its own, outside any runtime.

use bytes::Bytes;
use http::{Request, Response};
use opentelemetry_http::{HttpClient, HttpError};

/// How long one export may take before it is given up.
const EXPORT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The most bytes of a collector's answer read (its body is only an acknowledgement).
const MAX_RESPONSE_BYTES: usize = 64 * 1024;

/// A `reqwest` client with the runtime it runs on.
pub(crate) struct ReqwestHttpClient {
    client: reqwest::Client,
    runtime: Option<tokio::runtime::Runtime>,
}

impl std::fmt::Debug for ReqwestHttpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReqwestHttpClient")
    }
}

impl ReqwestHttpClient {
    /// A client on a one-thread runtime.
    pub(crate) fn new() -> Result<Self, String> {
        // The process-wide TLS backend: ring, as the model clients use; one installed already
        // stays.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("starweaver-trace")
            .enable_all()
            .build()
            .map_err(|error| error.to_string())?;
        let client = reqwest::Client::builder()
            .timeout(EXPORT_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("starweaver/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| error.to_string())?;
        Ok(Self {
            client,
            runtime: Some(runtime),
        })
    }
}

impl Drop for ReqwestHttpClient {
    fn drop(&mut self) {
        // Dropped from async code too: a runtime must not block there.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

#[async_trait::async_trait]
impl HttpClient for ReqwestHttpClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let runtime = self
            .runtime
            .as_ref()
            .ok_or("the trace exporter's runtime is shut down")?;
        let (parts, body) = request.into_parts();
        let mut outgoing = self
            .client
            .request(parts.method, parts.uri.to_string())
            .body(body);
        for (name, value) in &parts.headers {
            outgoing = outgoing.header(name, value);
        }
        let answer = runtime
            .spawn(async move {
                let response = outgoing.send().await?;
                let status = response.status();
                let headers = response.headers().clone();
                let mut body = Vec::new();
                let mut response = response;
                while let Some(chunk) = response.chunk().await? {
                    let room = MAX_RESPONSE_BYTES.saturating_sub(body.len());
                    body.extend_from_slice(&chunk[..chunk.len().min(room)]);
                    if body.len() >= MAX_RESPONSE_BYTES {
                        break;
                    }
                }
                Ok::<_, reqwest::Error>((status, headers, body))
            })
            .await??;
        let (status, headers, body) = answer;
        let mut response = Response::builder().status(status.as_u16());
        for (name, value) in &headers {
            response = response.header(name.as_str(), value.as_bytes());
        }
        Ok(response.body(Bytes::from(body))?)
    }
}

//! One HTTP client per model: sends a JSON body, retries what may be retried, reads answers
//! within a size bound, and turns every failure into a [`ModelError`] that never holds the key.

use std::sync::{Arc, OnceLock};
use std::time::{Instant, SystemTime};

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE, RETRY_AFTER};

use super::retry::{is_retryable_status, parse_retry_after};
use super::HttpOptions;
use starweaver_core::model::ModelError;

/// Largest non-streamed answer read (a whole answer with tool calls is far smaller).
pub(crate) const MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;
/// Largest error body read for its message.
const MAX_ERROR_BYTES: usize = 64 * 1024;
/// Longest provider message put in an error.
const MAX_MESSAGE_CHARS: usize = 600;

/// A POST of a JSON body to one URL with its headers, the key in `secret_header`.
pub(crate) struct JsonPost<'a> {
    /// Model name, for errors.
    pub model: &'a str,
    /// Full URL.
    pub url: &'a str,
    /// Header carrying the key and its value (`authorization: Bearer KEY`, `x-api-key: KEY`).
    pub secret_header: (HeaderName, String),
    /// Other headers.
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// The serialized body.
    pub body: Vec<u8>,
    /// The key, so it is scrubbed from anything a server echoes.
    pub key: &'a str,
}

/// A lazily built reqwest client (building one loads the system's roots, which `check` and
/// `tools` never need) with the options it was made with.
#[derive(Debug)]
pub(crate) struct HttpClient {
    options: HttpOptions,
    client: OnceLock<Result<reqwest::Client, String>>,
}

impl HttpClient {
    pub(crate) fn new(options: HttpOptions) -> Arc<Self> {
        Arc::new(Self {
            options,
            client: OnceLock::new(),
        })
    }

    pub(crate) fn options(&self) -> &HttpOptions {
        &self.options
    }

    fn client(&self, model: &str) -> Result<&reqwest::Client, ModelError> {
        self.client
            .get_or_init(|| {
                // The process-wide TLS backend: ring. An application that installed its own
                // keeps it (the call fails harmlessly).
                let _ = rustls::crypto::ring::default_provider().install_default();
                reqwest::Client::builder()
                    // A redirect would take the key (in a header a client does not drop) to
                    // another address, past the host policy: it is reported instead.
                    .redirect(reqwest::redirect::Policy::none())
                    .connect_timeout(self.options.connect_timeout)
                    .timeout(self.options.timeout)
                    .user_agent(concat!("starweaver/", env!("CARGO_PKG_VERSION")))
                    .build()
                    .map_err(|error| chain(&error))
            })
            .as_ref()
            .map_err(|message| {
                request_error(model, format!("cannot start an HTTP client: {message}"))
            })
    }

    /// Sends `post`, retrying rate limits, overloads and refused connections within the
    /// policy, and returns the first successful answer (its body unread).
    pub(crate) async fn send(&self, post: JsonPost<'_>) -> Result<reqwest::Response, ModelError> {
        let url = reqwest::Url::parse(post.url).map_err(|error| {
            request_error(
                post.model,
                format!(
                    "`{}` is not a URL ({error}); fix `model.base_url`",
                    post.url
                ),
            )
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(request_error(
                post.model,
                format!(
                    "`{}` is not an http or https URL; fix `model.base_url`",
                    post.url
                ),
            ));
        }
        let host = url.host_str().unwrap_or_default();
        if !self.options.hosts.allows(host) {
            return Err(request_error(
                post.model,
                format!(
                    "host `{host}` is not allowed (allowed: {}; the host policy comes from {} or the client's HttpOptions); point `model.base_url` at an allowed host",
                    self.options.hosts.describe(),
                    super::MODEL_HOSTS_VARIABLE
                ),
            ));
        }
        let client = self.client(post.model)?;
        let mut headers = HeaderMap::with_capacity(post.headers.len() + 2);
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let mut secret = HeaderValue::from_str(&post.secret_header.1).map_err(|_| {
            request_error(
                post.model,
                "the API key holds characters a header cannot carry; check the key variable"
                    .to_string(),
            )
        })?;
        secret.set_sensitive(true);
        headers.insert(post.secret_header.0.clone(), secret);
        for (name, value) in &post.headers {
            headers.insert(name.clone(), value.clone());
        }
        let retry = &self.options.retry;
        let started = Instant::now();
        let mut attempt: u32 = 0;
        loop {
            let sent = client
                .post(url.clone())
                .headers(headers.clone())
                .body(post.body.clone())
                .send()
                .await;
            let (wait, status) = match sent {
                Ok(response) if response.status().is_success() => return Ok(response),
                Ok(response) if response.status().is_redirection() => {
                    return Err(redirected(post.model, &response, post.key));
                }
                Ok(response) => {
                    let status = response.status().as_u16();
                    let header = |name: &str| {
                        response
                            .headers()
                            .get(name)
                            .and_then(|value| value.to_str().ok())
                            .map(str::to_string)
                    };
                    let retry_after = parse_retry_after(
                        header("retry-after-ms").as_deref(),
                        header(RETRY_AFTER.as_str()).as_deref(),
                        SystemTime::now(),
                    );
                    let message = scrub(&error_message(response).await, post.key);
                    if !is_retryable_status(status) {
                        let message = if matches!(status, 401 | 403) {
                            format!(
                                "{message} (check the API key and its access; `model.api_key_env` names the variable it is read from)"
                            )
                        } else {
                            message
                        };
                        return Err(ModelError::Status {
                            model: post.model.to_string(),
                            status,
                            message,
                        });
                    }
                    if attempt >= retry.max_retries {
                        return Err(exhausted(post.model, status, &message, attempt));
                    }
                    let wait = retry.delay(attempt, retry_after, fastrand::f64());
                    if started.elapsed().saturating_add(wait) > retry.max_elapsed {
                        return Err(ModelError::Status {
                            model: post.model.to_string(),
                            status,
                            message: format!(
                                "{message} (not retried: waiting {:.1} s would pass the retry time budget of {} s)",
                                wait.as_secs_f64(),
                                retry.max_elapsed.as_secs()
                            ),
                        });
                    }
                    (wait, Some(status))
                }
                Err(error) if error.is_connect() && attempt < retry.max_retries => {
                    let wait = retry.delay(attempt, None, fastrand::f64());
                    if started.elapsed().saturating_add(wait) > retry.max_elapsed {
                        return Err(transport_error(post.model, &error, &self.options));
                    }
                    (wait, None)
                }
                Err(error) => return Err(transport_error(post.model, &error, &self.options)),
            };
            attempt += 1;
            // Each retry is an event of the request's `chat` span.
            tracing::info!(
                target: starweaver_core::telemetry::TRACE_TARGET,
                {
                    starweaver.retry.attempt = i64::from(attempt),
                    starweaver.retry.wait_ms = i64::try_from(wait.as_millis()).unwrap_or(i64::MAX),
                    http.response.status_code = status.map(i64::from),
                },
                "retry"
            );
            tokio::time::sleep(wait).await;
        }
    }
}

/// The error for a redirect, naming where it pointed.
fn redirected(model: &str, response: &reqwest::Response, key: &str) -> ModelError {
    let location = response
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|value| value.to_str().ok())
        .map_or_else(
            || "another address".to_string(),
            |to| format!("`{}`", clean(to)),
        );
    ModelError::Status {
        model: model.to_string(),
        status: response.status().as_u16(),
        message: scrub(
            &format!(
                "the server redirected the request to {location}; redirects are not followed (the key would go along): set `model.base_url` to the address that answers"
            ),
            key,
        ),
    }
}

/// Reads a successful answer's body within [`MAX_RESPONSE_BYTES`].
pub(crate) async fn read_body(
    model: &str,
    mut response: reqwest::Response,
    options: &HttpOptions,
) -> Result<Vec<u8>, ModelError> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|error| transport_error(model, &error, options))?
    {
        if body.len() + chunk.len() > MAX_RESPONSE_BYTES {
            return Err(request_error(
                model,
                format!(
                    "the answer is larger than {} MiB; refused",
                    MAX_RESPONSE_BYTES / (1024 * 1024)
                ),
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

fn exhausted(model: &str, status: u16, message: &str, retries: u32) -> ModelError {
    let attempts = retries.saturating_add(1);
    ModelError::Status {
        model: model.to_string(),
        status,
        message: format!(
            "{message} (gave up after {attempts} attempt{}; raise `model.max_retries` or try later)",
            if attempts == 1 { "" } else { "s" }
        ),
    }
}

/// A request failure with `message`.
pub(crate) fn request_error(model: &str, message: String) -> ModelError {
    ModelError::Request {
        model: model.to_string(),
        message,
    }
}

/// A transport failure in words: a timeout names the setting to raise.
pub(crate) fn transport_error(
    model: &str,
    error: &reqwest::Error,
    options: &HttpOptions,
) -> ModelError {
    let message = if error.is_timeout() {
        format!(
            "no complete answer within {} s (not retried: the provider may have billed it); raise `model.timeout_ms`",
            options.timeout.as_secs_f64()
        )
    } else if error.is_connect() {
        format!(
            "cannot connect: {} (check `model.base_url` and the network)",
            chain(error)
        )
    } else {
        format!(
            "the connection failed: {} (not retried: the provider may have billed the request); retry the request",
            chain(error)
        )
    };
    request_error(model, message)
}

/// An error and its sources in one line.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(next) = source {
        let part = next.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = next.source();
    }
    text
}

/// The provider's own message from an error answer: `error.message` (both providers), else
/// the body's first characters.
async fn error_message(mut response: reqwest::Response) -> String {
    let mut body = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        body.extend_from_slice(&chunk);
        if body.len() >= MAX_ERROR_BYTES {
            body.truncate(MAX_ERROR_BYTES);
            break;
        }
    }
    provider_message(&body)
}

/// The words of an error object (`{"message": ...}`, or a bare string), else its JSON,
/// bounded like every provider message.
pub(crate) fn error_text(error: &serde_json::Value) -> String {
    let text = error
        .get("message")
        .and_then(serde_json::Value::as_str)
        .or_else(|| error.as_str())
        .map_or_else(|| error.to_string(), str::to_string);
    clean(text.trim())
}

/// The message inside an error body.
fn provider_message(body: &[u8]) -> String {
    let parsed: Option<serde_json::Value> = serde_json::from_slice(body).ok();
    let message = parsed.as_ref().and_then(|value| {
        let error = value.get("error").unwrap_or(value);
        error
            .get("message")
            .and_then(serde_json::Value::as_str)
            .or_else(|| error.as_str())
            .map(str::to_string)
    });
    let text = message.unwrap_or_else(|| String::from_utf8_lossy(body).into_owned());
    let text = text.trim();
    if text.is_empty() {
        return "(no message)".to_string();
    }
    clean(text)
}

/// At most [`MAX_MESSAGE_CHARS`] characters with control characters shown as spaces.
fn clean(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(MAX_MESSAGE_CHARS)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.chars().count() > MAX_MESSAGE_CHARS {
        out.push_str("...");
    }
    out
}

/// `error` with every occurrence of the key replaced in its message.
pub(crate) fn scrubbed(error: ModelError, key: &str) -> ModelError {
    match error {
        ModelError::Request { model, message } => ModelError::Request {
            model,
            message: scrub(&message, key),
        },
        ModelError::Status {
            model,
            status,
            message,
        } => ModelError::Status {
            model,
            status,
            message: scrub(&message, key),
        },
        other => other,
    }
}

/// `text` with every occurrence of the key replaced.
pub(crate) fn scrub(text: &str, key: &str) -> String {
    if key.len() < 4 {
        return text.to_string();
    }
    text.replace(key, "***")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn provider_messages_come_from_either_error_shape() {
        assert_eq!(
            provider_message(br#"{"error":{"message":"Bad tool","type":"invalid_request_error"}}"#),
            "Bad tool"
        );
        assert_eq!(
            provider_message(
                br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
            ),
            "Overloaded"
        );
        assert_eq!(provider_message(b"upstream\nbroke"), "upstream broke");
        assert_eq!(provider_message(b""), "(no message)");
        assert!(provider_message(&[b'x'; 5000]).ends_with("..."));
    }

    /// Answers one request on a loopback port with `answer`, handing back what it read.
    async fn serve_once(answer: String) -> (String, tokio::sync::oneshot::Receiver<String>) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (sender, receiver) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let mut request = Vec::new();
            let mut buffer = [0u8; 4096];
            while !request.windows(4).any(|window| window == b"\r\n\r\n") {
                match socket.read(&mut buffer).await {
                    Ok(0) | Err(_) => break,
                    Ok(read) => request.extend_from_slice(&buffer[..read]),
                }
            }
            // Handed back before answering, so a client that got the answer finds it.
            let _ = sender.send(String::from_utf8_lossy(&request).into_owned());
            let _ = socket.write_all(answer.as_bytes()).await;
        });
        (url, receiver)
    }

    #[tokio::test]
    async fn redirects_are_not_followed_so_the_key_stays_with_its_host() {
        // A redirect would carry `x-api-key` (and the body) to another server, past the
        // allowed-hosts check made on the first URL only.
        let (elsewhere, mut seen_elsewhere) = serve_once(
            "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}".to_string(),
        )
        .await;
        let (first, _) = serve_once(format!(
            "HTTP/1.1 307 Temporary Redirect\r\nlocation: {elsewhere}/messages\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        ))
        .await;
        let client = HttpClient::new(HttpOptions {
            retry: super::super::RetryPolicy::none(),
            hosts: super::super::HostPolicy::Any,
            ..HttpOptions::default()
        });
        let result = client
            .send(JsonPost {
                model: "m",
                url: &format!("{first}/messages"),
                secret_header: (
                    HeaderName::from_static("x-api-key"),
                    "sk-secret-123".to_string(),
                ),
                headers: Vec::new(),
                body: b"{}".to_vec(),
                key: "sk-secret-123",
            })
            .await;
        let error = result
            .err()
            .map(|error| error.to_string())
            .unwrap_or_default();
        assert!(error.contains("307"), "{error}");
        assert!(error.contains("set `model.base_url`"), "{error}");
        assert!(
            seen_elsewhere.try_recv().is_err(),
            "the redirect was followed"
        );
    }

    #[test]
    fn keys_are_scrubbed_from_echoed_messages() {
        assert_eq!(scrub("bad key sk-live-123", "sk-live-123"), "bad key ***");
        let error = scrubbed(
            request_error("m", "echoed sk-live-123".to_string()),
            "sk-live-123",
        );
        assert_eq!(error.to_string(), "model `m` request failed: echoed ***");
    }

    #[test]
    fn one_attempt_is_said_in_the_singular() {
        let message = exhausted("m", 429, "slow down", 0).to_string();
        assert!(message.contains("gave up after 1 attempt;"), "{message}");
        let message = exhausted("m", 429, "slow down", 2).to_string();
        assert!(message.contains("gave up after 3 attempts;"), "{message}");
    }
}

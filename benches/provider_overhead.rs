//! The provider clients' own time per model request, against a loopback
//! server that answers every request at once with one canned answer.
//!
//! For each protocol (OpenAI Chat Completions, Anthropic Messages), whole
//! and streamed, two functions make the same round trip side by side:
//!
//! * `starweaver`: `model.request(&messages, &parameters)` (or
//!   `request_stream`, consumed to its `Finished` event): tool planning,
//!   settings, building and serializing the body from a 5-message history
//!   with two tool rounds and 8 tool definitions, the HTTP exchange, and
//!   parsing the answer (two tool calls) into a `ModelResponse`.
//! * `reqwest`: a bare `reqwest` POST of the very bytes the client sent
//!   (recorded by the server on the first request) with the same headers,
//!   reading the answer body to its end (for the streamed answer, every
//!   chunk of the event stream), from a client built with the same
//!   timeouts. No serialization and no parsing: the floor of the
//!   exchange itself.
//! * `by_hand`: what a user would otherwise write with `reqwest` and
//!   `serde_json`: the same body held as a `serde_json::Value` (parsed
//!   once from the recorded bytes), serialized with `serde_json::to_vec`
//!   on every request, and the answer parsed into a `Value` (for the
//!   streamed answer, each event's `data:` line parsed into a `Value`).
//!
//! The server keeps connections alive; whole answers carry a
//! `content-length`, streamed answers are chunked, one chunk per event,
//! written in one go. Server and client share one current-thread Tokio
//! runtime, so both functions pay the same server cost.
//!
//! Run with `cargo bench --bench provider_overhead`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::{Arc, Mutex};

use criterion::{criterion_main, Criterion};
use futures::StreamExt as _;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use starweaver::model::anthropic::AnthropicModel;
use starweaver::model::http::{HostPolicy, HttpOptions};
use starweaver::model::openai::OpenAiModel;
use starweaver::model::{
    InstructionsPart, Model, ModelMessage, ModelRequest, ModelRequestParameters, ModelResponse,
    ModelSettings, ModelStreamEvent, RequestPart, ResponsePart, TextPart, ToolCallPart,
    ToolDefinition, ToolReturnKind, ToolReturnPart, UserPromptPart,
};
use starweaver::tools::schema_for_type;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

const KEY: &str = "sk-bench-0123456789";

const OPENAI_WHOLE: &str = include_str!("../tests/fixtures/providers/openai/tool_round_1.json");
const OPENAI_SSE: &str = include_str!("../tests/fixtures/providers/openai/tool_round_1.sse");
const ANTHROPIC_WHOLE: &str =
    include_str!("../tests/fixtures/providers/anthropic/tool_round_1.json");
const ANTHROPIC_SSE: &str = include_str!("../tests/fixtures/providers/anthropic/tool_round_1.sse");

// ---------------------------------------------------------------------------
// The loopback server
// ---------------------------------------------------------------------------

/// One server: the address it listens on and the body of the first request it read.
struct Server {
    url: String,
    first_body: Arc<Mutex<Option<Vec<u8>>>>,
}

/// The whole HTTP answer for a JSON body.
fn whole_answer(body: &str) -> Vec<u8> {
    let mut answer = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    answer.extend_from_slice(body.as_bytes());
    answer
}

/// The whole HTTP answer for an event stream: chunked, one chunk per event.
fn streamed_answer(sse: &str) -> Vec<u8> {
    let mut answer = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\n\r\n".to_vec();
    let mut rest = sse;
    while !rest.is_empty() {
        let end = rest.find("\n\n").map_or(rest.len(), |at| at + 2);
        let (event, tail) = rest.split_at(end);
        answer.extend_from_slice(format!("{:x}\r\n", event.len()).as_bytes());
        answer.extend_from_slice(event.as_bytes());
        answer.extend_from_slice(b"\r\n");
        rest = tail;
    }
    answer.extend_from_slice(b"0\r\n\r\n");
    answer
}

/// Starts a server on 127.0.0.1 answering every request with `answer`.
async fn serve(answer: Vec<u8>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let first_body = Arc::new(Mutex::new(None));
    let answer = Arc::new(answer);
    let seen = Arc::clone(&first_body);
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            socket.set_nodelay(true).unwrap();
            tokio::spawn(connection(socket, Arc::clone(&answer), Arc::clone(&seen)));
        }
    });
    Server { url, first_body }
}

/// Reads requests off one kept-alive connection and answers each.
async fn connection(
    mut socket: tokio::net::TcpStream,
    answer: Arc<Vec<u8>>,
    seen: Arc<Mutex<Option<Vec<u8>>>>,
) {
    let mut buffer: Vec<u8> = Vec::with_capacity(64 * 1024);
    let mut read = vec![0u8; 64 * 1024];
    loop {
        let head_end = loop {
            if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
            match socket.read(&mut read).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buffer.extend_from_slice(&read[..n]),
            }
        };
        let length = content_length(&buffer[..head_end]);
        while buffer.len() < head_end + length {
            match socket.read(&mut read).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buffer.extend_from_slice(&read[..n]),
            }
        }
        {
            let mut seen = seen.lock().unwrap();
            if seen.is_none() {
                *seen = Some(buffer[head_end..head_end + length].to_vec());
            }
        }
        buffer.drain(..head_end + length);
        if socket.write_all(&answer).await.is_err() {
            return;
        }
    }
}

/// The `content-length` of a request head (0 when absent).
fn content_length(head: &[u8]) -> usize {
    let head = std::str::from_utf8(head).unwrap();
    head.split("\r\n")
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().unwrap())
        })
        .unwrap_or(0)
}

// ---------------------------------------------------------------------------
// The request: 8 tools, a history with two tool rounds, settings
// ---------------------------------------------------------------------------

/// Arguments of `ls`.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct LsArgs {
    /// Folder to list, relative to the workspace root.
    path: String,
    /// Include hidden entries.
    #[serde(default)]
    all: bool,
    /// How many levels to descend (1 lists the folder only).
    depth: Option<u32>,
}

/// Arguments of `read_file`.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct ReadFileArgs {
    /// File to read.
    path: String,
    /// First line to return, 1-based.
    offset: Option<u64>,
    /// Most lines to return.
    limit: Option<u64>,
}

/// Arguments of `write_file`.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct WriteFileArgs {
    /// File to write.
    path: String,
    /// The whole new content.
    content: String,
    /// Create missing parent folders.
    #[serde(default)]
    create_dirs: bool,
}

/// One replacement in a file.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Edit {
    /// Exact text to replace; must occur once.
    old_text: String,
    /// Replacement text.
    new_text: String,
}

/// Arguments of `edit_file`.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct EditFileArgs {
    /// File to edit.
    path: String,
    /// Replacements, applied in order.
    edits: Vec<Edit>,
}

/// Arguments of `grep`.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct GrepArgs {
    /// Regular expression to search for.
    pattern: String,
    /// Folder or file to search (default: the workspace root).
    path: Option<String>,
    /// Only files matching this glob.
    glob: Option<String>,
    /// Match regardless of case.
    #[serde(default)]
    case_insensitive: bool,
    /// Most matching lines to return.
    max_results: Option<u32>,
}

/// Arguments of `glob`.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct GlobArgs {
    /// Pattern such as `src/**/*.rs`.
    pattern: String,
    /// Folder the pattern is relative to.
    path: Option<String>,
}

/// Arguments of `shell_exec`.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct ShellArgs {
    /// Command line run by `sh -c`.
    command: String,
    /// Working folder, relative to the workspace root.
    cwd: Option<String>,
    /// Longest run time in milliseconds.
    timeout_ms: Option<u64>,
    /// Extra environment variables.
    #[serde(default)]
    env: BTreeMap<String, String>,
}

/// An HTTP method.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
enum Method {
    /// Read.
    #[serde(rename = "GET")]
    Get,
    /// Submit.
    #[serde(rename = "POST")]
    Post,
}

/// Arguments of `http_fetch`.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct FetchArgs {
    /// URL to fetch.
    url: String,
    /// Method (default GET).
    method: Option<Method>,
    /// Request headers.
    #[serde(default)]
    headers: BTreeMap<String, String>,
    /// Most bytes of the answer to return.
    max_bytes: Option<u64>,
}

fn tools() -> Vec<ToolDefinition> {
    let tool = |name: &str, description: &str, parameters: Value| {
        ToolDefinition::new(name, Some(description.to_string()), parameters)
    };
    vec![
        tool(
            "ls",
            "List a folder's entries with their kinds and sizes.",
            schema_for_type::<LsArgs>(),
        ),
        tool(
            "read_file",
            "Read a text file, optionally a range of its lines.",
            schema_for_type::<ReadFileArgs>(),
        ),
        tool(
            "write_file",
            "Write a whole file, replacing what it held.",
            schema_for_type::<WriteFileArgs>(),
        ),
        tool(
            "edit_file",
            "Replace exact snippets of a file.",
            schema_for_type::<EditFileArgs>(),
        ),
        tool(
            "grep",
            "Search file contents with a regular expression.",
            schema_for_type::<GrepArgs>(),
        ),
        tool(
            "glob",
            "Find files whose paths match a glob.",
            schema_for_type::<GlobArgs>(),
        ),
        tool(
            "shell_exec",
            "Run a shell command in the workspace and return its output.",
            schema_for_type::<ShellArgs>(),
        ),
        tool(
            "http_fetch",
            "Fetch a URL and return the answer's status, headers and body.",
            schema_for_type::<FetchArgs>(),
        ),
    ]
}

fn success(id: &str, name: &str, content: Value) -> RequestPart {
    RequestPart::ToolReturn(ToolReturnPart {
        tool_call_id: id.into(),
        tool_name: name.into(),
        content,
        kind: ToolReturnKind::Success,
        metadata: serde_json::Map::new(),
        private_metadata: serde_json::Map::new(),
    })
}

/// Text of about `lines` lines of source, as a file read returns it.
fn file_text(lines: usize) -> String {
    (0..lines)
        .map(|line| {
            format!("{line:>4}  let value_{line} = compute(input, {line}); // step {line}\n")
        })
        .collect()
}

/// A prompt, then two tool rounds of two calls each with their returns.
fn history() -> Vec<ModelMessage> {
    let listing: Vec<Value> = (0..24)
        .map(|entry| {
            json!({
                "name": format!("module_{entry:02}.rs"),
                "kind": "file",
                "size": 1200 + entry * 37,
            })
        })
        .collect();
    let matches: Vec<Value> = (0..12)
        .map(|hit| {
            json!({
                "path": format!("src/module_{:02}.rs", hit * 2),
                "line": 10 + hit * 7,
                "text": format!("    let value_{hit} = compute(input, {hit}); // TODO check bounds"),
            })
        })
        .collect();
    vec![
        ModelMessage::Request(ModelRequest {
            parts: vec![
                RequestPart::Instructions(InstructionsPart {
                    content: "The workspace is a Rust crate; answer with file paths.".into(),
                }),
                RequestPart::UserPrompt(UserPromptPart::new(
                    "Find where the input bounds are checked and list the TODOs left about them.",
                )),
            ],
        }),
        ModelMessage::Response(ModelResponse {
            parts: vec![
                ResponsePart::Text(TextPart::new("I'll list the sources and read the notes.")),
                ResponsePart::ToolCall(ToolCallPart::new("call_ls_01", "ls", r#"{"path":"src"}"#)),
                ResponsePart::ToolCall(ToolCallPart::new(
                    "call_read_02",
                    "read_file",
                    r#"{"path":"NOTES.md"}"#,
                )),
            ],
            ..ModelResponse::default()
        }),
        ModelMessage::Request(ModelRequest {
            parts: vec![
                success("call_ls_01", "ls", json!({"entries": listing})),
                success("call_read_02", "read_file", Value::String(file_text(20))),
            ],
        }),
        ModelMessage::Response(ModelResponse::tool_calls([
            ToolCallPart::new(
                "call_grep_03",
                "grep",
                json!({"pattern": "TODO.*bounds", "path": "src"}),
            ),
            ToolCallPart::new(
                "call_read_04",
                "read_file",
                json!({"path": "src/module_04.rs", "offset": 1, "limit": 40}),
            ),
        ])),
        ModelMessage::Request(ModelRequest {
            parts: vec![
                success("call_grep_03", "grep", json!({"matches": matches})),
                success("call_read_04", "read_file", Value::String(file_text(40))),
            ],
        }),
    ]
}

fn parameters() -> ModelRequestParameters {
    let mut extra = serde_json::Map::new();
    extra.insert("parallel_tool_calls".into(), Value::Bool(true));
    ModelRequestParameters {
        tools: tools().into_iter().map(std::sync::Arc::new).collect(),
        instructions: vec![
            "You are a careful code reviewer. Read before you answer; cite paths and lines.".into(),
        ],
        settings: ModelSettings {
            temperature: Some(0.2),
            max_tokens: Some(2048),
            extra,
            ..ModelSettings::default()
        },
    }
}

// ---------------------------------------------------------------------------
// The two sides
// ---------------------------------------------------------------------------

fn options() -> HttpOptions {
    HttpOptions::default().with_hosts(HostPolicy::loopback())
}

/// A bare client built like the providers' (same timeouts and user agent).
fn bare_client() -> reqwest::Client {
    let options = options();
    reqwest::Client::builder()
        .connect_timeout(options.connect_timeout)
        .timeout(options.timeout)
        .user_agent("starweaver-bench")
        .build()
        .unwrap()
}

/// A bare POST of `body` with `headers`, the answer read to its end.
async fn bare(
    client: &reqwest::Client,
    url: &str,
    headers: &HeaderMap,
    body: &[u8],
    streamed: bool,
) -> usize {
    let mut response = client
        .post(url)
        .headers(headers.clone())
        .body(body.to_vec())
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success());
    if streamed {
        let mut total = 0;
        while let Some(chunk) = response.chunk().await.unwrap() {
            total += chunk.len();
        }
        total
    } else {
        response.bytes().await.unwrap().len()
    }
}

/// The hand-written client: the body serialized from `body`, the answer parsed as JSON; the
/// number of JSON values read.
async fn by_hand(
    client: &reqwest::Client,
    url: &str,
    headers: &HeaderMap,
    body: &Value,
    streamed: bool,
) -> usize {
    let bytes = serde_json::to_vec(body).unwrap();
    let mut response = client
        .post(url)
        .headers(headers.clone())
        .body(bytes)
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success());
    if !streamed {
        let answer: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
        return usize::from(answer.is_object());
    }
    let mut pending: Vec<u8> = Vec::new();
    let mut values = 0;
    while let Some(chunk) = response.chunk().await.unwrap() {
        pending.extend_from_slice(&chunk);
        while let Some(end) = pending.windows(2).position(|w| w == b"\n\n") {
            let event: Vec<u8> = pending.drain(..end + 2).collect();
            for line in event.split(|byte| *byte == b'\n') {
                if let Some(data) = line.strip_prefix(b"data: ") {
                    if data != b"[DONE]" {
                        let value: Value = serde_json::from_slice(data).unwrap();
                        values += usize::from(value.is_object());
                    }
                }
            }
        }
    }
    values
}

/// A whole answer through the model; the number of calls it holds.
async fn whole(
    model: &dyn Model,
    messages: &[ModelMessage],
    parameters: &ModelRequestParameters,
) -> usize {
    let response = model.request(messages, parameters).await.unwrap();
    response.calls().count()
}

/// A streamed answer through the model, consumed to its end; the calls of the final response.
async fn streamed(
    model: &dyn Model,
    messages: &[ModelMessage],
    parameters: &ModelRequestParameters,
) -> usize {
    let mut stream = model.request_stream(messages, parameters).await.unwrap();
    let mut calls = 0;
    while let Some(event) = stream.next().await {
        if let ModelStreamEvent::Finished(response) = event.unwrap() {
            calls = response.calls().count();
        }
    }
    calls
}

/// One pair's fixed parts: the model, the URL and headers of the bare call, the recorded body.
struct Pair {
    name: &'static str,
    model: Box<dyn Model>,
    url: String,
    headers: HeaderMap,
    body: Vec<u8>,
    body_value: Value,
    streamed: bool,
}

fn header_map(pairs: &[(&'static str, &str)]) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    for (name, value) in pairs {
        headers.insert(
            HeaderName::from_static(name),
            HeaderValue::from_str(value).unwrap(),
        );
    }
    headers
}

/// Starts the server for one pair, makes the first request through the model (checked) and
/// records the bytes it sent.
async fn pair(
    name: &'static str,
    provider: &str,
    streamed_answer_wanted: bool,
    messages: &[ModelMessage],
    parameters: &ModelRequestParameters,
) -> Pair {
    let (answer, path) = match (provider, streamed_answer_wanted) {
        ("openai", false) => (whole_answer(OPENAI_WHOLE), "/v1/chat/completions"),
        ("openai", true) => (streamed_answer(OPENAI_SSE), "/v1/chat/completions"),
        ("anthropic", false) => (whole_answer(ANTHROPIC_WHOLE), "/v1/messages"),
        _ => (streamed_answer(ANTHROPIC_SSE), "/v1/messages"),
    };
    let server = serve(answer).await;
    let base = format!("{}/v1", server.url);
    let (model, headers): (Box<dyn Model>, HeaderMap) = if provider == "openai" {
        (
            Box::new(
                OpenAiModel::new("gpt-4.1-mini")
                    .with_base_url(base)
                    .with_api_key(KEY)
                    .with_http_options(options()),
            ),
            header_map(&[("authorization", &format!("Bearer {KEY}"))]),
        )
    } else {
        (
            Box::new(
                AnthropicModel::new("claude-sonnet-4-5")
                    .with_base_url(base)
                    .with_api_key(KEY)
                    .with_http_options(options()),
            ),
            header_map(&[("x-api-key", KEY), ("anthropic-version", "2023-06-01")]),
        )
    };
    let calls = if streamed_answer_wanted {
        streamed(model.as_ref(), messages, parameters).await
    } else {
        whole(model.as_ref(), messages, parameters).await
    };
    assert_eq!(calls, 2, "{name}: the answer's two calls");
    let body = server.first_body.lock().unwrap().clone().unwrap();
    let sent: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(sent["tools"].as_array().unwrap().len(), 8, "{name}");
    assert_eq!(
        serde_json::to_vec(&sent).unwrap(),
        body,
        "{name}: the same bytes by hand"
    );
    Pair {
        name,
        model,
        url: format!("{}{path}", server.url),
        headers,
        body,
        body_value: sent,
        streamed: streamed_answer_wanted,
    }
}

fn bench_provider_overhead(c: &mut Criterion) {
    // The process-wide TLS backend, as the providers install it (plain HTTP never uses it).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let messages = history();
    let parameters = parameters();
    let pairs = runtime.block_on(async {
        vec![
            pair("openai_whole", "openai", false, &messages, &parameters).await,
            pair("openai_stream", "openai", true, &messages, &parameters).await,
            pair(
                "anthropic_whole",
                "anthropic",
                false,
                &messages,
                &parameters,
            )
            .await,
            pair(
                "anthropic_stream",
                "anthropic",
                true,
                &messages,
                &parameters,
            )
            .await,
        ]
    });
    let client = bare_client();
    for pair in &pairs {
        let expected = runtime.block_on(bare(
            &client,
            &pair.url,
            &pair.headers,
            &pair.body,
            pair.streamed,
        ));
        assert!(
            expected > 0,
            "{}: the bare call reads the answer",
            pair.name
        );
        let values = runtime.block_on(by_hand(
            &client,
            &pair.url,
            &pair.headers,
            &pair.body_value,
            pair.streamed,
        ));
        assert!(
            values > 0,
            "{}: the hand-written call parses the answer",
            pair.name
        );
        eprintln!(
            "{}: request body {} bytes, answer body {expected} bytes",
            pair.name,
            pair.body.len()
        );
        let mut group = c.benchmark_group(format!("provider_overhead/{}", pair.name));
        group.bench_function("starweaver", |b| {
            b.to_async(&runtime).iter(|| async {
                let calls = if pair.streamed {
                    streamed(pair.model.as_ref(), &messages, &parameters).await
                } else {
                    whole(pair.model.as_ref(), &messages, &parameters).await
                };
                black_box(calls)
            });
        });
        group.bench_function("reqwest", |b| {
            b.to_async(&runtime).iter(|| async {
                black_box(bare(&client, &pair.url, &pair.headers, &pair.body, pair.streamed).await)
            });
        });
        group.bench_function("by_hand", |b| {
            b.to_async(&runtime).iter(|| async {
                black_box(
                    by_hand(
                        &client,
                        &pair.url,
                        &pair.headers,
                        &pair.body_value,
                        pair.streamed,
                    )
                    .await,
                )
            });
        });
        group.finish();
    }
}

/// The criterion entry points (the macro output carries no docs).
#[allow(missing_docs)]
mod group {
    criterion::criterion_group! {
        name = benches;
        config = criterion::Criterion::default()
            .warm_up_time(std::time::Duration::from_secs(1))
            .measurement_time(std::time::Duration::from_secs(5));
        targets = super::bench_provider_overhead
    }
}

criterion_main!(group::benches);

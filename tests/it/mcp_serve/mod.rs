//! `starweaver mcp serve`: a manifest's toolsets served to MCP clients, tested the way a
//! client sees them, over stdio and streamable HTTP, with the SDK's own Rust client; then the
//! Python SDK's client and the MCP Inspector against the same binary. `library` serves
//! `#[starweaver::tool]` tools through `McpServer` in process.

mod addresses;
mod agent;
mod approvals;
mod cancellation;
mod interop;
mod library;
mod reserved;
mod stdio;
mod tools;

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ContentBlock,
    ElicitRequestParams, ElicitResult, ElicitationAction, ErrorData, Implementation,
    ProgressNotificationParam,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService, ServiceError};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt as _};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt as _, BufReader};

use crate::common::starweaver_binary;

/// Generous, for a loaded machine: only a bound on how long a broken build may hang a test.
pub const DEADLINE: Duration = Duration::from_secs(120);

/// Files to read, a file to write that needs approval, a shell, and a deferred tool that must
/// not be served.
pub const MANIFEST: &str = r"version: 1
name: served
description: Files and a shell, for the MCP server's tests.
model: {id: test}
environment: {type: local}
shell: {allow_execute: true, allowed_programs: [sleep]}
toolsets:
  - type: filesystem
    approval_required: [write_file]
  - type: shell
    tools: [shell_exec]
  - type: deferred
    name: proposals
    tools: [edit_file]
    prefix: propose
";

/// An agent with no tools on the `test` model, for `--agent`.
pub const AGENT: &str =
    "version: 1\nname: helper\ndescription: Answers briefly.\nmodel: {id: test}\n";

/// The file `notes.txt` holds.
pub const NOTES: &str = "hello from the notes\n";

/// A folder with `served.yaml`, `helper.yaml` and `notes.txt`.
pub fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("served.yaml"), MANIFEST).unwrap();
    std::fs::write(dir.path().join("helper.yaml"), AGENT).unwrap();
    std::fs::write(dir.path().join("notes.txt"), NOTES).unwrap();
    dir
}

/// The two transports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Stdio,
    Http,
}

/// Both, for tests that hold over each.
pub const BOTH: [Transport; 2] = [Transport::Stdio, Transport::Http];

/// The test client: what it answers when asked to approve (no elicitation capability when
/// `None`), and what it was asked and told.
#[derive(Clone, Default)]
pub struct Client {
    pub answer: Option<ElicitationAction>,
    pub asked: Arc<Mutex<Vec<String>>>,
    pub progress: Arc<Mutex<Vec<String>>>,
    /// Signalled on each `notifications/tools/list_changed`.
    pub list_changes: Arc<tokio::sync::Notify>,
}

impl Client {
    /// A client that answers every approval with `action`.
    pub fn answering(action: ElicitationAction) -> Self {
        Self {
            answer: Some(action),
            ..Self::default()
        }
    }
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.answer.is_some() {
            capabilities = ClientCapabilities::builder().enable_elicitation().build();
        }
        ClientConfig::new(capabilities, Implementation::new("starweaver-tests", "1"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            self.asked.lock().unwrap().push(message.clone());
        }
        Ok(ElicitResult::new(
            self.answer.clone().unwrap_or(ElicitationAction::Decline),
        ))
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changes.notify_one();
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress
            .lock()
            .unwrap()
            .push(params.message.unwrap_or_default());
    }
}

/// A running `mcp serve` with a connected client.
pub struct Served {
    pub client: RunningService<RoleClient, Client>,
    stderr: Arc<Mutex<String>>,
    _child: Option<tokio::process::Child>,
}

impl Served {
    /// What the server wrote to standard error so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Calls `name` with `arguments`.
    pub async fn call(&self, name: &str, arguments: Value) -> Result<CallToolResult, ServiceError> {
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object")
        };
        let params = CallToolRequestParams::new(name.to_string()).with_arguments(arguments);
        self.client.peer().call_tool(params).await
    }

    /// Closes the session (and with it, over stdio, the server's standard input).
    pub async fn close(self) {
        let _ = self.client.cancel().await;
    }
}

/// The command `starweaver mcp serve MANIFEST ARGS...` in `dir`.
pub fn serve_command(
    dir: &std::path::Path,
    manifest: &str,
    args: &[&str],
) -> tokio::process::Command {
    let mut command = starweaver_binary();
    command
        .current_dir(dir)
        .args(["mcp", "serve", manifest])
        .args(args);
    let mut command = tokio::process::Command::from(command);
    command.kill_on_drop(true);
    command
}

/// Starts `mcp serve MANIFEST ARGS` over `transport` in `dir` and connects `client`.
pub async fn serve(
    transport: Transport,
    dir: &std::path::Path,
    manifest: &str,
    args: &[&str],
    client: Client,
) -> Served {
    let stderr = Arc::new(Mutex::new(String::new()));
    match transport {
        Transport::Stdio => {
            let (process, child_stderr) =
                TokioChildProcess::builder(serve_command(dir, manifest, args))
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap();
            if let Some(child_stderr) = child_stderr {
                collect(child_stderr, stderr.clone());
            }
            let client = match client.serve(process).await {
                Ok(client) => client,
                Err(error) => {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    panic!("{error}; the server said:\n{}", stderr.lock().unwrap());
                }
            };
            Served {
                client,
                stderr,
                _child: None,
            }
        }
        Transport::Http => {
            // The SDK's HTTP client is reqwest on rustls with no provider chosen.
            let _ = rustls::crypto::ring::default_provider().install_default();
            let mut command = serve_command(dir, manifest, args);
            command
                .args(["--http", "127.0.0.1:0"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped());
            let mut child = command.spawn().unwrap();
            let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
            let url = loop {
                let line = lines.next_line().await.unwrap().unwrap_or_else(|| {
                    panic!(
                        "the server ended before it listened:\n{}",
                        stderr.lock().unwrap()
                    )
                });
                stderr.lock().unwrap().push_str(&format!("{line}\n"));
                if let Some(url) = line.strip_prefix("listening on ") {
                    break url.trim().to_string();
                }
            };
            assert!(
                url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
                "{url}"
            );
            let sink = stderr.clone();
            tokio::spawn(async move {
                while let Ok(Some(line)) = lines.next_line().await {
                    sink.lock().unwrap().push_str(&format!("{line}\n"));
                }
            });
            let transport = StreamableHttpClientTransport::from_uri(url);
            let client = client.serve(transport).await.unwrap();
            Served {
                client,
                stderr,
                _child: Some(child),
            }
        }
    }
}

/// Copies a stream into `sink` until it ends.
fn collect(stream: impl tokio::io::AsyncRead + Unpin + Send + 'static, sink: Arc<Mutex<String>>) {
    tokio::spawn(async move {
        let mut lines = BufReader::new(stream).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            sink.lock().unwrap().push_str(&format!("{line}\n"));
        }
    });
}

/// The first text block of a result.
pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .find_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

/// Runs `test` under [`DEADLINE`].
pub async fn within<F: std::future::Future>(test: F) -> F::Output {
    tokio::time::timeout(DEADLINE, test)
        .await
        .expect("the test ran past its deadline")
}

/// A `read_file` call's arguments.
pub fn read(path: &str) -> Value {
    json!({"path": path})
}

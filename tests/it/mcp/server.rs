//! The tests' own MCP server, written with the SDK and served in process
//! over a duplex pipe: echo, structured content, errors, content blocks,
//! a tool list that grows, progress, and a call that hangs until it is cancelled.

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelledNotificationParam, ErrorData,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::{json, Value};
use starweaver::mcp::client::{McpConnector, McpServerSpec, McpStream, McpTransport};
use tokio::sync::Notify;

/// What the server saw, for the tests to check.
#[derive(Default)]
pub struct Seen {
    /// `notifications/cancelled` received.
    pub cancelled: Mutex<Vec<CancelledNotificationParam>>,
    /// Signalled on each cancellation.
    pub cancel_signal: Notify,
    /// Connections made.
    pub connections: Mutex<u32>,
}

#[derive(Clone)]
struct TestServer {
    seen: Arc<Seen>,
    grown: Arc<Mutex<bool>>,
}

/// The long tool name (90 characters) the server lists.
pub fn long_name() -> String {
    format!("{}.{}", "long".repeat(15), "x".repeat(29))
}

fn tools(grown: bool) -> Value {
    let object = |properties: Value| json!({"type": "object", "properties": properties});
    let mut tools = vec![
        json!({"name": "echo", "description": "Echoes `text`.",
               "inputSchema": object(json!({"text": {"type": "string"}})),
               "annotations": {"readOnlyHint": true}}),
        json!({"name": "add", "description": "Adds two numbers.",
               "inputSchema": object(json!({"a": {"type": "number"}, "b": {"type": "number"}})),
               "outputSchema": {"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]},
               "annotations": {"readOnlyHint": false, "destructiveHint": false}}),
        json!({"name": "bad-structured", "inputSchema": object(json!({})),
               "outputSchema": {"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]},
               "annotations": {"destructiveHint": true}}),
        json!({"name": "fails", "inputSchema": object(json!({}))}),
        json!({"name": "rpc-error", "inputSchema": object(json!({}))}),
        json!({"name": "blocks", "inputSchema": object(json!({}))}),
        json!({"name": "hang", "inputSchema": object(json!({}))}),
        json!({"name": "grow", "inputSchema": object(json!({}))}),
        json!({"name": "progress", "inputSchema": object(json!({}))}),
        json!({"name": "files.read", "inputSchema": {"properties": {}}}),
        json!({"name": long_name(), "inputSchema": object(json!({}))}),
    ];
    if grown {
        tools.push(json!({"name": "extra", "inputSchema": object(json!({}))}));
    }
    json!({ "tools": tools })
}

fn text(text: impl Into<String>) -> CallToolResponse {
    let result: CallToolResult =
        serde_json::from_value(json!({"content": [{"type": "text", "text": text.into()}]}))
            .unwrap();
    result.into()
}

fn from_json(value: Value) -> CallToolResponse {
    let result: CallToolResult = serde_json::from_value(value).unwrap();
    result.into()
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let grown = *self.grown.lock().unwrap();
        Ok(serde_json::from_value(tools(grown)).unwrap())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        match request.name.as_ref() {
            "echo" => Ok(text(arguments["text"].as_str().unwrap_or_default())),
            "add" => {
                let sum =
                    arguments["a"].as_f64().unwrap_or(0.0) + arguments["b"].as_f64().unwrap_or(0.0);
                Ok(from_json(json!({
                    "content": [{"type": "text", "text": sum.to_string()}],
                    "structuredContent": {"sum": sum}
                })))
            }
            "bad-structured" => Ok(from_json(json!({
                "content": [], "structuredContent": {"sum": "not a number"}
            }))),
            "fails" => Ok(from_json(json!({
                "content": [{"type": "text", "text": "it failed on purpose"}], "isError": true
            }))),
            "rpc-error" => Err(ErrorData::invalid_params("no such widget: 42", None)),
            "blocks" => Ok(from_json(json!({"content": [
                {"type": "text", "text": "a picture and a file"},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "notes"}}
            ]}))),
            "hang" => {
                context.ct.cancelled().await;
                Err(ErrorData::internal_error("cancelled", None))
            }
            "progress" => {
                // Three updates for a client that asked for them, then the answer.
                if let Some(token) = context.meta.get_progress_token() {
                    for step in 1..=3 {
                        let update = ProgressNotificationParam::new(token.clone(), f64::from(step))
                            .with_total(3.0)
                            .with_message(format!("step {step}"));
                        let _ = context.peer.notify_progress(update).await;
                    }
                    Ok(text("counted to 3"))
                } else {
                    Ok(text("no progress token"))
                }
            }
            "grow" => {
                *self.grown.lock().unwrap() = true;
                let _ = context.peer.notify_tool_list_changed().await;
                Ok(text("grown"))
            }
            other => Ok(text(format!("called {other}"))),
        }
    }

    async fn on_cancelled(
        &self,
        notification: CancelledNotificationParam,
        _context: NotificationContext<RoleServer>,
    ) {
        self.seen.cancelled.lock().unwrap().push(notification);
        self.seen.cancel_signal.notify_waiters();
    }
}

/// A spec for the in-process server named `name`, and what it sees.
pub fn spec(name: &str) -> (McpServerSpec, Arc<Seen>) {
    let seen = Arc::new(Seen::default());
    let grown = Arc::new(Mutex::new(false));
    let connector_seen = Arc::clone(&seen);
    let connector = McpConnector::new(move || {
        let server = TestServer {
            seen: Arc::clone(&connector_seen),
            grown: Arc::clone(&grown),
        };
        *connector_seen.connections.lock().unwrap() += 1;
        Box::pin(async move {
            let (client, server_end) = tokio::io::duplex(1 << 16);
            tokio::spawn(async move {
                if let Ok(running) = server.serve(server_end).await {
                    let _ = running.waiting().await;
                }
            });
            let (read, write) = tokio::io::split(client);
            Ok(McpStream {
                read: Box::new(read),
                write: Box::new(write),
            })
        })
    });
    (
        McpServerSpec::new(name, McpTransport::Stream(connector)),
        seen,
    )
}

//! The life of one server behind a toolset: the connection slot, the
//! offered tools as last listed, restarts with backoff, and the point
//! where repeated failures make the toolset unavailable.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use rmcp::model::ProgressNotificationParam;
use serde_json::{json, Value};
use starweaver_core::model::ToolDefinition;
use starweaver_core::tools::{
    ToolContext, ToolError, ToolFacts, ToolListChanges, ToolProgress, ToolResult,
};
use tokio::sync::Mutex;
use tracing::Instrument;

use super::connection::{CallFailure, Connection};
use super::names::NameTable;
use super::result::to_tool_result;
use super::{map_tool_name, McpError, McpServerSpec, McpToolHints, McpToolInfo};

/// Restarts tried after the server failed, before the toolset becomes
/// unavailable (reset once a restarted server serves a call).
pub(crate) const MAX_RESTARTS: u32 = 3;
/// The longest wait before a restart.
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// The first wait before a restart; each further one doubles it.
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
/// Tools taken from one server's list; the rest are left out.
const MAX_TOOLS: usize = 1024;
/// Characters of a tool description kept.
const MAX_DESCRIPTION_CHARS: usize = 8 * 1024;

/// One tool the toolset offers, as last listed.
pub(crate) struct OfferedTool {
    /// The name the model sees.
    pub(crate) mapped: String,
    /// The server's own name.
    pub(crate) server_name: String,
    /// The model-facing definition, facts written into its metadata.
    pub(crate) definition: ToolDefinition,
    /// What the registry decides from.
    pub(crate) facts: ToolFacts,
    /// The server's hints.
    pub(crate) hints: McpToolHints,
    /// The compiled `outputSchema`, when it has one that compiles.
    pub(crate) output: Option<jsonschema::Validator>,
}

/// The offered tools of one listing.
#[derive(Default)]
pub(crate) struct Snapshot {
    /// In the server's order.
    pub(crate) tools: Vec<Arc<OfferedTool>>,
    /// Mapped names back to the server's.
    table: NameTable,
}

impl Snapshot {
    /// The tool the model knows as `mapped`, if still offered.
    pub(crate) fn get(&self, mapped: &str) -> Option<&Arc<OfferedTool>> {
        let server_name = self.table.server_name(mapped)?;
        self.tools
            .iter()
            .find(|tool| tool.server_name == server_name)
    }
}

#[derive(Default)]
struct Live {
    /// Started (and not stopped since): a connection that is gone is
    /// restarted; before that, the first use starts it once.
    started: bool,
    connection: Option<Arc<Connection>>,
    /// Why the server last failed.
    last_failure: Option<String>,
}

/// One server's state, shared by the toolset and its tools.
pub(crate) struct Session {
    spec: McpServerSpec,
    live: Mutex<Live>,
    snapshot: RwLock<Arc<Snapshot>>,
    restarts: AtomicU32,
    unavailable: AtomicBool,
    /// Raised by every connection when the server announces a new tool list; the snapshot
    /// is read again before the next call, and a run reads it before its next request.
    changes: ToolListChanges,
}

impl Session {
    /// A session that has not started its server.
    pub(crate) fn new(spec: McpServerSpec) -> Self {
        Self {
            spec,
            live: Mutex::new(Live::default()),
            snapshot: RwLock::new(Arc::new(Snapshot::default())),
            restarts: AtomicU32::new(0),
            unavailable: AtomicBool::new(false),
            changes: ToolListChanges::new(),
        }
    }

    /// The signal of the server's tool list changes.
    pub(crate) fn changes(&self) -> &ToolListChanges {
        &self.changes
    }

    /// Reads the tool list again when the server announced a change since it was last read,
    /// on the running connection (a server that died is restarted by its next call, which
    /// lists it again).
    ///
    /// # Errors
    /// When the new list cannot be read, or not offered (a name collision, a `tools:` name
    /// the server no longer lists): the toolset then offers nothing until the next change.
    pub(crate) async fn refresh(&self) -> Result<(), McpError> {
        if !self.changes.is_stale() {
            return Ok(());
        }
        let live = self.live.lock().await;
        let Some(connection) = live
            .connection
            .as_ref()
            .filter(|connection| !connection.is_dead())
            .cloned()
        else {
            return Ok(());
        };
        self.list(&connection).await
    }

    /// The spec it was made from.
    pub(crate) fn spec(&self) -> &McpServerSpec {
        &self.spec
    }

    /// The offered tools as last listed.
    pub(crate) fn snapshot(&self) -> Arc<Snapshot> {
        self.snapshot
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Whether failures used up the restarts.
    pub(crate) fn is_unavailable(&self) -> bool {
        self.unavailable.load(Ordering::Acquire)
    }

    /// Starts the server and lists its tools, once, within the startup
    /// bound (no retries): the toolset's entry. A live connection is kept.
    pub(crate) async fn start(&self) -> Result<(), McpError> {
        let mut live = self.live.lock().await;
        self.restarts.store(0, Ordering::Release);
        self.unavailable.store(false, Ordering::Release);
        if let Some(connection) = &live.connection {
            if !connection.is_dead() {
                live.started = true;
                return Ok(());
            }
        }
        self.start_once(&mut live).await.map(drop)
    }

    /// One start, no retries: what entry and a first use do.
    async fn start_once(&self, live: &mut Live) -> Result<Arc<Connection>, McpError> {
        live.connection = None;
        match self.connect().await {
            Ok(connection) => {
                live.started = true;
                live.connection = Some(Arc::clone(&connection));
                Ok(connection)
            }
            Err(error) => {
                live.last_failure = Some(error.to_string());
                Err(error)
            }
        }
    }

    /// Closes the connection and stops the server's process group.
    pub(crate) async fn stop(&self) {
        let taken = {
            let mut live = self.live.lock().await;
            live.started = false;
            live.connection.take()
        };
        if let Some(connection) = taken {
            // A call still holding it keeps it until it returns; the last
            // holder's drop kills the group.
            if let Ok(connection) = Arc::try_unwrap(connection) {
                connection.close().await;
            }
        }
    }

    /// The offered tools, starting the server if it is not running.
    pub(crate) async fn describe(&self) -> Result<Vec<McpToolInfo>, McpError> {
        self.connection().await?;
        Ok(self
            .snapshot()
            .tools
            .iter()
            .map(|tool| McpToolInfo {
                name: tool.mapped.clone(),
                server_name: tool.server_name.clone(),
                description: tool.definition.description.clone(),
                hints: tool.hints,
                approval_required: tool.facts.approval_required,
            })
            .collect())
    }

    /// Calls the server's tool behind `mapped`, its progress reported through `ctx`.
    pub(crate) async fn call(
        &self,
        mapped: &str,
        arguments: &Value,
        ctx: &ToolContext,
    ) -> Result<ToolResult, ToolError> {
        let arguments = match arguments {
            Value::Object(map) => Some(map.clone()),
            Value::Null => None,
            _ => {
                return Err(ToolError::invalid_arguments(
                    mapped,
                    "the arguments must be a JSON object",
                ))
            }
        };
        let connection = self
            .connection()
            .await
            .map_err(ToolError::execution_caused_by)?;
        let snapshot = self.snapshot();
        let Some(tool) = snapshot.get(mapped) else {
            return Err(ToolError::feedback(format!(
                "the MCP server `{}` no longer offers tool `{mapped}`",
                self.spec.name
            )));
        };
        let timeout = self.spec.call_timeout;
        let report = |params: ProgressNotificationParam| ctx.report_progress(progress_of(params));
        // The request to the server, a client span inside the call's `execute_tool` span.
        let span = tracing::info_span!(
            target: starweaver_core::telemetry::TRACE_TARGET,
            "tools/call",
            otel.name = format!("tools/call {}", tool.server_name),
            otel.kind = "client",
            otel.status_code = tracing::field::Empty,
            mcp.method.name = "tools/call",
            gen_ai.tool.name = tool.server_name.as_str(),
            gen_ai.operation.name = "execute_tool",
            starweaver.mcp.server = self.spec.name.as_str(),
            error.type = tracing::field::Empty,
        );
        let called = connection
            .call(&tool.server_name, arguments, timeout, report)
            .instrument(span.clone())
            .await;
        if let Err(failure) = &called {
            span.record("otel.status_code", "error");
            span.record(
                "error.type",
                match failure {
                    CallFailure::Server(_) => "tool_error",
                    CallFailure::Timeout => "timeout",
                    CallFailure::Connection(_) => "connection",
                },
            );
        }
        match called {
            Ok(result) => {
                self.restarts.store(0, Ordering::Release);
                to_tool_result(&result, tool.output.as_ref())
            }
            Err(CallFailure::Server(text)) => Err(ToolError::feedback(text)),
            Err(CallFailure::Timeout) => Err(ToolError::Timeout {
                tool: mapped.to_string(),
                timeout_ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
            }),
            Err(CallFailure::Connection(error)) => {
                self.live.lock().await.last_failure = Some(error.to_string());
                Err(ToolError::execution_caused_by(error))
            }
        }
    }

    /// A live connection with a fresh tool list: the current one, or a
    /// restarted server (with backoff) when it died, until the restarts
    /// are used up.
    async fn connection(&self) -> Result<Arc<Connection>, McpError> {
        let mut live = self.live.lock().await;
        if !live.started {
            return self.start_once(&mut live).await;
        }
        if let Some(connection) = &live.connection {
            if !connection.is_dead() {
                let connection = Arc::clone(connection);
                if self.changes.is_stale() {
                    self.list(&connection).await?;
                }
                return Ok(connection);
            }
            if live.last_failure.is_none() {
                live.last_failure = Some("the connection closed".to_string());
            }
        }
        live.connection = None;
        loop {
            if self.is_unavailable() {
                return Err(self.unavailable_error(&live));
            }
            let tried = self.restarts.load(Ordering::Acquire);
            if tried >= MAX_RESTARTS {
                self.unavailable.store(true, Ordering::Release);
                return Err(self.unavailable_error(&live));
            }
            self.restarts.store(tried + 1, Ordering::Release);
            tokio::time::sleep(backoff(tried)).await;
            match self.connect().await {
                Ok(connection) => {
                    live.connection = Some(Arc::clone(&connection));
                    return Ok(connection);
                }
                Err(error) => live.last_failure = Some(error.to_string()),
            }
        }
    }

    fn unavailable_error(&self, live: &Live) -> McpError {
        McpError::Unavailable {
            toolset: self.spec.name.clone(),
            restarts: self.restarts.load(Ordering::Acquire),
            last: live
                .last_failure
                .clone()
                .unwrap_or_else(|| "it failed".to_string()),
        }
    }

    /// Starts the server and lists its tools, both within the startup
    /// bound.
    async fn connect(&self) -> Result<Arc<Connection>, McpError> {
        let bound = self.spec.startup_timeout;
        let started = tokio::time::Instant::now();
        let connection = Connection::open(&self.spec, bound, &self.changes).await?;
        let connection = Arc::new(connection);
        let left = bound.saturating_sub(started.elapsed());
        self.list_within(&connection, left, bound).await?;
        Ok(connection)
    }

    /// Lists the server's tools and replaces the snapshot.
    async fn list(&self, connection: &Connection) -> Result<(), McpError> {
        let bound = self.spec.startup_timeout;
        self.list_within(connection, bound, bound).await
    }

    /// Lists within `left` (reported as the whole `bound` when it passes). A list that
    /// cannot be offered (a name collision, a `tools:` name missing) replaces the snapshot
    /// with an empty one: its tools cannot be mapped safely. A list that cannot be read keeps
    /// the last one. Either way the change counts as read; the next one reads again.
    async fn list_within(
        &self,
        connection: &Connection,
        left: Duration,
        bound: Duration,
    ) -> Result<(), McpError> {
        let generation = self.changes.begin_read();
        let listed = connection.list_tools(left, bound).await;
        let offered = listed.and_then(|listed| {
            offer(&self.spec, &listed).inspect_err(|_| self.replace(Snapshot::default()))
        });
        let outcome = offered.map(|snapshot| self.replace(snapshot));
        self.changes.finish_read(generation);
        outcome
    }

    fn replace(&self, snapshot: Snapshot) {
        *self
            .snapshot
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(snapshot);
    }
}

/// A server's progress notification as a tool's progress update.
fn progress_of(params: ProgressNotificationParam) -> ToolProgress {
    let mut update = ToolProgress::new(params.progress);
    if let Some(total) = params.total {
        update = update.with_total(total);
    }
    if let Some(message) = params.message {
        update = update.with_message(message);
    }
    update
}

/// The wait before restart number `tried + 1`.
fn backoff(tried: u32) -> Duration {
    FIRST_BACKOFF
        .saturating_mul(2_u32.saturating_pow(tried))
        .min(MAX_BACKOFF)
}

/// The offered tools of a listing: only those `tools:` names (every one
/// of which must be listed), mapped, with approvals and definitions.
fn offer(spec: &McpServerSpec, listed: &[rmcp::model::Tool]) -> Result<Snapshot, McpError> {
    let listed = &listed[..listed.len().min(MAX_TOOLS)];
    let chosen: Vec<&rmcp::model::Tool> = match &spec.tools {
        None => listed.iter().collect(),
        Some(names) => {
            let mut chosen = Vec::with_capacity(names.len());
            for name in names {
                let found = listed.iter().find(|tool| tool.name == name.as_str());
                match found {
                    Some(tool) => chosen.push(tool),
                    None => {
                        return Err(McpError::MissingTool {
                            toolset: spec.name.clone(),
                            missing: name.clone(),
                            available: listed
                                .iter()
                                .take(50)
                                .map(|tool| tool.name.to_string())
                                .collect(),
                        })
                    }
                }
            }
            chosen
        }
    };
    let prefix = spec.prefix.as_deref();
    // Fails when two names collide.
    let table = NameTable::build(
        &spec.name,
        chosen.iter().map(|tool| tool.name.as_ref()),
        prefix,
    )?;
    let tools = chosen
        .into_iter()
        .map(|tool| Arc::new(offered(spec, tool)))
        .collect();
    Ok(Snapshot { tools, table })
}

fn offered(spec: &McpServerSpec, tool: &rmcp::model::Tool) -> OfferedTool {
    let server_name = tool.name.to_string();
    let mapped = map_tool_name(spec.prefix.as_deref(), &server_name);
    let hints = McpToolHints {
        read_only: tool
            .annotations
            .as_ref()
            .and_then(|hints| hints.read_only_hint),
        destructive: tool
            .annotations
            .as_ref()
            .and_then(|hints| hints.destructive_hint),
    };
    let mut facts = ToolFacts::default();
    facts.approval_required = spec.approval.requires(&server_name, &hints);
    let description = tool
        .description
        .as_ref()
        .map(|text| text.chars().take(MAX_DESCRIPTION_CHARS).collect::<String>());
    let mut definition =
        ToolDefinition::new(mapped.clone(), description, parameters(&tool.input_schema));
    definition.return_schema = tool
        .output_schema
        .as_ref()
        .map(|schema| Value::Object((**schema).clone()));
    facts.write_metadata(&mut definition.metadata);
    definition.metadata.insert(
        "mcp".to_string(),
        json!({
            "server": spec.name,
            "tool": server_name,
            "read_only_hint": hints.read_only,
            "destructive_hint": hints.destructive,
        }),
    );
    let output = definition
        .return_schema
        .as_ref()
        .and_then(|schema| jsonschema::validator_for(schema).ok());
    OfferedTool {
        mapped,
        server_name,
        definition,
        facts,
        hints,
        output,
    }
}

/// The argument schema as the registry takes it: an object schema with
/// `properties` (the providers' own adaptation happens when a request is
/// built, as for every tool).
fn parameters(schema: &rmcp::model::JsonObject) -> Value {
    let mut schema = schema.clone();
    schema
        .entry("type")
        .or_insert_with(|| Value::from("object"));
    if schema.get("type").and_then(Value::as_str) == Some("object") {
        schema
            .entry("properties")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
    }
    Value::Object(schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_is_capped_at_five_seconds() {
        assert_eq!(backoff(0), Duration::from_millis(250));
        assert_eq!(backoff(1), Duration::from_millis(500));
        assert_eq!(backoff(10), MAX_BACKOFF);
        assert_eq!(backoff(u32::MAX), MAX_BACKOFF);
    }
}

//! What every session of one server shares: the registry, the context its calls run in, the
//! options, and the one path every call takes (the registry's `execute_call`, the same
//! dispatch an agent run uses, so hooks, bounds, approvals, timeouts and cancellation are
//! the same whoever calls).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use rmcp::model::{CallToolResult, ErrorData, JsonObject, Tool};
use rmcp::service::{Peer, RequestContext};
use rmcp::RoleServer;
use serde_json::Value;
use starweaver_core::context::{AgentContextHandle, ConversationId, RunId};
use starweaver_core::model::{ToolCallPart, ToolReturnKind, ToolReturnPart};
use starweaver_core::tools::{
    ToolContext, ToolFacts, ToolProgressSink, ToolRegistry, ToolsetRefreshReport,
    HITL_ARGUMENTS_METADATA_KEY,
};
use tokio_util::sync::CancellationToken;

use super::approval::{ask, Decision};
use super::listing::{list, output_schema, Listing};
use super::progress::ProgressRelay;
use super::returns::{call_result, error};
use super::ServeOptions;

/// One server's state, shared by its sessions (one over stdio, any number over HTTP).
pub(crate) struct Shared {
    /// The registry as served now: replaced whole when a toolset's list changed, so a call in
    /// flight keeps the one it started with.
    registry: RwLock<Arc<ToolRegistry>>,
    pub(crate) context: AgentContextHandle,
    pub(crate) options: ServeOptions,
    /// The sessions' clients, told when the tool list changed.
    peers: Mutex<Vec<Peer<RoleServer>>>,
    run_id: RunId,
    conversation_id: ConversationId,
    calls: AtomicU64,
}

impl Shared {
    pub(crate) fn new(
        registry: ToolRegistry,
        context: AgentContextHandle,
        options: ServeOptions,
    ) -> Self {
        Self {
            registry: RwLock::new(Arc::new(registry)),
            context,
            options,
            peers: Mutex::new(Vec::new()),
            run_id: RunId::default(),
            conversation_id: ConversationId::default(),
            calls: AtomicU64::new(0),
        }
    }

    /// The registry as served now.
    pub(crate) fn registry(&self) -> Arc<ToolRegistry> {
        self.registry
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// A session's client, to tell when the tool list changes.
    pub(crate) fn add_peer(&self, peer: Peer<RoleServer>) {
        let mut peers = self.peers.lock().unwrap_or_else(PoisonError::into_inner);
        peers.retain(|known| !known.is_transport_closed());
        peers.push(peer);
    }

    /// Waits until a served toolset's tool list changes (a re-served MCP server announced a
    /// new one), reads it again, serves the new registry and tells every client
    /// (`notifications/tools/list_changed`). Never returns for a registry whose lists cannot
    /// change; the server aborts it when it stops.
    pub(crate) async fn follow_list_changes(&self) {
        loop {
            let current = self.registry();
            current.tool_list_change().await;
            let mut fresh = (*current).clone();
            let reports: Vec<ToolsetRefreshReport> = fresh.refresh_toolsets().await;
            let still_behind = fresh.tool_lists_changed();
            *self
                .registry
                .write()
                .unwrap_or_else(PoisonError::into_inner) = Arc::new(fresh);
            if !reports.is_empty() {
                let peers: Vec<Peer<RoleServer>> = self
                    .peers
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone();
                for peer in peers {
                    // A client that left needs no telling.
                    let _ = peer.notify_tool_list_changed().await;
                }
            }
            if still_behind {
                // A list that cannot be read yet (its server is restarting): try again later
                // instead of at once.
                tokio::time::sleep(RETRY_READ).await;
            }
        }
    }

    /// The registry's tools as served now, without the agent tool.
    pub(crate) fn listing(&self) -> Listing {
        let registry = self.registry();
        self.context.read(|context| list(&registry, context))
    }

    /// Every served tool, the agent tool last.
    pub(crate) fn tools(&self) -> Vec<Tool> {
        let mut tools = self.listing().tools;
        if let Some(agent) = &self.options.agent {
            tools.push(agent.describe());
        }
        tools
    }

    /// Runs one `tools/call`. A tool's failure is an error result; only a name that is not
    /// served is a protocol error (MCP's "unknown tool").
    pub(crate) async fn call(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        request: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Some(agent) = self
            .options
            .agent
            .as_ref()
            .filter(|agent| agent.name() == name)
        {
            let progress = request
                .meta
                .get_progress_token()
                .map(|token| (request.peer.clone(), token));
            return Ok(agent
                .call(
                    arguments.as_ref(),
                    self.options.approve_all,
                    request.ct.clone(),
                    progress,
                )
                .await);
        }
        let registry = self.registry();
        if registry.facts(name).is_some_and(ToolFacts::is_deferred) {
            return Err(ErrorData::invalid_params(
                format!(
                    "`{name}` is not served: it is deferred (its calls wait for an outside \
                     worker, which an MCP call cannot wait for)"
                ),
                None,
            ));
        }
        let arguments = Value::Object(arguments.unwrap_or_default());
        let id = format!("mcp-{}", self.calls.fetch_add(1, Ordering::Relaxed));
        let cancel = request.ct.clone();
        // The client's token, when it asked for progress: what the tool reports goes to it.
        let relay = request
            .meta
            .get_progress_token()
            .map(|token| ProgressRelay::start(request.peer.clone(), token));
        let progress = relay.as_ref().map(ProgressRelay::sink);
        let call = ToolCallPart::new(id.clone(), name, arguments.clone());
        let part = registry
            .execute_call(self.tool_context(&cancel, progress.clone()), &call)
            .await;
        if part.kind == ToolReturnKind::NotFound && registry.get(name).is_none() {
            return Err(ErrorData::invalid_params(message(&part), None));
        }
        let part = if part.kind == ToolReturnKind::ApprovalRequired {
            match self.approve(name, &arguments, request).await {
                Decision::Approved => {
                    let ctx = self.tool_context(&cancel, progress);
                    run_approved(&registry, ctx, &id, name, arguments).await
                }
                Decision::Refused(reason) => return Ok(error(reason)),
                Decision::CannotAsk => {
                    return Ok(error(format!(
                        "`{name}` requires approval, and this client cannot be asked (it does \
                         not support elicitation); it did not run. Start the server with --yes \
                         to approve every call"
                    )))
                }
            }
        } else {
            part
        };
        if let Some(relay) = relay {
            relay.finish().await;
        }
        // Nothing reads the context's event log here (a run would forward it to its
        // observer): drop what the call published, so a long-lived server does not grow.
        self.context.update(|context| drop(context.events.drain()));
        let structured = registry.definition(name).and_then(output_schema).is_some();
        Ok(call_result(part, structured))
    }

    /// Whether a call that needs approval may run: `--yes`, else the client's user.
    async fn approve(
        &self,
        name: &str,
        arguments: &Value,
        request: &RequestContext<RoleServer>,
    ) -> Decision {
        if self.options.approve_all {
            return Decision::Approved;
        }
        tokio::select! {
            decision = ask(&request.peer, name, arguments) => decision,
            () = request.ct.cancelled() => Decision::Refused(format!("`{name}` was cancelled")),
        }
    }

    /// The context one call runs with: the shared agent context (environment, process shell,
    /// grants), and the client's cancellation.
    fn tool_context(
        &self,
        cancel: &CancellationToken,
        progress: Option<ToolProgressSink>,
    ) -> ToolContext {
        let ctx = ToolContext::new(self.run_id.clone(), self.conversation_id.clone(), 0)
            .with_agent_context(self.context.clone())
            .with_cancellation(cancel.clone());
        match progress {
            Some(sink) => ctx.with_progress_sink(sink),
            None => ctx,
        }
    }
}

/// How long the server waits before reading again a tool list it could not read.
const RETRY_READ: std::time::Duration = std::time::Duration::from_secs(1);

/// Runs an approved call as a resumed agent run does: the tool's user-input preprocessor
/// first (with no input), then the call, marked approved.
async fn run_approved(
    registry: &ToolRegistry,
    ctx: ToolContext,
    id: &str,
    name: &str,
    arguments: Value,
) -> ToolReturnPart {
    let ctx = ctx
        .with_approved(true)
        .with_metadata(HITL_ARGUMENTS_METADATA_KEY, arguments.clone());
    let arguments = match registry
        .preprocess_user_input(ctx.clone(), id, name, Value::Null)
        .await
    {
        Ok(Some(preprocessed)) => preprocessed.override_arguments.unwrap_or(arguments),
        Ok(None) => arguments,
        Err(problem) => {
            return ToolReturnPart {
                tool_call_id: id.into(),
                tool_name: name.into(),
                content: serde_json::json!({"message": problem.to_string()}),
                kind: ToolReturnKind::UserError,
                metadata: Default::default(),
                private_metadata: Default::default(),
            }
        }
    };
    let call = ToolCallPart::new(id, name, arguments);
    registry.execute_call(ctx, &call).await
}

/// The message of an error return.
fn message(part: &ToolReturnPart) -> String {
    part.content
        .get("message")
        .and_then(Value::as_str)
        .map_or_else(|| part.content.to_string(), str::to_string)
}

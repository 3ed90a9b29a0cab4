//! What every session of one server shares: the registry, the context its calls run in, the
//! options, and the one path every call takes (the registry's `execute_call`, the same
//! dispatch an agent run uses, so hooks, bounds, approvals, timeouts and cancellation are
//! the same whoever calls).

use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::{CallToolResult, ErrorData, JsonObject, Tool};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde_json::Value;
use starweaver_core::context::{AgentContextHandle, ConversationId, RunId};
use starweaver_core::model::{ToolCallPart, ToolReturnKind, ToolReturnPart};
use starweaver_core::tools::{ToolContext, ToolFacts, ToolRegistry, HITL_ARGUMENTS_METADATA_KEY};
use tokio_util::sync::CancellationToken;

use super::approval::{ask, Decision};
use super::listing::{list, output_schema, Listing};
use super::returns::{call_result, error};
use super::ServeOptions;

/// One server's state, shared by its sessions (one over stdio, any number over HTTP).
pub(crate) struct Shared {
    pub(crate) registry: ToolRegistry,
    pub(crate) context: AgentContextHandle,
    pub(crate) options: ServeOptions,
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
            registry,
            context,
            options,
            run_id: RunId::default(),
            conversation_id: ConversationId::default(),
            calls: AtomicU64::new(0),
        }
    }

    /// The registry's tools as served now, without the agent tool.
    pub(crate) fn listing(&self) -> Listing {
        self.context.read(|context| list(&self.registry, context))
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
        if self
            .registry
            .facts(name)
            .is_some_and(ToolFacts::is_deferred)
        {
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
        let call = ToolCallPart::new(id.clone(), name, arguments.clone());
        let part = self
            .registry
            .execute_call(self.tool_context(&cancel), &call)
            .await;
        if part.kind == ToolReturnKind::NotFound && self.registry.get(name).is_none() {
            return Err(ErrorData::invalid_params(message(&part), None));
        }
        let part = if part.kind == ToolReturnKind::ApprovalRequired {
            match self.approve(name, &arguments, request).await {
                Decision::Approved => self.run_approved(&id, name, arguments, &cancel).await?,
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
        // Nothing reads the context's event log here (a run would forward it to its
        // observer): drop what the call published, so a long-lived server does not grow.
        self.context.update(|context| drop(context.events.drain()));
        let structured = self
            .registry
            .definition(name)
            .and_then(output_schema)
            .is_some();
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

    /// Runs an approved call as a resumed agent run does: the tool's user-input preprocessor
    /// first (with no input), then the call, marked approved.
    async fn run_approved(
        &self,
        id: &str,
        name: &str,
        arguments: Value,
        cancel: &CancellationToken,
    ) -> Result<ToolReturnPart, ErrorData> {
        let ctx = self
            .tool_context(cancel)
            .with_approved(true)
            .with_metadata(HITL_ARGUMENTS_METADATA_KEY, arguments.clone());
        let arguments = match self
            .registry
            .preprocess_user_input(ctx.clone(), id, name, Value::Null)
            .await
        {
            Ok(Some(preprocessed)) => preprocessed.override_arguments.unwrap_or(arguments),
            Ok(None) => arguments,
            Err(problem) => {
                return Ok(ToolReturnPart {
                    tool_call_id: id.to_string(),
                    tool_name: name.to_string(),
                    content: serde_json::json!({"message": problem.to_string()}),
                    kind: ToolReturnKind::UserError,
                    metadata: Default::default(),
                    private_metadata: Default::default(),
                })
            }
        };
        let call = ToolCallPart::new(id, name, arguments);
        Ok(self.registry.execute_call(ctx, &call).await)
    }

    /// The context one call runs with: the shared agent context (environment, process shell,
    /// grants), and the client's cancellation.
    fn tool_context(&self, cancel: &CancellationToken) -> ToolContext {
        ToolContext::new(self.run_id.clone(), self.conversation_id.clone(), 0)
            .with_agent_context(self.context.clone())
            .with_cancellation(cancel.clone())
    }
}

/// The message of an error return.
fn message(part: &ToolReturnPart) -> String {
    part.content
        .get("message")
        .and_then(Value::as_str)
        .map_or_else(|| part.content.to_string(), str::to_string)
}

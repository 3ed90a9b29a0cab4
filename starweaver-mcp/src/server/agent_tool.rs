//! `run_<name>`: the agent itself as one served tool. A call runs the agent on its own model
//! with the given prompt and answers with its final text; each step it takes is an MCP
//! progress notification when the client asked for progress.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, ProgressNotificationParam, Tool};
use rmcp::model::{ProgressToken, ToolAnnotations};
use rmcp::service::Peer;
use rmcp::RoleServer;
use serde_json::{json, Value};
use starweaver_core::agent::{
    Agent, AgentError, AgentHitlRequestKind, AgentHitlResults, AgentHitlUserInteraction,
    AgentRunOptions, AgentRunResult, AgentRunStatus, AgentSession, AgentStreamEvent,
    AgentStreamRecord,
};
use starweaver_core::context::AgentContext;
use tokio_util::sync::CancellationToken;

use super::returns::error;

/// The prefix of the agent tool's name.
const PREFIX: &str = "run_";
/// Longest tool name providers (and so every served tool) accept.
const MAX_NAME_CHARS: usize = 64;
/// How many times one call resumes a run after approving what it waits for (`--yes`), so a
/// run that keeps asking cannot loop forever; its step limit usually ends it first.
const MAX_RESUMES: usize = 32;

/// The agent as a served tool: its model, tools and policies, and the context (environment,
/// process shell, dependencies) each run starts from.
#[derive(Clone)]
pub struct AgentTool {
    name: String,
    description: String,
    agent: Agent,
    context: AgentContext,
}

impl std::fmt::Debug for AgentTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentTool")
            .field("name", &self.name)
            .field("agent", &self.agent)
            .finish_non_exhaustive()
    }
}

impl AgentTool {
    /// The tool `run_<agent_name>` (characters a tool name cannot hold become `_`, and the
    /// name is cut to 64 characters) running `agent`, each call in a copy of `context`.
    #[must_use]
    pub fn new(agent_name: &str, agent: Agent, context: AgentContext) -> Self {
        let mut name: String = PREFIX.to_string();
        name.extend(agent_name.chars().map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        }));
        name.truncate(MAX_NAME_CHARS);
        Self {
            description: format!(
                "Runs the agent `{agent_name}` on its own model with the prompt and returns its \
                 final answer."
            ),
            name,
            agent,
            context,
        }
    }

    /// Replaces the generated description (with the manifest's `description`, say).
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// The served name, `run_<agent>`.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tool as MCP describes it: one required `prompt`.
    pub(crate) fn describe(&self) -> Tool {
        let schema = json!({
            "type": "object",
            "properties": {
                "prompt": {"type": "string", "description": "What to ask the agent."}
            },
            "required": ["prompt"],
            "additionalProperties": false
        });
        let schema = match schema {
            Value::Object(schema) => schema,
            _ => JsonObject::new(),
        };
        let mut tool = Tool::new_with_raw(
            self.name.clone(),
            Some(self.description.clone().into()),
            Arc::new(schema),
        );
        tool.annotations = Some(ToolAnnotations::new().open_world(true));
        tool
    }

    /// Runs the agent on the `prompt` argument until it answers, is cancelled, or waits for
    /// something this call cannot give. With `approve_all`, calls waiting for approval are
    /// approved and the run goes on.
    pub(crate) async fn call(
        &self,
        arguments: Option<&JsonObject>,
        approve_all: bool,
        cancel: CancellationToken,
        progress: Option<(Peer<RoleServer>, ProgressToken)>,
    ) -> CallToolResult {
        let Some(prompt) = arguments
            .and_then(|arguments| arguments.get("prompt"))
            .and_then(Value::as_str)
        else {
            return error(format!(
                "`{}` needs a `prompt` string: {{\"prompt\": \"...\"}}",
                self.name
            ));
        };
        let (sender, forwarder) = match progress {
            Some((peer, token)) => {
                let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
                (
                    Some(sender),
                    Some(tokio::spawn(forward(peer, token, receiver))),
                )
            }
            None => (None, None),
        };
        let mut sink = move |record: &AgentStreamRecord| {
            if let (Some(sender), Some(message)) = (&sender, step_message(&record.event)) {
                let _ = sender.send(message);
            }
        };
        let mut session = AgentSession::new(self.agent.clone()).with_context(self.context.clone());
        let options = || AgentRunOptions::new().cancellation(cancel.clone());
        let mut outcome = session
            .run_with_events(prompt.to_string(), options(), &mut sink)
            .await;
        let mut resumes = 0;
        while let Ok(result) = &outcome {
            let Some(approvals) = approve_all
                .then(|| approvals(result))
                .flatten()
                .filter(|_| resumes < MAX_RESUMES)
            else {
                break;
            };
            resumes += 1;
            outcome = session
                .resume_with_options(approvals, options(), &mut sink)
                .await;
        }
        drop(sink);
        if let Some(forwarder) = forwarder {
            // Every progress notification goes out before the result.
            let _ = forwarder.await;
        }
        match outcome {
            Ok(result) if result.status == AgentRunStatus::Completed => {
                match result.structured_output {
                    // An agent with an output schema answers with the validated object (MCP's
                    // structured content is an object; any other value goes as its JSON text).
                    Some(value) if value.is_object() => CallToolResult::structured(value),
                    Some(value) => {
                        CallToolResult::success(vec![ContentBlock::text(value.to_string())])
                    }
                    None => CallToolResult::success(vec![ContentBlock::text(result.output)]),
                }
            }
            Ok(result) => error(waiting_message(&self.name, &result, approve_all)),
            Err(AgentError::Cancelled) => error(format!("`{}` was cancelled", self.name)),
            Err(problem) => error(format!("the agent's run failed: {problem}")),
        }
    }
}

/// Approvals for every call the run waits on, or `None` when it waits on something else too
/// (a deferred result this call cannot give).
fn approvals(result: &AgentRunResult) -> Option<AgentHitlResults> {
    if result.status != AgentRunStatus::Waiting
        || result.pending.is_empty()
        || result
            .pending
            .iter()
            .any(|request| request.kind != AgentHitlRequestKind::Approval)
    {
        return None;
    }
    Some(
        result
            .pending
            .iter()
            .fold(AgentHitlResults::new(), |results, request| {
                results.with_interaction(AgentHitlUserInteraction::approved(
                    request.tool_call_id.clone(),
                ))
            }),
    )
}

/// Why a run that stopped waiting is an error here.
fn waiting_message(name: &str, result: &AgentRunResult, approve_all: bool) -> String {
    let tools: Vec<&str> = result
        .pending
        .iter()
        .map(|request| request.tool_name.as_str())
        .collect();
    let deferred = result
        .pending
        .iter()
        .any(|request| request.kind == AgentHitlRequestKind::Deferred);
    if deferred || approve_all {
        format!(
            "`{name}` stopped waiting for results an outside worker must give ({}); run the \
             agent with `starweaver run` to answer them",
            tools.join(", ")
        )
    } else {
        format!(
            "`{name}` stopped: its run waits for approval of {}; serve with --yes to approve \
             the agent's calls",
            tools.join(", ")
        )
    }
}

/// The progress message for one run record, if it is a step worth reporting.
fn step_message(event: &AgentStreamEvent) -> Option<String> {
    match event {
        AgentStreamEvent::ModelRequest { step, .. } => {
            Some(format!("step {step}: asking the model"))
        }
        AgentStreamEvent::ToolCall { call } => Some(format!("calling `{}`", call.name)),
        AgentStreamEvent::ToolReturn { part } => Some(format!("`{}` returned", part.tool_name)),
        AgentStreamEvent::Waiting { .. } => Some("waiting for approval".to_string()),
        AgentStreamEvent::RunCompleted { .. } => Some("answered".to_string()),
        _ => None,
    }
}

/// Sends each message as a progress notification, counting up, until the run ends.
async fn forward(
    peer: Peer<RoleServer>,
    token: ProgressToken,
    mut messages: tokio::sync::mpsc::UnboundedReceiver<String>,
) {
    let mut progress = 0.0;
    while let Some(message) = messages.recv().await {
        progress += 1.0;
        let notification =
            ProgressNotificationParam::new(token.clone(), progress).with_message(message);
        if peer.notify_progress(notification).await.is_err() {
            // The client is gone; the run ends on its own cancellation.
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use starweaver_core::model::TestModel;

    #[test]
    fn the_name_is_run_and_a_tool_name_safe_agent_name() {
        let agent =
            starweaver_core::agent::AgentBuilder::new(Arc::new(TestModel::with_text("hi"))).build();
        let tool = AgentTool::new("repo helper.v2", agent.clone(), AgentContext::default());
        assert_eq!(tool.name(), "run_repo_helper_v2");
        let long = AgentTool::new(&"a".repeat(100), agent, AgentContext::default());
        assert_eq!(long.name().len(), MAX_NAME_CHARS);
    }
}

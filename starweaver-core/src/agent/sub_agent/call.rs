//! One call of a sub-agent's tool: a fresh session runs the task, or the saved session of a
//! call that waited continues with the answers; what it ends with becomes the call's result.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::pause::{self, Resume};
use super::{SubAgent, SUB_AGENT_KEY};
use crate::agent::{
    AgentError, AgentRunOptions, AgentRunResult, AgentSession, AgentStreamEvent, AgentStreamRecord,
};
use crate::environment::{attached_environment, attached_process_shell};
use crate::model::Usage;
use crate::tools::{NestedRecord, NestedRecordSink, ToolContext, ToolError, ToolResult};

/// The argument that carries the task.
pub(super) const TASK_ARGUMENT: &str = "task";

/// Runs one call.
pub(super) async fn run(
    sub: &SubAgent,
    ctx: ToolContext,
    arguments: Value,
) -> Result<ToolResult, ToolError> {
    let vars = call_vars(sub, &arguments);
    let mut options = AgentRunOptions::new();
    if let Some(token) = ctx.cancellation_token() {
        options = options.cancellation(token.clone());
    }
    if let Some(render) = &sub.instructions {
        match render(&vars) {
            Ok(Some(text)) => options = options.instructions(text),
            Ok(None) => {}
            Err(message) => {
                return Err(ToolError::Feedback {
                    message: format!(
                        "the `{}` agent's instructions do not render with these values: {message}",
                        sub.name
                    ),
                    details: Some(json!({"error": "instructions"})),
                })
            }
        }
    }
    let resume = match ctx.deferred_result() {
        Some(value) => Some(
            Resume::from_value(value).map_err(|message| ToolError::UserError {
                message: format!("the `{}` agent cannot continue: {message}", sub.name),
            })?,
        ),
        None => None,
    };
    let (mut session, before) = match &resume {
        Some(resume) => {
            let session = session_of(sub, Some(resume.state.clone()));
            let before = session.context().usage;
            (session, before)
        }
        None => (session_of(sub, None), Usage::default()),
    };
    let mut forward = ctx
        .nested_sink()
        .cloned()
        .map(|sink| Forward::new(sink, sub.name(), ctx.tool_call_id()));
    let outcome = match (resume, forward.as_mut()) {
        (Some(resume), Some(forward)) => {
            let mut sink = |record: &AgentStreamRecord| forward.send(record);
            session
                .resume_with_options(resume.results, options, &mut sink)
                .await
        }
        (Some(resume), None) => {
            let mut quiet = |_: &AgentStreamRecord| {};
            session
                .resume_with_options(resume.results, options, &mut quiet)
                .await
        }
        (None, Some(forward)) => {
            let mut sink = |record: &AgentStreamRecord| forward.send(record);
            session
                .run_with_events(task(&arguments), options, &mut sink)
                .await
        }
        (None, None) => session.run_with_options(task(&arguments), options).await,
    };
    let usage = added_usage(&session, before);
    finish(sub, &ctx, &session, outcome, usage)
}

/// What the call ends with: the answer, a pause the calling run waits on, or a failure the
/// calling model reads. Each carries the usage the sub-agent's run added.
fn finish(
    sub: &SubAgent,
    ctx: &ToolContext,
    session: &AgentSession,
    outcome: Result<AgentRunResult, AgentError>,
    usage: Usage,
) -> Result<ToolResult, ToolError> {
    let record = json!({"agent": sub.name(), "usage": usage});
    match outcome {
        Ok(result) if result.is_waiting() => Err(pause::paused(
            sub.name(),
            ctx.tool_name(),
            session.export_state(),
            usage,
        )),
        Ok(result) => {
            let content = result
                .structured_output
                .unwrap_or(Value::String(result.output));
            Ok(ToolResult::new(content).with_private_metadata(SUB_AGENT_KEY, record))
        }
        Err(AgentError::Cancelled) => Err(ToolError::Cancelled {
            tool: ctx.tool_name().to_string(),
        }
        .with_private_metadata(SUB_AGENT_KEY, record)),
        Err(error) => Err(ToolError::Feedback {
            message: format!(
                "the `{}` agent stopped without an answer: {error}",
                sub.name
            ),
            details: Some(json!({"error": "sub_agent_failed"})),
        }
        .with_private_metadata(SUB_AGENT_KEY, record)),
    }
}

/// The task of a fresh call (the schema made it a string).
fn task(arguments: &Value) -> String {
    arguments
        .get(TASK_ARGUMENT)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The declared variables the call set.
fn call_vars(sub: &SubAgent, arguments: &Value) -> BTreeMap<String, String> {
    sub.vars
        .iter()
        .filter_map(|(name, _)| {
            let value = arguments.get(name)?.as_str()?;
            Some((name.clone(), value.to_string()))
        })
        .collect()
}

/// A session of the sub-agent: fresh, or restored from a call that waited, with its
/// environment attached either way.
fn session_of(sub: &SubAgent, state: Option<crate::agent::AgentSessionState>) -> AgentSession {
    let template = sub.context.as_ref();
    let mut session = match (state, template) {
        (Some(state), _) => AgentSession::restore(sub.agent.clone(), state),
        (None, Some(template)) => {
            AgentSession::new(sub.agent.clone()).with_context(template.clone())
        }
        (None, None) => AgentSession::new(sub.agent.clone()),
    };
    let environment = sub
        .environment
        .clone()
        .or_else(|| template.and_then(attached_environment));
    if let Some(provider) = environment {
        session = session.with_environment(provider);
    }
    let process_shell = sub
        .process_shell
        .clone()
        .or_else(|| template.and_then(attached_process_shell));
    if let Some(provider) = process_shell {
        session = session.with_process_shell(provider);
    }
    session
}

/// What the sub-agent's run added to its session's usage since `before`.
fn added_usage(session: &AgentSession, before: Usage) -> Usage {
    let now = session.context().usage;
    Usage {
        requests: now.requests.saturating_sub(before.requests),
        input_tokens: now.input_tokens.saturating_sub(before.input_tokens),
        output_tokens: now.output_tokens.saturating_sub(before.output_tokens),
        tool_calls: now.tool_calls.saturating_sub(before.tool_calls),
    }
}

/// Hands the sub-agent's records to the calling run, each under this sub-agent's name.
struct Forward {
    sink: NestedRecordSink,
    name: String,
    tool_call_id: String,
}

impl Forward {
    fn new(sink: NestedRecordSink, name: &str, tool_call_id: &str) -> Self {
        Self {
            sink,
            name: name.to_string(),
            tool_call_id: tool_call_id.to_string(),
        }
    }

    /// One record of the sub-agent's run, as the calling run reports it: the sub-agent's
    /// name first in the path; a record of a sub-agent further down keeps the rest of its
    /// path.
    fn send(&self, record: &AgentStreamRecord) {
        let (agent, event) = match &record.event {
            AgentStreamEvent::SubAgent { agent, event, .. } => {
                let mut path = Vec::with_capacity(agent.len() + 1);
                path.push(self.name.clone());
                path.extend(agent.iter().cloned());
                (path, event.clone())
            }
            event => (vec![self.name.clone()], Box::new(event.clone())),
        };
        let event = AgentStreamEvent::SubAgent {
            agent,
            tool_call_id: self.tool_call_id.clone(),
            event,
        };
        self.sink.deliver(NestedRecord(Box::new(event)));
    }
}

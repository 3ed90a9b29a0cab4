//! The spans of a run (see [`crate::telemetry`]): `invoke_agent <agent>` around each run
//! segment, `chat <model>` around each model request and `execute_tool <tool>` around each
//! call, attributed after the OpenTelemetry GenAI conventions. Attributes known only at the
//! end (usage, the return's kind, an error) are declared empty and recorded when known.

use tracing::field::Empty;
use tracing::Span;

use super::{AgentError, AgentHitlRequest};
use crate::context::ConversationId;
use crate::model::{
    DynModel, ModelMessage, ModelResponse, ProviderKind, ToolCallPart, ToolReturnKind,
    ToolReturnPart, Usage,
};
use crate::telemetry::{content, content_capture, traced, TRACE_TARGET};

/// The provider a model's name names (`openai` for `openai:gpt-4o`), else the model's name
/// (`test`, `script`, a host's own), and the model's own name.
fn provider_and_model(model: &DynModel) -> (&str, &str) {
    let name = model.name();
    match ProviderKind::from_model_id(name) {
        Some((kind, model)) => (kind.prefix(), model),
        None => (name, name),
    }
}

/// The span of one run segment of the agent `agent` (unnamed agents: `invoke_agent`).
pub(crate) fn invoke_agent(
    agent: Option<&str>,
    model: &DynModel,
    conversation_id: &ConversationId,
) -> Span {
    if !traced() {
        return Span::none();
    }
    let (provider, _) = provider_and_model(model);
    let name = match agent {
        Some(agent) => format!("invoke_agent {agent}"),
        None => "invoke_agent".to_string(),
    };
    tracing::info_span!(
        target: TRACE_TARGET,
        "invoke_agent",
        otel.name = name,
        otel.kind = "internal",
        otel.status_code = Empty,
        otel.status_description = Empty,
        gen_ai.operation.name = "invoke_agent",
        gen_ai.agent.name = agent,
        gen_ai.conversation.id = %conversation_id,
        gen_ai.provider.name = provider,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        starweaver.run.id = Empty,
        starweaver.run.status = Empty,
        error.type = Empty,
    )
}

/// What a run segment ended with: its usage, whether it completed or waits, or its error.
pub(crate) fn run_ended(
    span: &Span,
    run_id: &str,
    usage: Option<&Usage>,
    outcome: Result<&'static str, &AgentError>,
) {
    if span.is_disabled() {
        return;
    }
    span.record("starweaver.run.id", run_id);
    if let Some(usage) = usage {
        span.record("gen_ai.usage.input_tokens", count(usage.input_tokens));
        span.record("gen_ai.usage.output_tokens", count(usage.output_tokens));
    }
    match outcome {
        Ok(status) => {
            span.record("starweaver.run.status", status);
        }
        Err(error) => {
            span.record("starweaver.run.status", "failed");
            failed(span, error_type(error), &error.to_string());
        }
    }
}

/// A counter as an attribute: OpenTelemetry integers are signed (a count past `i64::MAX`
/// saturates).
fn count(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// Marks `span` failed with `kind`; the message is the status description.
fn failed(span: &Span, kind: &str, message: &str) {
    span.record("otel.status_code", "error");
    span.record("otel.status_description", message);
    span.record("error.type", kind);
}

/// A short stable name for an agent error (`error.type`).
fn error_type(error: &AgentError) -> &'static str {
    match error {
        AgentError::Cancelled => "cancelled",
        AgentError::MaxStepsExceeded { .. } => "max_steps_exceeded",
        AgentError::TokenBudgetExceeded { .. } => "token_budget_exceeded",
        AgentError::Model(_) => "model_error",
        AgentError::OutputInvalid { .. } => "output_invalid",
        AgentError::ToolRetriesExhausted { .. } => "tool_retries_exhausted",
        _ => "agent_error",
    }
}

/// The span of one model request.
pub(crate) fn chat(model: &DynModel, step: u32, messages: &[ModelMessage]) -> Span {
    if !traced() {
        return Span::none();
    }
    let (provider, request_model) = provider_and_model(model);
    let span = tracing::info_span!(
        target: TRACE_TARGET,
        "chat",
        otel.name = format!("chat {request_model}"),
        otel.kind = "client",
        otel.status_code = Empty,
        otel.status_description = Empty,
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = provider,
        gen_ai.request.model = request_model,
        gen_ai.response.model = Empty,
        gen_ai.response.id = Empty,
        gen_ai.response.finish_reasons = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.input.messages = Empty,
        gen_ai.output.messages = Empty,
        server.address = model.server_address(),
        starweaver.step = i64::from(step),
        error.type = Empty,
    );
    if !span.is_disabled() && content_capture() {
        span.record("gen_ai.input.messages", content(&messages));
    }
    span
}

/// What a model request came back with: its usage, model and finish reason, or its error.
pub(crate) fn chat_ended(span: &Span, response: Result<&ModelResponse, &AgentError>) {
    if span.is_disabled() {
        return;
    }
    match response {
        Ok(response) => {
            span.record(
                "gen_ai.usage.input_tokens",
                count(response.usage.input_tokens),
            );
            span.record(
                "gen_ai.usage.output_tokens",
                count(response.usage.output_tokens),
            );
            if let Some(model) = &response.model_name {
                span.record("gen_ai.response.model", model.as_str());
            }
            if let Some(id) = &response.id {
                span.record("gen_ai.response.id", id.as_str());
            }
            if let Some(reason) = response.finish_reason {
                span.record("gen_ai.response.finish_reasons", content(&[reason]));
            }
            if content_capture() {
                span.record("gen_ai.output.messages", content(&response.parts));
            }
        }
        Err(error) => failed(span, error_type(error), &error.to_string()),
    }
}

/// The span of one tool call.
pub(crate) fn execute_tool(call: &ToolCallPart) -> Span {
    if !traced() {
        return Span::none();
    }
    let span = tracing::info_span!(
        target: TRACE_TARGET,
        "execute_tool",
        otel.name = format!("execute_tool {}", call.name),
        otel.kind = "internal",
        otel.status_code = Empty,
        otel.status_description = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = call.name.as_str(),
        gen_ai.tool.call.id = call.id.as_str(),
        gen_ai.tool.type = "function",
        gen_ai.tool.call.arguments = Empty,
        gen_ai.tool.call.result = Empty,
        starweaver.tool.return_kind = Empty,
        starweaver.tool.attempts = Empty,
        error.type = Empty,
    );
    if !span.is_disabled() && content_capture() {
        let arguments = match &call.arguments {
            crate::model::ToolCallArguments::Json(value) => content(value),
            crate::model::ToolCallArguments::Raw(text) => content(text),
        };
        span.record("gen_ai.tool.call.arguments", arguments);
    }
    span
}

/// What a tool call returned: its kind and attempts, approvals and deferrals as events, an
/// error's kind.
pub(crate) fn tool_returned(span: &Span, part: &ToolReturnPart) {
    if span.is_disabled() {
        return;
    }
    span.record("starweaver.tool.return_kind", part.kind.as_str());
    let attempts = part
        .metadata
        .get("retry")
        .and_then(|retry| retry.get("attempts"))
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(1);
    span.record("starweaver.tool.attempts", count(attempts));
    if content_capture() {
        span.record("gen_ai.tool.call.result", content(&part.content));
    }
    match part.kind {
        ToolReturnKind::ApprovalRequired => {
            let kind = AgentHitlRequest::from_return(part)
                .map(|request| request.request_kind().to_string())
                .unwrap_or_default();
            tracing::info!(
                target: TRACE_TARGET,
                parent: span,
                { starweaver.request.kind = kind },
                "approval_requested"
            );
        }
        ToolReturnKind::Deferred => {
            tracing::info!(target: TRACE_TARGET, parent: span, "call_deferred");
        }
        kind if kind.is_error() => {
            let message = part.content["message"].as_str().unwrap_or_default();
            failed(span, kind.as_str(), message);
        }
        _ => {}
    }
}

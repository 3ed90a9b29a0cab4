//! The `test` model: deterministic answers with no network and no key.

use std::collections::HashSet;

use serde_json::Value;

use super::recorded::{word_count, RequestLog};
use super::{
    sample_value, Model, ModelError, ModelMessage, ModelRequestParameters, ModelResponse,
    RecordedRequest, RequestPart, ResponsePart, ToolCallPart, Usage,
};
use crate::BoxFuture;

#[derive(Debug)]
enum Mode {
    Text(String),
    Script(Vec<ModelResponse>),
    Auto,
}

/// A model for tests and offline runs.
///
/// * [`TestModel::with_text`] always answers with the same text.
/// * [`TestModel::scripted`] answers with the given responses in order.
/// * [`TestModel::auto`] (the embedded `test` model of the CLI) calls every
///   exposed tool it has not called yet, with arguments generated from the
///   tool's schema, and once every tool was called answers with text built
///   from the tool returns.
///
/// Every request is recorded ([`TestModel::requests`]).
#[derive(Debug)]
pub struct TestModel {
    name: String,
    mode: Mode,
    log: RequestLog,
}

impl TestModel {
    /// Always answers `text`.
    pub fn with_text(text: impl Into<String>) -> Self {
        Self::new(Mode::Text(text.into()))
    }

    /// Answers with `responses`, one per request.
    pub fn scripted(responses: impl IntoIterator<Item = ModelResponse>) -> Self {
        Self::new(Mode::Script(responses.into_iter().collect()))
    }

    /// Calls every tool once, then summarises the returns.
    #[must_use]
    pub fn auto() -> Self {
        Self::new(Mode::Auto)
    }

    fn new(mode: Mode) -> Self {
        Self {
            name: "test".to_string(),
            mode,
            log: RequestLog::default(),
        }
    }

    /// Renames the model (default `test`).
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Requests received so far.
    #[must_use]
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.log.all()
    }

    fn respond(
        &self,
        index: usize,
        messages: &[ModelMessage],
        parameters: &ModelRequestParameters,
    ) -> Result<ModelResponse, ModelError> {
        match &self.mode {
            Mode::Text(text) => Ok(ModelResponse::text(text.clone())),
            Mode::Script(responses) => {
                responses
                    .get(index)
                    .cloned()
                    .ok_or_else(|| ModelError::ScriptExhausted {
                        model: self.name.clone(),
                        request: index + 1,
                    })
            }
            Mode::Auto => Ok(auto_response(messages, parameters)),
        }
    }
}

fn auto_response(messages: &[ModelMessage], parameters: &ModelRequestParameters) -> ModelResponse {
    let mut called = HashSet::new();
    let mut call_count = 0usize;
    for message in messages {
        if let ModelMessage::Response(response) = message {
            for call in response.calls() {
                called.insert(call.name.clone());
                call_count += 1;
            }
        }
    }
    let calls: Vec<ToolCallPart> = parameters
        .tools
        .iter()
        .filter(|tool| !called.contains(&tool.name))
        .enumerate()
        .map(|(offset, tool)| {
            ToolCallPart::new(
                format!("test-call-{}", call_count + offset + 1),
                tool.name.clone(),
                sample_value(&tool.parameters),
            )
        })
        .collect();
    if !calls.is_empty() {
        return ModelResponse::tool_calls(calls);
    }
    ModelResponse::text(summary(messages))
}

/// Text built from every tool return (or the last prompt when no tool ran).
fn summary(messages: &[ModelMessage]) -> String {
    let mut returns = Vec::new();
    let mut prompt = None;
    for message in messages {
        if let ModelMessage::Request(request) = message {
            for part in &request.parts {
                match part {
                    RequestPart::ToolReturn(part) => {
                        returns.push(format!("{}: {}", part.tool_name, shorten(&part.content)));
                    }
                    RequestPart::RetryPrompt(part) => returns.push(format!(
                        "{}: retry requested ({})",
                        part.tool_name.as_deref().unwrap_or("answer"),
                        part.content
                    )),
                    RequestPart::UserPrompt(part) => prompt = Some(part.content.clone()),
                    RequestPart::Instructions(_) => {}
                }
            }
        }
    }
    if returns.is_empty() {
        return format!("test model reply to: {}", prompt.unwrap_or_default());
    }
    format!("Called {} tool(s). {}", returns.len(), returns.join("; "))
}

/// A return's content for the test model's summary: 120 characters at
/// most.
fn shorten(value: &Value) -> String {
    crate::bounds::shorten_chars(&value.to_string(), 120).into_owned()
}

impl Model for TestModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn request<'a>(
        &'a self,
        messages: &'a [ModelMessage],
        parameters: &'a ModelRequestParameters,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        Box::pin(async move {
            let index = self.log.record(messages, parameters);
            let mut response = self.respond(index, messages, parameters)?;
            let output = response
                .parts
                .iter()
                .map(|part| match part {
                    ResponsePart::Text(text) => text.content.split_whitespace().count() as u64,
                    ResponsePart::ToolCall(_) => 5,
                })
                .sum();
            response.usage = Usage {
                requests: 1,
                input_tokens: word_count(messages),
                output_tokens: output,
                tool_calls: 0,
            };
            response.model_name.get_or_insert_with(|| self.name.clone());
            Ok(response)
        })
    }
}

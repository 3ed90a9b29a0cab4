//! The `test` model: deterministic answers with no network and no key.

mod facts;
mod fields;
mod history;
mod kind;
mod plan;
mod summary;
mod words;

use super::recorded::RequestLog;
use super::{
    Model, ModelError, ModelMessage, ModelRequestParameters, ModelResponse, RecordedRequest,
    ResponsePart, TextPart, ToolCallPart, Usage,
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
/// * [`TestModel::auto`] (the embedded `test` model of the CLI) calls the
///   exposed tools with arguments generated from their schemas and the
///   prompt's words: searches and listings first, then the tools that need
///   what those returned (a file to read, a tool found by `search_tools`
///   for `call_tool`); then it answers with one line per call saying what
///   came back. Same prompt and tools, same calls.
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

    /// Calls the tools with arguments built from their schemas and the
    /// prompt, then summarises the returns (see docs/models.md).
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
            response.usage = Usage::estimated(messages, &response);
            response.model_name.get_or_insert_with(|| self.name.clone());
            Ok(response)
        })
    }
}

/// The auto mode's next response: the planned calls, or the summary once
/// nothing is left to call.
fn auto_response(messages: &[ModelMessage], parameters: &ModelRequestParameters) -> ModelResponse {
    let history = history::History::of(messages);
    let planned = plan::plan(&history, &parameters.tools, &parameters.instructions);
    if planned.calls.is_empty() {
        let text = summary::answer(&history, &planned.skipped);
        let Some((tool, arguments)) = planned.output else {
            return ModelResponse::text(text);
        };
        // The answer goes through the output tool, with the summary as its text.
        let id = format!("test-call-{}", history.calls.len() + 1);
        let mut response = ModelResponse::tool_calls([ToolCallPart::new(id, tool, arguments)]);
        response
            .parts
            .insert(0, ResponsePart::Text(TextPart::new(text)));
        return response;
    }
    let first = history.calls.len() + 1;
    ModelResponse::tool_calls(planned.calls.into_iter().enumerate().map(
        |(offset, (tool, arguments))| {
            ToolCallPart::new(format!("test-call-{}", first + offset), tool, arguments)
        },
    ))
}

#[cfg(test)]
mod tests;

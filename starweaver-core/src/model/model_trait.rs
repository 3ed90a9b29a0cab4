//! The dyn-compatible [`Model`] trait.

use std::sync::Arc;

use futures::stream::{self, BoxStream, StreamExt};

use super::{
    ModelMessage, ModelRequestParameters, ModelResponse, RequestNotice, ResponsePart,
    ToolCallArguments, ToolCallPart,
};
use crate::BoxFuture;

/// A shared, type-erased model.
pub type DynModel = Arc<dyn Model>;

/// Why a model request failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The provider rejected the request or failed.
    #[error("model `{model}` request failed: {message}")]
    Request {
        /// Model name.
        model: String,
        /// Provider message.
        message: String,
    },
    /// The provider answered with an error status; `message` is the provider's own words.
    #[error("model `{model}`: the provider refused the request (HTTP {status}): {message}")]
    Status {
        /// Model name.
        model: String,
        /// HTTP status.
        status: u16,
        /// The provider's message (and what to do, when it is known).
        message: String,
    },
    /// The variable that should hold the API key is unset or empty. The key itself never
    /// appears in an error.
    #[error(
        "model `{model}`: the API key variable `{variable}` is not set; export it, or name the variable that holds the key in `model.api_key_env`"
    )]
    ApiKeyMissing {
        /// Model name.
        model: String,
        /// The variable that was read.
        variable: String,
    },
    /// A scripted model ran out of responses.
    #[error(
        "model `{model}` has no scripted response left for request {request}; add more responses"
    )]
    ScriptExhausted {
        /// Model name.
        model: String,
        /// 1-based request number.
        request: usize,
    },
    /// A turn of a model script could not be played: its template did not render, or the
    /// script ended before an answer.
    #[error("model script `{script}`, turn {turn}: {message}")]
    Script {
        /// The script, as its host named it (the file as the manifest wrote it).
        script: String,
        /// 1-based turn number.
        turn: usize,
        /// What went wrong and how to fix it.
        message: String,
    },
}

/// One streamed piece of a response.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelStreamEvent {
    /// More text.
    TextDelta(String),
    /// A complete tool call.
    ToolCall(ToolCallPart),
    /// The assembled response; always last.
    Finished(ModelResponse),
}

/// A stream of response pieces.
pub type ModelResponseStream = BoxStream<'static, Result<ModelStreamEvent, ModelError>>;

/// A language model.
pub trait Model: Send + Sync {
    /// Model name, such as `test` or `openai:gpt-4o`.
    fn name(&self) -> &str;

    /// Sends a request and waits for the whole response.
    fn request<'a>(
        &'a self,
        messages: &'a [ModelMessage],
        parameters: &'a ModelRequestParameters,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>>;

    /// What this model will adapt or leave out when it sends a request with `parameters` (a
    /// tool schema rewritten for the provider, a tool or setting it cannot take). The run
    /// publishes these as events and applies its unavailable-tool policy to tools left out.
    /// The default adapts nothing.
    fn request_notices(&self, parameters: &ModelRequestParameters) -> Vec<RequestNotice> {
        let _ = parameters;
        Vec::new()
    }

    /// The host the model's requests go to (`api.openai.com`), for traces; `None` for a
    /// model that sends nothing over a network. The default is `None`.
    fn server_address(&self) -> Option<&str> {
        None
    }

    /// Sends a request and streams the response. The default streams the
    /// result of [`Model::request`] part by part.
    fn request_stream<'a>(
        &'a self,
        messages: &'a [ModelMessage],
        parameters: &'a ModelRequestParameters,
    ) -> BoxFuture<'a, Result<ModelResponseStream, ModelError>> {
        Box::pin(async move {
            let response = self.request(messages, parameters).await?;
            Ok(response_as_stream(response))
        })
    }
}

/// A copy of `call` for a stream event. Arguments nested past
/// [`crate::bounds::MAX_JSON_DEPTH`] are not copied (a copy recurses once
/// per level): the event carries `null`, the finished response the
/// original.
fn shallow_copy(call: &ToolCallPart) -> ToolCallPart {
    match &call.arguments {
        ToolCallArguments::Json(arguments)
            if crate::bounds::exceeds_depth(arguments, crate::bounds::MAX_JSON_DEPTH) =>
        {
            ToolCallPart {
                id: call.id.clone(),
                name: call.name.clone(),
                arguments: ToolCallArguments::Json(serde_json::Value::Null),
            }
        }
        _ => call.clone(),
    }
}

/// Streams a finished response: its parts, then `Finished`.
#[must_use]
pub fn response_as_stream(response: ModelResponse) -> ModelResponseStream {
    let mut events: Vec<Result<ModelStreamEvent, ModelError>> = response
        .parts
        .iter()
        .map(|part| {
            Ok(match part {
                ResponsePart::Text(text) => ModelStreamEvent::TextDelta(text.content.clone()),
                ResponsePart::ToolCall(call) => ModelStreamEvent::ToolCall(shallow_copy(call)),
            })
        })
        .collect();
    events.push(Ok(ModelStreamEvent::Finished(response)));
    stream::iter(events).boxed()
}

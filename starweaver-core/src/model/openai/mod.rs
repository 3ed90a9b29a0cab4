//! The OpenAI Chat Completions client, which also serves OpenAI-compatible servers (Ollama,
//! vLLM, llama.cpp's server, LM Studio, OpenRouter) through a base URL.

mod capabilities;
mod request;
mod response;
mod stream;

use reqwest::header::AUTHORIZATION;

use crate::model::http::{client_builders, Answer, Endpoint, Plans};
use crate::model::{
    adapt_schema, response_as_stream, AdaptedSchema, Model, ModelError, ModelMessage,
    ModelRequestParameters, ModelResponse, ModelResponseStream, ProviderKind, RequestNotice,
    SchemaDialect, SchemaIncompatible, ToolDefinition,
};
use crate::BoxFuture;

/// A model served over the Chat Completions protocol.
///
/// ```
/// use starweaver_core::model::openai::OpenAiModel;
/// use starweaver_core::model::Model;
///
/// let model = OpenAiModel::new("gpt-4o").with_base_url("http://127.0.0.1:11434/v1");
/// assert_eq!(model.name(), "openai:gpt-4o");
/// ```
#[derive(Debug)]
pub struct OpenAiModel {
    endpoint: Endpoint,
}

client_builders!(OpenAiModel, "/chat/completions", "OPENAI_API_KEY");

impl OpenAiModel {
    /// The model `model` (`gpt-4o`) at OpenAI's endpoint, its key read from `OPENAI_API_KEY`
    /// when a request is sent, answers streamed.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            endpoint: Endpoint::new(ProviderKind::OpenAi, model.into(), adapt),
        }
    }

    async fn send(
        &self,
        messages: &[ModelMessage],
        parameters: &ModelRequestParameters,
        stream: bool,
    ) -> Result<Answer, ModelError> {
        let endpoint = &self.endpoint;
        let key = endpoint.key()?;
        let planned = endpoint.tools.plan_all(&parameters.tools);
        let has_tools = planned.iter().any(|(_, plan)| plan.wire.is_some());
        let (settings, _) =
            capabilities::settings(&endpoint.model, &parameters.settings, has_tools);
        let body = request::body(
            &endpoint.model,
            messages,
            parameters,
            &planned,
            settings,
            stream,
        );
        let bearer = format!("Bearer {key}");
        endpoint
            .post(
                "/chat/completions",
                &body,
                &key,
                (AUTHORIZATION, bearer),
                Vec::new(),
                Plans::of(&planned),
            )
            .await
    }
}

/// OpenAI's schema rules: strict where asked; with no preference, strict only when the
/// strict rewrite loses nothing.
fn adapt(definition: &ToolDefinition) -> Result<(AdaptedSchema, bool), SchemaIncompatible> {
    let adapted = |dialect| adapt_schema(&definition.parameters, dialect);
    match definition.strict {
        Some(true) => Ok((adapted(SchemaDialect::OpenAiStrict)?, true)),
        Some(false) => Ok((adapted(SchemaDialect::OpenAi)?, false)),
        None => match adapted(SchemaDialect::OpenAiStrict) {
            Ok(strict) if strict.is_lossless() => Ok((strict, true)),
            _ => Ok((adapted(SchemaDialect::OpenAi)?, false)),
        },
    }
}

impl Model for OpenAiModel {
    fn name(&self) -> &str {
        &self.endpoint.name
    }

    fn request_notices(&self, parameters: &ModelRequestParameters) -> Vec<RequestNotice> {
        let tools = &self.endpoint.tools;
        let mut notices = tools.notices(&parameters.tools);
        let has_tools = tools
            .plan_all(&parameters.tools)
            .iter()
            .any(|(_, plan)| plan.wire.is_some());
        notices.extend(
            capabilities::settings(&self.endpoint.model, &parameters.settings, has_tools).1,
        );
        notices
    }

    fn request<'a>(
        &'a self,
        messages: &'a [ModelMessage],
        parameters: &'a ModelRequestParameters,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        Box::pin(async move {
            let answer = self.send(messages, parameters, false).await?;
            self.endpoint.whole(answer, response::parse).await
        })
    }

    fn request_stream<'a>(
        &'a self,
        messages: &'a [ModelMessage],
        parameters: &'a ModelRequestParameters,
    ) -> BoxFuture<'a, Result<ModelResponseStream, ModelError>> {
        Box::pin(async move {
            let endpoint = &self.endpoint;
            if !endpoint.streaming {
                return Ok(response_as_stream(
                    self.request(messages, parameters).await?,
                ));
            }
            let answer = self.send(messages, parameters, true).await?;
            Ok(endpoint.streamed(answer, stream::Assembler::default(), response::parse))
        })
    }
}

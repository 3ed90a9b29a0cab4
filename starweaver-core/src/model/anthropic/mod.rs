//! The Anthropic Messages client.

mod capabilities;
mod request;
mod response;
mod stream;

use reqwest::header::{HeaderName, HeaderValue};

/// The protocol version sent in `anthropic-version`.
const API_VERSION: &str = "2023-06-01";

use crate::model::http::{client_builders, Answer, Endpoint, Plans};
use crate::model::{
    adapt_schema, response_as_stream, AdaptedSchema, Model, ModelError, ModelMessage,
    ModelRequestParameters, ModelResponse, ModelResponseStream, ProviderKind, RequestNotice,
    SchemaDialect, SchemaIncompatible, ToolDefinition,
};
use crate::BoxFuture;

/// A model served over the Messages protocol.
///
/// ```
/// use starweaver_core::model::anthropic::AnthropicModel;
/// use starweaver_core::model::Model;
///
/// let model = AnthropicModel::new("claude-sonnet-4-5");
/// assert_eq!(model.name(), "anthropic:claude-sonnet-4-5");
/// ```
#[derive(Debug)]
pub struct AnthropicModel {
    endpoint: Endpoint,
}

client_builders!(AnthropicModel, "/messages", "ANTHROPIC_API_KEY");

impl AnthropicModel {
    /// The model `model` (`claude-sonnet-4-5`) at Anthropic's endpoint, its key read from
    /// `ANTHROPIC_API_KEY` when a request is sent, answers streamed.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            endpoint: Endpoint::new(ProviderKind::Anthropic, model.into(), adapt),
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
        let (settings, parallel, _) = capabilities::settings(&endpoint.model, &parameters.settings);
        let body = request::body(
            &endpoint.model,
            messages,
            parameters,
            &planned,
            settings,
            parallel,
            stream,
        );
        endpoint
            .post(
                "/messages",
                &body,
                &key,
                (HeaderName::from_static("x-api-key"), key.clone()),
                vec![(
                    HeaderName::from_static("anthropic-version"),
                    HeaderValue::from_static(API_VERSION),
                )],
                Plans::of(&planned),
            )
            .await
    }
}

/// Anthropic's schema rules (the protocol has no strict mode).
fn adapt(definition: &ToolDefinition) -> Result<(AdaptedSchema, bool), SchemaIncompatible> {
    Ok((
        adapt_schema(&definition.parameters, SchemaDialect::Anthropic)?,
        false,
    ))
}

impl Model for AnthropicModel {
    fn name(&self) -> &str {
        &self.endpoint.name
    }

    fn request_notices(&self, parameters: &ModelRequestParameters) -> Vec<RequestNotice> {
        let mut notices = self.endpoint.tools.notices(&parameters.tools);
        notices.extend(capabilities::settings(&self.endpoint.model, &parameters.settings).2);
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

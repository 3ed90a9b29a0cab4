//! The Anthropic Messages client.

mod capabilities;
mod request;
mod response;
mod stream;

use reqwest::header::{HeaderName, HeaderValue};
use starweaver_core::model::{
    adapt_schema, AdaptedSchema, ModelMessage, ModelRequestParameters, ModelResponse,
    ModelSettings, ProviderKind, RequestNotice, SchemaDialect, SchemaIncompatible, ToolDefinition,
};

use crate::http::{HttpModel, PlannedTool, Protocol, Wire};

/// The protocol version sent in `anthropic-version`.
const API_VERSION: &str = "2023-06-01";

/// A model served over the Messages protocol.
///
/// ```
/// use starweaver_core::model::Model;
/// use starweaver_providers::anthropic::AnthropicModel;
///
/// let model = AnthropicModel::new("claude-sonnet-4-5");
/// assert_eq!(model.name(), "anthropic:claude-sonnet-4-5");
/// ```
pub type AnthropicModel = HttpModel<AnthropicProtocol>;

/// The Messages protocol: requests to `/messages`, the key in `x-api-key`, the protocol
/// version in `anthropic-version`, tool schemas without a strict mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AnthropicProtocol;

impl Protocol for AnthropicProtocol {
    const KIND: ProviderKind = ProviderKind::Anthropic;
}

impl Wire for AnthropicProtocol {
    const PATH: &'static str = "/messages";

    type Assembler = stream::Assembler;

    /// Anthropic's schema rules (the protocol has no strict mode).
    fn adapt(definition: &ToolDefinition) -> Result<(AdaptedSchema, bool), SchemaIncompatible> {
        Ok((
            adapt_schema(&definition.parameters, SchemaDialect::Anthropic)?,
            false,
        ))
    }

    fn setting_notices(
        model: &str,
        settings: &ModelSettings,
        _tools: &[PlannedTool<'_>],
    ) -> Vec<RequestNotice> {
        capabilities::settings(model, settings).2
    }

    fn body(
        model: &str,
        messages: &[ModelMessage],
        parameters: &ModelRequestParameters,
        tools: &[PlannedTool<'_>],
        stream: bool,
    ) -> serde_json::Result<Vec<u8>> {
        let (settings, parallel, _) = capabilities::settings(model, &parameters.settings);
        serde_json::to_vec(&request::body(
            model, messages, parameters, tools, settings, parallel, stream,
        ))
    }

    fn key_header(key: &str) -> (HeaderName, String) {
        (HeaderName::from_static("x-api-key"), key.to_string())
    }

    fn headers() -> Vec<(HeaderName, HeaderValue)> {
        vec![(
            HeaderName::from_static("anthropic-version"),
            HeaderValue::from_static(API_VERSION),
        )]
    }

    fn parse(body: &[u8]) -> Result<ModelResponse, String> {
        response::parse(body)
    }
}

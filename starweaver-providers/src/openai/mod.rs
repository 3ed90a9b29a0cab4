//! The OpenAI Chat Completions client, which also serves OpenAI-compatible servers (Ollama,
//! vLLM, llama.cpp's server, LM Studio, OpenRouter) through a base URL.

mod capabilities;
mod request;
mod response;
mod stream;

use reqwest::header::{HeaderName, AUTHORIZATION};
use starweaver_core::model::{
    adapt_schema, AdaptedSchema, ModelMessage, ModelRequestParameters, ModelResponse,
    ModelSettings, ProviderKind, RequestNotice, SchemaDialect, SchemaIncompatible, ToolDefinition,
};

use crate::http::{HttpModel, PlannedTool, Protocol, Wire};

/// A model served over the Chat Completions protocol.
///
/// ```
/// use starweaver_core::model::Model;
/// use starweaver_providers::openai::OpenAiModel;
///
/// let model = OpenAiModel::new("gpt-4o").with_base_url("http://127.0.0.1:11434/v1");
/// assert_eq!(model.name(), "openai:gpt-4o");
/// ```
pub type OpenAiModel = HttpModel<OpenAiProtocol>;

/// The Chat Completions protocol: requests to `/chat/completions`, the key as a bearer token,
/// strict tool schemas where they lose nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenAiProtocol;

impl Protocol for OpenAiProtocol {
    const KIND: ProviderKind = ProviderKind::OpenAi;
}

/// Whether any of `tools` is sent (a request without tools may not carry tool settings).
fn has_tools(tools: &[PlannedTool<'_>]) -> bool {
    tools.iter().any(|(_, plan)| plan.wire.is_some())
}

impl Wire for OpenAiProtocol {
    const PATH: &'static str = "/chat/completions";

    type Assembler = stream::Assembler;

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

    fn setting_notices(
        model: &str,
        settings: &ModelSettings,
        tools: &[PlannedTool<'_>],
    ) -> Vec<RequestNotice> {
        capabilities::settings(model, settings, has_tools(tools)).1
    }

    fn body(
        model: &str,
        messages: &[ModelMessage],
        parameters: &ModelRequestParameters,
        tools: &[PlannedTool<'_>],
        stream: bool,
    ) -> serde_json::Result<Vec<u8>> {
        let (settings, _) = capabilities::settings(model, &parameters.settings, has_tools(tools));
        serde_json::to_vec(&request::body(
            model, messages, parameters, tools, settings, stream,
        ))
    }

    fn key_header(key: &str) -> (HeaderName, String) {
        (AUTHORIZATION, format!("Bearer {key}"))
    }

    fn parse(body: &[u8]) -> Result<ModelResponse, String> {
        response::parse(body)
    }
}

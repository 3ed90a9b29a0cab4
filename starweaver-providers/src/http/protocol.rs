//! What a wire protocol supplies to the generic client: its provider, where it posts, how it
//! adapts tool schemas, writes a request, sends the key and reads an answer whole or streamed.

use reqwest::header::{HeaderName, HeaderValue};
use starweaver_core::model::{
    AdaptedSchema, ModelMessage, ModelRequestParameters, ModelResponse, ModelSettings,
    ProviderKind, RequestNotice, SchemaIncompatible, ToolDefinition,
};

use super::{Assemble, PlannedTool};

/// A provider's wire protocol, which an [`HttpModel`](super::HttpModel) speaks. This crate
/// implements it for [`OpenAiProtocol`](crate::openai::OpenAiProtocol) and
/// [`AnthropicProtocol`](crate::anthropic::AnthropicProtocol); it is sealed, because what a
/// protocol supplies (request bodies, stream assembly) is internal to this crate. A new
/// provider is a module here beside the two, plus its entry in `ProviderKind`.
pub trait Protocol: Wire {
    /// The provider, for the model's name (`openai:gpt-4o`), its default endpoint and key
    /// variable.
    const KIND: ProviderKind;
}

/// The protocol's part of a request and an answer. Public in a private module, so that no
/// other crate can implement [`Protocol`].
pub trait Wire: Send + Sync + 'static {
    /// The path after the base URL (`/chat/completions`).
    const PATH: &'static str;

    /// The state that assembles a streamed answer.
    type Assembler: Assemble + Default;

    /// The schema a tool is sent with, and whether it is sent strict.
    ///
    /// # Errors
    /// When the provider cannot take the schema; the tool is then left out with the reason.
    fn adapt(definition: &ToolDefinition) -> Result<(AdaptedSchema, bool), SchemaIncompatible>;

    /// The settings this model does not take, left out with the reason. `tools` are the
    /// request's planned tools.
    fn setting_notices(
        model: &str,
        settings: &ModelSettings,
        tools: &[PlannedTool<'_>],
    ) -> Vec<RequestNotice>;

    /// The request body for `model`, serialized.
    ///
    /// # Errors
    /// When the body cannot be written as JSON.
    fn body(
        model: &str,
        messages: &[ModelMessage],
        parameters: &ModelRequestParameters,
        tools: &[PlannedTool<'_>],
        stream: bool,
    ) -> serde_json::Result<Vec<u8>>;

    /// The header that carries `key`, and its value.
    fn key_header(key: &str) -> (HeaderName, String);

    /// Other headers every request carries.
    fn headers() -> Vec<(HeaderName, HeaderValue)> {
        Vec::new()
    }

    /// A whole answer's body as a response, or why it cannot be read.
    ///
    /// # Errors
    /// When the body is not an answer of the protocol (its message may quote the body).
    fn parse(body: &[u8]) -> Result<ModelResponse, String>;
}

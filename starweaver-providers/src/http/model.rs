//! The one client every protocol shares: its builders, its request and its streamed answer,
//! written once over the [`Protocol`] it speaks.

use std::fmt;
use std::marker::PhantomData;

use starweaver_core::model::{
    response_as_stream, Model, ModelError, ModelMessage, ModelRequestParameters, ModelResponse,
    ModelResponseStream, RequestNotice,
};
use starweaver_core::BoxFuture;

use super::{request_error, Answer, ApiKey, Endpoint, HttpOptions, Plans, Protocol};

/// A model served over HTTP in protocol `P`; [`OpenAiModel`](crate::openai::OpenAiModel) and
/// [`AnthropicModel`](crate::anthropic::AnthropicModel) name the two protocols' clients.
///
/// Its key is read when a request is sent (so a key exported after the agent was built is
/// seen), its tool schemas are adapted once per definition, and failures that cannot have
/// been billed are retried within its [`HttpOptions`].
pub struct HttpModel<P> {
    endpoint: Endpoint,
    protocol: PhantomData<fn() -> P>,
}

impl<P: Protocol> HttpModel<P> {
    /// The model `model` (`gpt-4o`, `claude-sonnet-4-5`) at the provider's own endpoint, its
    /// key read from the provider's usual variable (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`)
    /// when a request is sent, answers streamed.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            endpoint: Endpoint::new(P::KIND, model.into(), P::adapt),
            protocol: PhantomData,
        }
    }

    /// Another server speaking the protocol: the URL before the protocol's path
    /// (`/chat/completions`, `/messages`), such as `http://localhost:11434/v1`.
    #[must_use]
    pub fn with_base_url(mut self, base_url: impl Into<String>) -> Self {
        self.endpoint.base_url = base_url.into();
        self
    }

    /// Reads the key from this variable instead of the provider's usual one
    /// (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`).
    #[must_use]
    pub fn with_api_key_env(mut self, variable: impl Into<String>) -> Self {
        self.endpoint.key = ApiKey::Variable(variable.into());
        self
    }

    /// Uses this key (never printed, never put in errors).
    #[must_use]
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.endpoint.key = ApiKey::Value(key.into());
        self
    }

    /// Timeouts, retries and allowed hosts.
    #[must_use]
    pub fn with_http_options(mut self, options: HttpOptions) -> Self {
        self.endpoint.set_http_options(options);
        self
    }

    /// Whether streamed runs ask for a streamed answer (the default) or one whole answer.
    #[must_use]
    pub fn with_streaming(mut self, streaming: bool) -> Self {
        self.endpoint.streaming = streaming;
        self
    }

    /// Writes the request for `messages` and sends it, asking for a stream when `stream`.
    async fn send(
        &self,
        messages: &[ModelMessage],
        parameters: &ModelRequestParameters,
        stream: bool,
    ) -> Result<Answer, ModelError> {
        let endpoint = &self.endpoint;
        let key = endpoint.key()?;
        let planned = endpoint.tools.plan_all(&parameters.tools);
        let body =
            P::body(&endpoint.model, messages, parameters, &planned, stream).map_err(|error| {
                request_error(&endpoint.name, format!("cannot write the request: {error}"))
            })?;
        endpoint
            .post(
                P::PATH,
                body,
                &key,
                P::key_header(&key),
                P::headers(),
                Plans::of(&planned),
            )
            .await
    }
}

impl<P> fmt::Debug for HttpModel<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpModel")
            .field("endpoint", &self.endpoint)
            .finish()
    }
}

impl<P: Protocol> Model for HttpModel<P> {
    fn name(&self) -> &str {
        &self.endpoint.name
    }

    fn server_address(&self) -> Option<&str> {
        host_of(&self.endpoint.base_url)
    }

    fn request_notices(&self, parameters: &ModelRequestParameters) -> Vec<RequestNotice> {
        let planned = self.endpoint.tools.plan_all(&parameters.tools);
        let mut notices: Vec<RequestNotice> = planned
            .iter()
            .filter_map(|(_, plan)| plan.notice.clone())
            .collect();
        notices.extend(P::setting_notices(
            &self.endpoint.model,
            &parameters.settings,
            &planned,
        ));
        notices
    }

    fn request<'a>(
        &'a self,
        messages: &'a [ModelMessage],
        parameters: &'a ModelRequestParameters,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        Box::pin(async move {
            let answer = self.send(messages, parameters, false).await?;
            self.endpoint.whole(answer, P::parse).await
        })
    }

    fn request_stream<'a>(
        &'a self,
        messages: &'a [ModelMessage],
        parameters: &'a ModelRequestParameters,
    ) -> BoxFuture<'a, Result<ModelResponseStream, ModelError>> {
        Box::pin(async move {
            if !self.endpoint.streaming {
                return Ok(response_as_stream(
                    self.request(messages, parameters).await?,
                ));
            }
            let answer = self.send(messages, parameters, true).await?;
            Ok(self
                .endpoint
                .streamed(answer, P::Assembler::default(), P::parse))
        })
    }
}

/// The host of a base URL (`api.openai.com` of `https://api.openai.com/v1`), for traces.
fn host_of(base_url: &str) -> Option<&str> {
    let rest = base_url
        .split_once("://")
        .map_or(base_url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = match host.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next()?,
        None => host.split(':').next()?,
    };
    (!host.is_empty()).then_some(host)
}

#[cfg(test)]
mod host_tests {
    use super::host_of;

    #[test]
    fn the_host_of_a_base_url_leaves_out_scheme_credentials_port_and_path() {
        assert_eq!(host_of("https://api.openai.com/v1"), Some("api.openai.com"));
        assert_eq!(host_of("http://127.0.0.1:8080/v1"), Some("127.0.0.1"));
        assert_eq!(
            host_of("http://user:pw@example.com:1/x"),
            Some("example.com")
        );
        assert_eq!(host_of("http://[::1]:8080/v1"), Some("::1"));
        assert_eq!(host_of(""), None);
    }
}

//! What every provider client holds: its names, where it sends, its key, its HTTP client,
//! whether it streams and its tool adapter.

use std::sync::Arc;

use futures::stream::{self, StreamExt};
use reqwest::header::{HeaderName, HeaderValue};

use super::{
    request_error, scrub, Adapt, ApiKey, HttpClient, HttpOptions, JsonPost, Plans, ToolAdapter,
};
use starweaver_core::model::{
    response_as_stream, ModelError, ModelResponse, ModelResponseStream, ProviderKind,
};

/// A successful answer, its body unread, and the key it was sent with, so that anything read
/// from the body is scrubbed of the key before it can reach an error.
pub(crate) struct Answer {
    response: reqwest::Response,
    key: String,
    /// The plans of the tools the request carried, to restore the answer's calls with.
    plans: Plans,
}

/// The shared state of a provider client.
#[derive(Debug)]
pub(crate) struct Endpoint {
    /// `provider:model`, the name runs and errors show.
    pub name: String,
    /// The provider's own model name.
    pub model: String,
    /// The URL before the protocol's path.
    pub base_url: String,
    /// Where the key comes from.
    pub key: ApiKey,
    /// The HTTP client and its options.
    pub http: Arc<HttpClient>,
    /// Whether streamed runs ask for streamed answers.
    pub streaming: bool,
    /// The adapted tools.
    pub tools: Arc<ToolAdapter>,
}

impl Endpoint {
    pub(crate) fn new(kind: ProviderKind, model: String, adapt: Adapt) -> Self {
        Self {
            name: format!("{}:{model}", kind.prefix()),
            model,
            base_url: kind.default_base_url().to_string(),
            key: ApiKey::Variable(kind.default_api_key_variable().to_string()),
            http: HttpClient::new(HttpOptions::default()),
            streaming: true,
            tools: Arc::new(ToolAdapter::new(kind.display_name(), adapt)),
        }
    }

    pub(crate) fn set_http_options(&mut self, options: HttpOptions) {
        self.http = HttpClient::new(options);
    }

    /// The key, or the error naming the variable that should hold it.
    pub(crate) fn key(&self) -> Result<String, ModelError> {
        self.key
            .resolve()
            .map_err(|variable| ModelError::ApiKeyMissing {
                model: self.name.clone(),
                variable,
            })
    }

    /// Posts the serialized `body` to `base_url` + `path`, the key in `secret_header`.
    pub(crate) async fn post(
        &self,
        path: &str,
        body: Vec<u8>,
        key: &str,
        secret_header: (HeaderName, String),
        headers: Vec<(HeaderName, HeaderValue)>,
        plans: Plans,
    ) -> Result<Answer, ModelError> {
        let url = format!("{}{path}", self.base_url.trim_end_matches('/'));
        let response = self
            .http
            .send(JsonPost {
                model: &self.name,
                url: &url,
                secret_header,
                headers,
                body,
                key,
            })
            .await?;
        Ok(Answer {
            response,
            key: key.to_string(),
            plans,
        })
    }
}

/// Parses a whole answer's body into a response, or says why it cannot.
pub(crate) type Parse = fn(&[u8]) -> Result<ModelResponse, String>;

impl Endpoint {
    /// A whole answer parsed by `parse`, its calls' arguments restored. A parser's message may
    /// quote the body, so it is scrubbed of the key.
    pub(crate) async fn whole(
        &self,
        answer: Answer,
        parse: Parse,
    ) -> Result<ModelResponse, ModelError> {
        let reader = WholeReader {
            name: self.name.clone(),
            options: self.http.options().clone(),
        };
        reader.read(answer, parse).await
    }

    /// A streamed answer assembled by `assembler`; its errors are scrubbed of the key. An
    /// answer that is JSON instead of an event stream (a server that does not stream, or a
    /// gateway's error sent with status 200) is read whole with `parse`.
    pub(crate) fn streamed<A: super::Assemble>(
        &self,
        answer: Answer,
        assembler: A,
        parse: Parse,
    ) -> ModelResponseStream {
        if is_json(&answer.response) {
            let reader = WholeReader {
                name: self.name.clone(),
                options: self.http.options().clone(),
            };
            return stream::once(async move { reader.read(answer, parse).await })
                .flat_map(|read| match read {
                    Ok(response) => response_as_stream(response),
                    Err(error) => stream::once(async move { Err(error) }).boxed(),
                })
                .boxed();
        }
        let events = super::events(&self.name, answer.response, self.http.options());
        super::drive(&self.name, events, assembler, answer.plans, answer.key)
    }
}

/// What reading a whole answer needs, owned so a stream can do it later.
struct WholeReader {
    name: String,
    options: HttpOptions,
}

impl WholeReader {
    async fn read(self, answer: Answer, parse: Parse) -> Result<ModelResponse, ModelError> {
        let body = super::read_body(&self.name, answer.response, &self.options).await?;
        let mut response = parse(&body)
            .map_err(|message| request_error(&self.name, scrub(&message, &answer.key)))?;
        answer.plans.restore(&mut response);
        Ok(response)
    }
}

/// Whether an answer says its body is JSON (`application/json`, any parameters).
fn is_json(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|kind| kind.trim().eq_ignore_ascii_case("application/json"))
}

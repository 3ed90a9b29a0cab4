//! What the provider clients share: the generic client [`HttpModel`] with its builders, HTTP
//! options, retries, allowed hosts, the API key, the HTTP client itself and server-sent
//! events. A protocol module adds only a [`Protocol`]: how its requests are written and its
//! answers read.

mod api_key;
mod client;
mod counts;
mod endpoint;
mod hosts;
mod model;
mod options;
mod protocol;
mod retry;
mod return_text;
mod sse;
mod stream;
mod tools;

pub(crate) use api_key::ApiKey;
pub(crate) use client::{
    error_text, read_body, request_error, scrub, scrubbed, HttpClient, JsonPost,
};
pub(crate) use counts::count;
pub(crate) use endpoint::{Answer, Endpoint};
pub use hosts::{HostPolicy, MODEL_HOSTS_VARIABLE};
pub use model::HttpModel;
pub use options::HttpOptions;
pub use protocol::Protocol;
pub(crate) use protocol::Wire;
pub use retry::RetryPolicy;
// Only the OpenAI request writes call arguments as text.
#[cfg(feature = "openai")]
pub(crate) use return_text::compact;
pub(crate) use return_text::return_text;
pub(crate) use sse::{events, SseEvent};
pub(crate) use stream::{drive, Assemble};
pub(crate) use tools::{Adapt, PlannedTool, Plans, ToolAdapter};

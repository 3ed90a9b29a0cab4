//! What the provider clients share: HTTP options, retries, allowed hosts, the API key, the
//! client itself and server-sent events.

mod api_key;
mod builders;
mod client;
mod counts;
mod endpoint;
mod hosts;
mod options;
mod retry;
mod return_text;
mod sse;
mod stream;
mod tools;

pub(crate) use api_key::ApiKey;
pub(crate) use builders::client_builders;
pub(crate) use client::{
    error_text, read_body, request_error, scrub, scrubbed, HttpClient, JsonPost,
};
pub(crate) use counts::count;
pub(crate) use endpoint::{Answer, Endpoint};
pub use hosts::{HostPolicy, MODEL_HOSTS_VARIABLE};
pub use options::HttpOptions;
pub use retry::RetryPolicy;
pub(crate) use return_text::{compact, return_text};
pub(crate) use sse::{events, SseEvent};
pub(crate) use stream::{drive, Assemble};
pub(crate) use tools::{Adapt, PlannedTool, Plans, ToolAdapter};

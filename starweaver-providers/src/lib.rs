//! Starweaver's HTTP model clients, apart from the runtime so that a program without them
//! builds no HTTP stack: the OpenAI Chat Completions client ([`openai`], feature `openai`),
//! which also serves OpenAI-compatible servers through a base URL, and the Anthropic Messages
//! client ([`anthropic`], feature `anthropic`).
//!
//! Both are one generic client, [`http::HttpModel`], speaking a [`http::Protocol`]: the
//! builders, the retries, the host policy, the key handling and the streaming are written once
//! in [`http`], and each protocol module holds only how its requests are written and its
//! answers read. The `starweaver` facade re-exports these modules as `starweaver::model::openai`,
//! `starweaver::model::anthropic` and `starweaver::model::http`.
//!
//! ```
//! # #[cfg(feature = "openai")] {
//! use starweaver_core::model::Model;
//! use starweaver_providers::openai::OpenAiModel;
//!
//! let model = OpenAiModel::new("llama3.2").with_base_url("http://127.0.0.1:11434/v1");
//! assert_eq!(model.name(), "openai:llama3.2");
//! # }
//! ```

#[cfg(feature = "anthropic")]
pub mod anthropic;
#[cfg(feature = "http-client")]
pub mod http;
#[cfg(feature = "openai")]
pub mod openai;

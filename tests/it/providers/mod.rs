//! The OpenAI Chat Completions and Anthropic Messages clients through the
//! public API, against the scripted loopback server: the exact requests
//! they send (`requests`), multi-step runs whole and streamed (`runs`),
//! streamed and whole answers giving the same history (`parity`), error
//! statuses and retries (`retries`), broken answers (`broken_answers`),
//! timeouts and cancellation (`interruptions`), what fails before any
//! request (`guards`), the key never shown nor sent elsewhere
//! (`secrets`), settings a model refuses reported, not sent (`notices`),
//! and the ways OpenAI-compatible servers differ (`compatible`).
//!
//! Every model is built by [`Setup`], which always points it at the
//! loopback server, allows loopback hosts only and gives it the test key:
//! no test can reach a real provider or need a real key. [`project`]
//! gives the agent of the scripted conversation a real folder holding
//! `notes.txt`.

mod broken_answers;
mod compatible;
mod guards;
mod interruptions;
mod notices;
mod parity;
mod requests;
mod retries;
mod runs;
mod secrets;

use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use starweaver::agent::{Agent, AgentStreamRecord};
use starweaver::context::ContextEventKind;
use starweaver::environment::LocalEnvironmentProvider;
use starweaver::model::anthropic::AnthropicProtocol;
use starweaver::model::http::{HostPolicy, HttpModel, HttpOptions, Protocol, RetryPolicy};
use starweaver::model::openai::OpenAiProtocol;
use starweaver::model::{DynModel, ModelMessage, ModelSettings, RequestPart, ToolReturnPart};
use starweaver::{filesystem_tools, AgentBuilder, AgentError, AgentSession, AgentStreamEvent};
use tempfile::TempDir;

use crate::common::loopback::{LoopbackServer, Reply};

/// The key every test model sends; no error, debug text or event may
/// show it.
pub const KEY: &str = "test-key-loopback-5b1e7c93d2";

/// The instructions the test agents run with.
pub const INSTRUCTIONS: &str = "You look after a small project folder. Answer in one sentence.";

/// The prompt of the scripted conversation.
pub const PROMPT: &str = "What is in the folder, and what do the notes say?";

/// What `notes.txt` in the test folder holds.
pub const NOTES: &str = "Standup moved to 10:30.\nBring the release checklist.\n";

/// The final answer both providers' fixtures give.
pub const FINAL_TEXT: &str = "The folder holds notes.txt — nothing else.";

/// The longest any provider test may take before it counts as hung.
const PATIENCE: Duration = Duration::from_secs(30);

/// One of the two protocols, with what its fixtures and wire need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    OpenAi,
    Anthropic,
}

impl Provider {
    /// Both providers.
    pub const ALL: [Provider; 2] = [Provider::OpenAi, Provider::Anthropic];

    /// The fixture folder (`tests/fixtures/providers/<dir>`).
    pub fn dir(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
        }
    }

    /// The model the fixtures answer as.
    pub fn model(self) -> &'static str {
        match self {
            Provider::OpenAi => "gpt-4.1-mini",
            Provider::Anthropic => "claude-sonnet-4-5",
        }
    }

    /// The request path below the base URL `<server>/v1`.
    pub fn path(self) -> &'static str {
        match self {
            Provider::OpenAi => "/v1/chat/completions",
            Provider::Anthropic => "/v1/messages",
        }
    }

    /// Fixture `name` (`tool_round_1`) as a whole JSON answer.
    pub fn json(self, name: &str) -> Reply {
        Reply::json_file(200, self.dir(), &format!("{name}.json"))
    }

    /// Fixture `name` (`tool_round_1`) as an event stream.
    pub fn sse(self, name: &str) -> Reply {
        Reply::sse_file(self.dir(), &format!("{name}.sse"))
    }

    /// The scripted conversation: two tool calls, then the final answer.
    pub fn conversation(self, streamed: bool) -> Vec<Reply> {
        if streamed {
            vec![self.sse("tool_round_1"), self.sse("final")]
        } else {
            vec![self.json("tool_round_1"), self.json("final")]
        }
    }

    /// The settings the request-body tests send (`seed` only where the
    /// protocol has one).
    pub fn settings(self) -> ModelSettings {
        ModelSettings {
            temperature: Some(0.25),
            max_tokens: Some(512),
            stop: vec!["<END>".to_string()],
            seed: (self == Provider::OpenAi).then_some(7),
            ..ModelSettings::default()
        }
    }
}

/// Retries that wait (almost) nothing, so retry tests stay quick.
pub fn quick_retries(max_retries: u32) -> RetryPolicy {
    RetryPolicy {
        max_retries,
        initial_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(5),
        max_elapsed: Duration::from_secs(60),
    }
}

/// How a test model is built. [`Setup::build`] always allows loopback
/// hosts only and, unless [`Setup::key_from`] names a variable, gives the
/// model [`KEY`].
pub struct Setup {
    provider: Provider,
    model: String,
    base_url: Option<String>,
    options: HttpOptions,
    streaming: bool,
    key_variable: Option<String>,
}

impl Setup {
    /// The provider's fixture model at `server`, streaming, two quick
    /// retries.
    pub fn new(provider: Provider, server: &LoopbackServer) -> Setup {
        Setup {
            provider,
            model: provider.model().to_string(),
            base_url: Some(format!("{}/v1", server.base_url())),
            options: HttpOptions::default().with_retry(quick_retries(2)),
            streaming: true,
            key_variable: None,
        }
    }

    /// Another model name (for capability rules).
    #[must_use]
    pub fn model(mut self, model: &str) -> Setup {
        self.model = model.to_string();
        self
    }

    /// Whether streamed runs ask for a streamed answer.
    #[must_use]
    pub fn streaming(mut self, streaming: bool) -> Setup {
        self.streaming = streaming;
        self
    }

    /// Another retry policy.
    #[must_use]
    pub fn retry(mut self, retry: RetryPolicy) -> Setup {
        self.options = self.options.with_retry(retry);
        self
    }

    /// Another per-attempt timeout.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Setup {
        self.options = self.options.with_timeout(timeout);
        self
    }

    /// Another base URL (still held to loopback hosts).
    #[must_use]
    pub fn base_url(mut self, url: &str) -> Setup {
        self.base_url = Some(url.to_string());
        self
    }

    /// No base URL: the provider's own endpoint, which the loopback host
    /// policy must refuse.
    #[must_use]
    pub fn without_base_url(mut self) -> Setup {
        self.base_url = None;
        self
    }

    /// The key is read from `variable` instead of given.
    #[must_use]
    pub fn key_from(mut self, variable: &str) -> Setup {
        self.key_variable = Some(variable.to_string());
        self
    }

    /// The model as its own type, for `Debug`.
    pub fn debug_text(self) -> String {
        match self.provider {
            Provider::OpenAi => format!("{:?}", self.concrete::<OpenAiProtocol>()),
            Provider::Anthropic => format!("{:?}", self.concrete::<AnthropicProtocol>()),
        }
    }

    /// The model, ready for an agent.
    pub fn build(self) -> DynModel {
        match self.provider {
            Provider::OpenAi => Arc::new(self.concrete::<OpenAiProtocol>()),
            Provider::Anthropic => Arc::new(self.concrete::<AnthropicProtocol>()),
        }
    }

    /// The same builder chain on either client.
    fn concrete<P: Protocol>(self) -> HttpModel<P> {
        let options = self.options.with_hosts(HostPolicy::loopback());
        let mut model = HttpModel::<P>::new(self.model)
            .with_http_options(options)
            .with_streaming(self.streaming);
        if let Some(url) = self.base_url {
            model = model.with_base_url(url);
        }
        match self.key_variable {
            Some(variable) => model.with_api_key_env(variable),
            None => model.with_api_key(KEY),
        }
    }
}

/// A project folder holding `notes.txt` and the session that works in it.
pub struct Project {
    /// Kept so the folder lives as long as the session.
    _folder: TempDir,
    pub session: AgentSession,
}

/// The agent of the scripted conversation: instructions, the filesystem
/// bundle and `settings`.
pub fn agent(model: DynModel, settings: ModelSettings) -> Agent {
    AgentBuilder::new(model)
        .instructions(INSTRUCTIONS)
        .toolset(&filesystem_tools())
        .model_settings(settings)
        .build()
}

/// A session of [`agent`] on a local folder holding `notes.txt`.
pub fn project(model: DynModel, settings: ModelSettings) -> Project {
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join("notes.txt"), NOTES).unwrap();
    let provider = local(folder.path());
    let session = AgentSession::new(agent(model, settings)).with_environment(Arc::new(provider));
    Project {
        _folder: folder,
        session,
    }
}

/// A local provider over `root` that ignores the host user's git excludes.
fn local(root: &Path) -> LocalEnvironmentProvider {
    LocalEnvironmentProvider::new(root)
        .unwrap()
        .with_global_git_excludes(false)
}

/// `future`, failing the test (instead of hanging it) after 30 s.
pub async fn patiently<F: Future>(future: F) -> F::Output {
    tokio::time::timeout(PATIENCE, future)
        .await
        .expect("the provider test hung for 30 s")
}

/// The message of a failed run: the error must be a model error, and its
/// text is what a user sees.
pub fn model_failure(result: Result<impl std::fmt::Debug, AgentError>) -> String {
    match result {
        Err(error @ AgentError::Model(_)) => error.to_string(),
        other => panic!("expected a model error, got {other:?}"),
    }
}

/// Every tool return of `messages`, in order.
pub fn returns(messages: &[ModelMessage]) -> Vec<&ToolReturnPart> {
    messages
        .iter()
        .filter_map(|message| match message {
            ModelMessage::Request(request) => Some(request),
            ModelMessage::Response(_) => None,
        })
        .flat_map(|request| &request.parts)
        .filter_map(|part| match part {
            RequestPart::ToolReturn(part) => Some(part),
            _ => None,
        })
        .collect()
}

/// The payloads of the `kind` custom events among `records`.
pub fn custom_events(records: &[AgentStreamRecord], kind: ContextEventKind) -> Vec<Value> {
    records
        .iter()
        .filter_map(|record| match &record.event {
            AgentStreamEvent::Custom { event } if event.kind == kind => Some(event.payload.clone()),
            _ => None,
        })
        .collect()
}

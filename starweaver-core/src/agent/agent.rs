//! A reusable agent.

use std::sync::Arc;

use super::conversation::{run_segment, History, Reporting};
use super::run_loop::{AgentConfig, RunStart};
use super::stream::AgentEventSink;
use super::{AgentError, AgentRunOptions, AgentRunResult, AgentSession, AgentStream};
use crate::context::{AgentContext, ConversationId};
use crate::model::DynModel;
use crate::tools::ToolRegistry;

/// A model with tools and policies. Cheap to clone; every run starts a
/// fresh conversation (use [`AgentSession`] to keep one).
#[derive(Clone)]
pub struct Agent {
    config: Arc<AgentConfig>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("model", &self.config.model.name())
            .field("tools", &self.config.registry.names())
            .finish_non_exhaustive()
    }
}

impl Agent {
    pub(crate) fn from_config(config: Arc<AgentConfig>) -> Self {
        Self { config }
    }

    pub(crate) fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// The model.
    #[must_use]
    pub fn model(&self) -> &DynModel {
        &self.config.model
    }

    /// The agent's tools.
    #[must_use]
    pub fn tool_registry(&self) -> &ToolRegistry {
        &self.config.registry
    }

    /// `registry` with the tools each run of this agent adds to its own: the output tool
    /// ([`OUTPUT_TOOL_NAME`](super::OUTPUT_TOOL_NAME)) when the agent asks for structured output. What a run's
    /// first request offers, for listings that show it without running.
    #[must_use]
    pub fn with_run_tools(&self, registry: &ToolRegistry) -> ToolRegistry {
        let mut offered = registry.clone();
        if let Some(output) = &self.config.output {
            offered.insert_tool(output.tool());
        }
        offered
    }

    /// Runs a prompt in a fresh context.
    ///
    /// # Errors
    /// See [`AgentError`]; tool failures are not errors.
    pub async fn run(&self, prompt: impl Into<String>) -> Result<AgentRunResult, AgentError> {
        let mut context = AgentContext::default();
        self.run_with_context(prompt, &mut context).await
    }

    /// Runs a prompt against a host-owned context.
    ///
    /// # Errors
    /// See [`AgentError`].
    pub async fn run_with_context(
        &self,
        prompt: impl Into<String>,
        context: &mut AgentContext,
    ) -> Result<AgentRunResult, AgentError> {
        self.run_reporting(prompt.into(), context, Reporting::quiet())
            .await
            .map(|(result, _)| result)
    }

    /// Runs a prompt in a fresh context asking for an answer in the shape of `T`; see
    /// [`AgentSession::run_typed`].
    ///
    /// # Errors
    /// As [`AgentSession::run_typed`].
    pub async fn run_typed<T>(
        &self,
        prompt: impl Into<String>,
    ) -> Result<(Option<T>, AgentRunResult), AgentError>
    where
        T: serde::de::DeserializeOwned + schemars::JsonSchema,
    {
        self.session().run_typed::<T>(prompt).await
    }

    /// Runs a prompt and returns every run record with the result.
    ///
    /// # Errors
    /// See [`AgentError`].
    pub async fn run_stream(&self, prompt: impl Into<String>) -> Result<AgentStream, AgentError> {
        let mut context = AgentContext::default();
        let (result, records) = self
            .run_reporting(prompt.into(), &mut context, Reporting::recording())
            .await?;
        Ok(AgentStream::new(records, result))
    }

    /// Runs a prompt, handing each run record to `sink` as it happens.
    ///
    /// # Errors
    /// See [`AgentError`].
    pub async fn run_with_events(
        &self,
        prompt: impl Into<String>,
        context: &mut AgentContext,
        sink: AgentEventSink<'_>,
    ) -> Result<AgentRunResult, AgentError> {
        self.run_reporting(prompt.into(), context, Reporting::to_sink(sink))
            .await
            .map(|(result, _)| result)
    }

    async fn run_reporting(
        &self,
        prompt: String,
        context: &mut AgentContext,
        reporting: Reporting<'_>,
    ) -> Result<(AgentRunResult, Vec<super::AgentStreamRecord>), AgentError> {
        // No session keeps the history: a failed run's messages go with it.
        let mut messages = Vec::new();
        let mut failed_run = None;
        let output = run_segment(
            &self.config,
            &AgentRunOptions::default(),
            context,
            &ConversationId::default(),
            History {
                messages: &mut messages,
                failed_run: &mut failed_run,
                kept: false,
            },
            RunStart::Prompt(prompt),
            reporting,
        )
        .await
        .0?;
        Ok((output.result, output.records))
    }

    /// A session of this agent.
    #[must_use]
    pub fn session(&self) -> AgentSession {
        AgentSession::new(self.clone())
    }
}

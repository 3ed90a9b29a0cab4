//! A conversation with an agent across runs, approvals and processes.

use super::conversation::{ran_nothing, run_segment, History, Reporting, SegmentOutput};
use super::run_loop::{validate_results, RunStart};
use super::state::{FailedRun, WaitingState};
use super::stream::AgentEventSink;
use super::{
    Agent, AgentError, AgentHitlRequest, AgentHitlResults, AgentRunOptions, AgentRunResult,
    AgentSessionState, AgentStream,
};
use crate::context::{AgentContext, ConversationId};
use crate::environment::{
    attach_environment, attach_process_shell, attached_environment, attached_process_shell,
    DynEnvironment, DynProcessShell,
};
use crate::model::ModelMessage;

/// A conversation: messages and context persist between runs. A run that
/// hits an approval-gated or deferred call leaves the session waiting;
/// [`AgentSession::resume_after_hitl`] continues it, in this process or,
/// after [`AgentSession::export_state`] and [`AgentSession::restore`], in
/// another. A run that fails keeps its messages, marked by
/// [`AgentSession::failed_run`], so the host sees what its tools did.
#[derive(Debug)]
pub struct AgentSession {
    agent: Agent,
    context: AgentContext,
    messages: Vec<ModelMessage>,
    conversation_id: ConversationId,
    waiting: Option<WaitingState>,
    waiting_options: AgentRunOptions,
    failed_run: Option<FailedRun>,
}

impl AgentSession {
    /// A new session of `agent`.
    #[must_use]
    pub fn new(agent: Agent) -> Self {
        Self {
            agent,
            context: AgentContext::default(),
            messages: Vec::new(),
            conversation_id: ConversationId::default(),
            waiting: None,
            waiting_options: AgentRunOptions::default(),
            failed_run: None,
        }
    }

    /// Uses a host-prepared context (dependencies, grants, metadata).
    /// An environment attached earlier with [`Self::with_environment`]
    /// stays unless the new context brings its own, so the two builder
    /// calls compose in either order.
    #[must_use]
    pub fn with_context(mut self, mut context: AgentContext) -> Self {
        if let (Some(provider), None) = (self.environment(), attached_environment(&context)) {
            attach_environment(&mut context, provider);
        }
        if let (Some(provider), None) = (
            attached_process_shell(&self.context),
            attached_process_shell(&context),
        ) {
            attach_process_shell(&mut context, provider);
        }
        self.context = context;
        self
    }

    /// Makes `provider` the session's active environment: filesystem and
    /// shell bundles and skills act on it. Replaces an earlier one. The
    /// provider is a live dependency, not state: a session restored with
    /// [`Self::restore`] needs it attached again.
    #[must_use]
    pub fn with_environment(mut self, provider: DynEnvironment) -> Self {
        attach_environment(&mut self.context, provider);
        self
    }

    /// Makes `provider` run the session's background commands
    /// (`shell_exec` with `background: true` and the handle tools).
    /// Usually the same provider as [`Self::with_environment`]:
    /// `LocalEnvironmentProvider` and `VirtualEnvironmentProvider` are
    /// both. Like the environment, a live dependency a restored session
    /// needs attached again.
    #[must_use]
    pub fn with_process_shell(mut self, provider: DynProcessShell) -> Self {
        attach_process_shell(&mut self.context, provider);
        self
    }

    /// The session's active environment, if one is attached.
    #[must_use]
    pub fn environment(&self) -> Option<DynEnvironment> {
        attached_environment(&self.context)
    }

    /// The session's process shell, if one is attached.
    #[must_use]
    pub fn process_shell(&self) -> Option<DynProcessShell> {
        attached_process_shell(&self.context)
    }

    /// The session's context.
    #[must_use]
    pub fn context(&self) -> &AgentContext {
        &self.context
    }

    /// Mutable access to the context (attach dependencies, read events).
    pub fn context_mut(&mut self) -> &mut AgentContext {
        &mut self.context
    }

    /// The conversation so far.
    #[must_use]
    pub fn messages(&self) -> &[ModelMessage] {
        &self.messages
    }

    /// The conversation id.
    #[must_use]
    pub fn conversation_id(&self) -> &ConversationId {
        &self.conversation_id
    }

    /// Calls the session waits for (empty when not waiting).
    #[must_use]
    pub fn pending(&self) -> &[AgentHitlRequest] {
        self.waiting
            .as_ref()
            .map_or(&[], |waiting| waiting.pending.as_slice())
    }

    /// True while approvals or deferred results are outstanding.
    #[must_use]
    pub fn is_waiting(&self) -> bool {
        self.waiting.is_some()
    }

    /// The last run, if it failed. Its messages are still in
    /// [`Self::messages`] from [`FailedRun::first_message`] on, every tool
    /// call answered (calls that never ran get a `cancelled` return marked
    /// `metadata.run_failed`), so the host can inspect what already
    /// happened before it retries. Cleared when the next run starts.
    #[must_use]
    pub fn failed_run(&self) -> Option<&FailedRun> {
        self.failed_run.as_ref()
    }

    /// Drops the failed run's messages and its marker, returning the
    /// messages (empty when the last run did not fail): the conversation
    /// is as it was before that run. What its tools changed (files, the
    /// context) is not undone.
    pub fn discard_failed_run(&mut self) -> Vec<ModelMessage> {
        match self.failed_run.take() {
            Some(failed) => {
                let first = failed.first_message.min(self.messages.len());
                self.messages.split_off(first)
            }
            None => Vec::new(),
        }
    }

    /// Runs a prompt.
    ///
    /// # Errors
    /// See [`AgentError`]; [`AgentError::SessionWaiting`] while waiting
    /// (the session is unchanged). A run that fails once it started keeps
    /// its messages and is reported by [`Self::failed_run`].
    pub async fn run(&mut self, prompt: impl Into<String>) -> Result<AgentRunResult, AgentError> {
        self.run_with_options(prompt, AgentRunOptions::default())
            .await
    }

    /// Runs a prompt with run-scoped tools, settings, params or
    /// instructions; the agent itself is unchanged.
    ///
    /// # Errors
    /// See [`AgentError`].
    pub async fn run_with_options(
        &mut self,
        prompt: impl Into<String>,
        options: AgentRunOptions,
    ) -> Result<AgentRunResult, AgentError> {
        let reporting = Reporting::quiet();
        Ok(self.start(prompt.into(), options, reporting).await?.result)
    }

    /// Runs a prompt asking for an answer in the shape of `T`: the run offers the output tool
    /// with `T`'s schema (from [`crate::tools::schema_for_type`], in place of the agent's own
    /// output spec, with its retries or [`super::DEFAULT_OUTPUT_RETRIES`]) and the accepted
    /// answer comes back deserialized, beside the run's result. The value is `None` only while
    /// the run waits for approvals; the resumed run's result carries it in
    /// [`AgentRunResult::structured_output`].
    ///
    /// # Errors
    /// As [`Self::run_with_options`]; [`AgentError::OutputInvalid`] when no valid answer came
    /// within the retries, [`AgentError::OutputType`] when the accepted value is not a `T`.
    pub async fn run_typed<T>(
        &mut self,
        prompt: impl Into<String>,
    ) -> Result<(Option<T>, AgentRunResult), AgentError>
    where
        T: serde::de::DeserializeOwned + schemars::JsonSchema,
    {
        let retries = self
            .agent
            .config()
            .output
            .as_ref()
            .map_or(super::DEFAULT_OUTPUT_RETRIES, |output| output.retries());
        let options = AgentRunOptions::typed_output::<T>(retries);
        let result = self.run_with_options(prompt, options).await?;
        let value = super::output::typed_value::<T>(&result)?;
        Ok((value, result))
    }

    /// Runs a prompt and returns every run record with the result.
    ///
    /// # Errors
    /// See [`AgentError`].
    pub async fn run_stream(
        &mut self,
        prompt: impl Into<String>,
    ) -> Result<AgentStream, AgentError> {
        let reporting = Reporting::recording();
        let output = self
            .start(prompt.into(), AgentRunOptions::default(), reporting)
            .await?;
        Ok(AgentStream::new(output.records, output.result))
    }

    /// Runs a prompt, handing each run record to `sink` as it happens.
    ///
    /// # Errors
    /// See [`AgentError`].
    pub async fn run_with_events(
        &mut self,
        prompt: impl Into<String>,
        options: AgentRunOptions,
        sink: AgentEventSink<'_>,
    ) -> Result<AgentRunResult, AgentError> {
        let reporting = Reporting::to_sink(sink);
        Ok(self.start(prompt.into(), options, reporting).await?.result)
    }

    /// Continues a waiting run with approvals and deferred results. Every
    /// pending call needs an answer.
    ///
    /// # Errors
    /// [`AgentError::NotWaiting`], [`AgentError::MissingHitlResult`],
    /// [`AgentError::UnknownHitlResult`], [`AgentError::MissingTool`],
    /// [`AgentError::InvalidHitlInput`] and [`AgentError::InvalidToolName`]
    /// ran nothing and leave the session waiting; other errors end the
    /// paused run, whose messages stay, marked by [`Self::failed_run`].
    pub async fn resume_after_hitl(
        &mut self,
        results: impl Into<AgentHitlResults>,
    ) -> Result<AgentRunResult, AgentError> {
        let reporting = Reporting::quiet();
        Ok(self.resume(results.into(), None, reporting).await?.result)
    }

    /// Like [`Self::resume_after_hitl`], reporting run records to `sink`.
    ///
    /// # Errors
    /// As [`Self::resume_after_hitl`].
    pub async fn resume_with_events(
        &mut self,
        results: impl Into<AgentHitlResults>,
        sink: AgentEventSink<'_>,
    ) -> Result<AgentRunResult, AgentError> {
        let reporting = Reporting::to_sink(sink);
        Ok(self.resume(results.into(), None, reporting).await?.result)
    }

    /// Like [`Self::resume_with_events`], with `options` in place of the
    /// options of the run that paused: the rest of the run (and any later
    /// resume of it) uses them. A restored session's paused run has none
    /// (options are not saved), so this is how its resume gets a
    /// cancellation token, settings, or run-scoped tools that may be
    /// pending. In the same process, give again what the paused run had.
    ///
    /// # Errors
    /// As [`Self::resume_after_hitl`]; a pending call whose tool neither the
    /// agent nor `options` has is [`AgentError::MissingTool`] (for an agent
    /// with toolsets that list their tools only once set up, such as MCP
    /// servers, a tool they no longer list is a `not found` return instead,
    /// since it is known only once the resumed run set them up). The options
    /// are kept even when the resume ran nothing.
    pub async fn resume_with_options(
        &mut self,
        results: impl Into<AgentHitlResults>,
        options: AgentRunOptions,
        sink: AgentEventSink<'_>,
    ) -> Result<AgentRunResult, AgentError> {
        let reporting = Reporting::to_sink(sink);
        Ok(self
            .resume(results.into(), Some(options), reporting)
            .await?
            .result)
    }

    async fn start(
        &mut self,
        prompt: String,
        options: AgentRunOptions,
        reporting: Reporting<'_>,
    ) -> Result<SegmentOutput, AgentError> {
        if let Some(waiting) = &self.waiting {
            return Err(AgentError::SessionWaiting {
                pending: waiting.pending.len(),
            });
        }
        let output = run_segment(
            self.agent.config(),
            &options,
            &mut self.context,
            &self.conversation_id,
            History {
                messages: &mut self.messages,
                failed_run: &mut self.failed_run,
                kept: true,
            },
            RunStart::Prompt(prompt),
            reporting,
        )
        .await
        .0?;
        self.waiting.clone_from(&output.waiting);
        self.waiting_options = options;
        Ok(output)
    }

    async fn resume(
        &mut self,
        results: AgentHitlResults,
        options: Option<AgentRunOptions>,
        reporting: Reporting<'_>,
    ) -> Result<SegmentOutput, AgentError> {
        let waiting = self.waiting.as_ref().ok_or(AgentError::NotWaiting)?;
        if let Some(options) = options {
            self.waiting_options = options;
        }
        // Check the answers before anything runs, so a mistake leaves the
        // session waiting as it was.
        validate_results(waiting, &results)?;
        // A toolset that lists its tools only once set up (an MCP server's) is not set up
        // yet: its tools are known only inside the segment, where a call to one that is gone
        // returns `not found` to the model like any unknown tool.
        let registry = self.agent.tool_registry();
        let listed_later = registry.lists_tools_after_setup();
        // A sub-agent's own calls are its tools', not this agent's: the call that runs the
        // sub-agent is checked instead.
        let own = waiting
            .pending
            .iter()
            .filter(|request| request.agent.is_empty());
        for request in own.chain(&waiting.delegated) {
            let known = registry.get(&request.tool_name).is_some()
                || self.waiting_options.tools.get(&request.tool_name).is_some()
                || listed_later;
            if !known {
                return Err(AgentError::MissingTool {
                    tool_call_id: request.tool_call_id.clone(),
                    tool: request.tool_name.clone(),
                });
            }
        }
        // The paused state stays in the session until the resume settles,
        // so a resume that is cancelled half-way can be tried again.
        let waiting = waiting.clone();
        let options = self.waiting_options.clone();
        let (outcome, next_sequence) = run_segment(
            self.agent.config(),
            &options,
            &mut self.context,
            &self.conversation_id,
            History {
                messages: &mut self.messages,
                failed_run: &mut self.failed_run,
                kept: true,
            },
            RunStart::Resume(Box::new(waiting), results),
            reporting,
        )
        .await;
        match outcome {
            Ok(output) => {
                self.waiting.clone_from(&output.waiting);
                Ok(output)
            }
            // Nothing ran: still waiting, as before, but the records
            // already sent keep their sequence numbers.
            Err(error) if ran_nothing(&error) => {
                if let Some(waiting) = self.waiting.as_mut() {
                    waiting.progress.next_sequence = next_sequence;
                }
                Err(error)
            }
            Err(error) => {
                self.waiting = None;
                Err(error)
            }
        }
    }

    /// Everything needed to continue elsewhere: messages, the
    /// serializable context, the paused run and the failed-run marker. Run-scoped tools given
    /// through [`AgentRunOptions`] are not part of it: a restored session
    /// resumes with the agent's own tools, unless
    /// [`Self::resume_with_options`] gives them again.
    #[must_use]
    pub fn export_state(&self) -> AgentSessionState {
        AgentSessionState {
            version: AgentSessionState::VERSION,
            conversation_id: self.conversation_id.clone(),
            messages: self.messages.clone(),
            context: self.context.to_state(),
            waiting: self.waiting.clone(),
            failed_run: self.failed_run.clone(),
        }
    }

    /// A session of `agent` continuing from exported state. Its paused run
    /// has no run options (no cancellation token either); give them with
    /// [`Self::resume_with_options`].
    #[must_use]
    pub fn restore(agent: Agent, state: AgentSessionState) -> Self {
        let mut context = AgentContext::default();
        context.apply_state(state.context);
        Self {
            agent,
            context,
            messages: state.messages,
            conversation_id: state.conversation_id,
            waiting: state.waiting,
            waiting_options: AgentRunOptions::default(),
            failed_run: state.failed_run,
        }
    }
}

//! The run loop: request, schedule tool calls, apply returns, repeat.

use futures::StreamExt;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

mod call_ids;
mod notices;
mod resume;

pub(crate) use resume::validate_results;

use super::deep_arguments::{discard_call, drop_deep_arguments};
use super::output::OutputTool;
use super::scheduling::{execute_batch, sequential_reason, BatchEvent, CallReport, CallReports};
use super::spans;
use super::state::{RunProgress, WaitingState};
use super::stream::Recorder;
use super::sub_agent::{split_pending, sub_agent_usage};
use super::DynRunJournal;
use super::OUTPUT_TOOL_NAME;
use super::{
    AgentError, AgentHitlRequest, AgentHitlResults, AgentRunOptions, AgentRuntimePolicy,
    AgentStreamEvent,
};
use crate::context::ToolConfig;
use crate::context::{AgentContext, AgentContextHandle, ContextEvent, ConversationId};
use crate::model::{
    DynModel, ModelMessage, ModelRequest, ModelRequestParameters, ModelResponse, ModelSettings,
    ModelStreamEvent, RequestPart, RetryPromptPart, ToolCallPart, ToolReturnPart,
};
use crate::tools::ToolRegistry;
use crate::tools::{NestedRecordSink, ToolContext, ToolProgressSink};
use call_ids::unique_call_ids;
use notices::ReportedNotices;
use serde_json::Value;

/// Everything an agent was built with.
pub(crate) struct AgentConfig {
    /// The agent's name, for traces.
    pub(crate) name: Option<String>,
    pub(crate) model: DynModel,
    pub(crate) registry: ToolRegistry,
    pub(crate) instructions: Vec<String>,
    pub(crate) tool_config: Option<ToolConfig>,
    pub(crate) policy: AgentRuntimePolicy,
    pub(crate) settings: ModelSettings,
    pub(crate) startup_events: Vec<ContextEvent>,
    /// The output tool, when the agent asks for a structured answer.
    pub(crate) output: Option<OutputTool>,
}

/// How a run segment begins.
pub(crate) enum RunStart {
    Prompt(String),
    Resume(Box<WaitingState>, AgentHitlResults),
}

/// How a run segment ends.
pub(crate) enum RunEnd {
    Completed {
        output: String,
        structured_output: Option<Value>,
        progress: RunProgress,
    },
    Waiting(WaitingState),
}

enum Next {
    Request(Vec<RequestPart>),
    Wait(WaitingState),
    /// The batch ends the run; its returns still go into the history, so
    /// a failed run shows what its tools did.
    Fail(Vec<RequestPart>, AgentError),
}

pub(crate) struct Run<'a, 'r> {
    config: &'a AgentConfig,
    registry: ToolRegistry,
    settings: ModelSettings,
    extra_instructions: &'a [String],
    cancellation: Option<CancellationToken>,
    context: &'a AgentContextHandle,
    conversation_id: &'a ConversationId,
    recorder: &'a mut Recorder<'r>,
    seen_events: usize,
    notices: ReportedNotices,
    journal: Option<DynRunJournal>,
    /// The output tool of this run (the typed run's, else the agent's).
    output: Option<OutputTool>,
    /// A tool of the agent or the run already had the output tool's name.
    output_clash: bool,
    /// Where the run's calls send progress (and their sub-agents' records), made once per
    /// run and handed to each call's context.
    sinks: CallSinks,
    /// Where those reports arrive.
    reports: CallReports,
}

impl<'a, 'r> Run<'a, 'r> {
    pub(crate) fn new(
        config: &'a AgentConfig,
        options: &'a AgentRunOptions,
        context: &'a AgentContextHandle,
        conversation_id: &'a ConversationId,
        recorder: &'a mut Recorder<'r>,
    ) -> Self {
        let mut registry = config.registry.clone();
        registry.extend(&options.tools);
        let output = options.output.clone().or_else(|| config.output.clone());
        let output_clash = output.is_some() && registry.get(OUTPUT_TOOL_NAME).is_some();
        if let Some(output) = &output {
            registry.insert_tool(output.tool());
        }
        let registry = registry
            .with_fallback_limits(config.policy.timeout_ms, config.policy.max_retries)
            .caching_dependencies();
        let settings = options.settings.as_ref().map_or_else(
            || config.settings.clone(),
            |settings| config.settings.merged(settings),
        );
        let seen_events = context.read(|context| context.events.events().len());
        let (sinks, reports) = call_channels(recorder.is_active());
        Self {
            sinks,
            reports,
            config,
            registry,
            settings,
            extra_instructions: &options.instructions,
            cancellation: options.cancellation.clone(),
            context,
            conversation_id,
            recorder,
            seen_events,
            notices: ReportedNotices::default(),
            journal: options.journal.clone(),
            output,
            output_clash,
        }
    }

    /// Runs one segment: toolset setup, the loop, toolset teardown.
    pub(crate) async fn execute(
        &mut self,
        messages: &mut Vec<ModelMessage>,
        start: RunStart,
        progress: RunProgress,
    ) -> Result<RunEnd, AgentError> {
        if let Some((name, problem)) = self.registry.invalid_tool_names().into_iter().next() {
            return Err(AgentError::InvalidToolName { name, problem });
        }
        if self.output_clash {
            return Err(AgentError::OutputToolClash {
                tool: OUTPUT_TOOL_NAME.to_string(),
            });
        }
        // Startup events belong to the run, not to each segment: a resumed
        // run has already reported them.
        let startup = match start {
            RunStart::Prompt(_) => self.config.startup_events.clone(),
            RunStart::Resume(..) => Vec::new(),
        };
        self.context.update(|context| {
            if let Some(tool_config) = &self.config.tool_config {
                context.tool_config = tool_config.clone();
            }
            for event in startup {
                context.events.publish(event);
            }
        });
        self.recorder.emit(|| AgentStreamEvent::RunStarted {
            run_id: progress.run_id.clone(),
        });
        self.lifecycle(true).await;
        let end = self.drive(messages, start, progress).await;
        self.lifecycle(false).await;
        // The terminal record comes last, after the toolsets closed.
        match &end {
            Ok(RunEnd::Completed {
                output,
                structured_output,
                ..
            }) => self.recorder.emit(|| AgentStreamEvent::RunCompleted {
                output: output.clone(),
                structured_output: structured_output.clone(),
            }),
            Ok(RunEnd::Waiting(waiting)) => self.recorder.emit(|| AgentStreamEvent::Waiting {
                requests: waiting.pending.clone(),
            }),
            Err(_) => {}
        }
        end
    }

    async fn lifecycle(&mut self, enter: bool) {
        let mut taken = TakenContext::new(self.context);
        if enter {
            self.registry.set_up_toolsets(taken.context()).await;
        } else {
            self.registry.exit_toolsets(taken.context()).await;
        }
        drop(taken);
        self.forward_events();
    }

    async fn drive(
        &mut self,
        messages: &mut Vec<ModelMessage>,
        start: RunStart,
        mut progress: RunProgress,
    ) -> Result<RunEnd, AgentError> {
        match start {
            RunStart::Prompt(prompt) => {
                messages.push(ModelMessage::Request(ModelRequest::user(prompt)))
            }
            RunStart::Resume(waiting, results) => {
                let mut waiting = *waiting;
                // An approval holds for the call from now on, so a tool that
                // is both gated and deferred does not ask twice.
                for request in &waiting.pending {
                    let approved = results
                        .interactions
                        .get(&request.tool_call_id)
                        .is_some_and(|interaction| interaction.approved);
                    if approved {
                        let key = approval_key(waiting.progress.step, &request.tool_call_id);
                        waiting.progress.approved_calls.insert(key);
                    }
                }
                let (returns, fresh) = self.resume_calls(&waiting, &results).await?;
                progress = waiting.progress;
                let calls = waiting.calls;
                let structured_output = self.accepted_output(&returns);
                let next = self.process_returns(&mut progress, move || calls, returns, &fresh);
                if let Some(waiting) = apply(messages, next)? {
                    return Ok(RunEnd::Waiting(waiting));
                }
                if structured_output.is_some() {
                    return Ok(RunEnd::Completed {
                        output: last_text(messages),
                        structured_output,
                        progress,
                    });
                }
            }
        }
        loop {
            if self
                .cancellation
                .as_ref()
                .is_some_and(CancellationToken::is_cancelled)
            {
                return Err(AgentError::Cancelled);
            }
            let max_steps = self.config.policy.max_steps;
            // A sub-agent's requests count as steps of the run that called it.
            let steps = u64::from(progress.step).saturating_add(progress.delegated_requests);
            if steps >= u64::from(max_steps) {
                return Err(AgentError::MaxStepsExceeded { max_steps });
            }
            // Like the step limit, checked before a request, so every call of the last
            // response has its return in the history.
            if let Some(max_tokens) = self.config.policy.max_tokens {
                let used = progress
                    .usage
                    .input_tokens
                    .saturating_add(progress.usage.output_tokens);
                if used >= max_tokens {
                    return Err(AgentError::TokenBudgetExceeded { max_tokens, used });
                }
            }
            progress.step += 1;
            self.refresh_toolsets().await?;
            let parameters = self.prepare_request(progress.step)?;
            // A step an earlier attempt of this run journaled is not asked again.
            let recorded = self
                .journal
                .as_ref()
                .and_then(|journal| journal.recorded_response(progress.step));
            let replayed = recorded.is_some();
            let response = match recorded {
                Some(response) => response,
                None => {
                    // Cancellation aborts the request in flight: dropping it closes the
                    // connection.
                    let span = spans::chat(&self.config.model, progress.step, messages);
                    let cancellation = self.cancellation.clone();
                    let request = self.request(messages, &parameters).instrument(span.clone());
                    let response = match cancellation {
                        Some(token) => tokio::select! {
                            biased;
                            () = token.cancelled() => Err(AgentError::Cancelled),
                            response = request => response,
                        },
                        None => request.await,
                    };
                    spans::chat_ended(&span, response.as_ref());
                    let mut response = response?;
                    drop_deep_arguments(&mut response, self.registry.limits().max_argument_depth);
                    unique_call_ids(&mut response, progress.step);
                    // Written down before any of its calls runs.
                    if let Some(journal) = &self.journal {
                        journal.record_response(progress.step, &response).await?;
                    }
                    response
                }
            };
            let mut usage = response.usage;
            usage.requests = usage.requests.max(1);
            progress.usage.add(&usage);
            // Tool calls are counted when they run, below.
            let requested = crate::model::Usage {
                tool_calls: 0,
                ..usage
            };
            self.context.update(|context| context.usage.add(&requested));
            let output = response.text_content();
            messages.push(ModelMessage::Response(response));
            // The calls are read where the history keeps them; only a run
            // that waits copies them out.
            let calls: Vec<&ToolCallPart> = match messages.last() {
                Some(ModelMessage::Response(response)) => response.calls().collect(),
                _ => Vec::new(),
            };
            if calls.is_empty() {
                if self.output.is_none() {
                    return Ok(RunEnd::Completed {
                        output,
                        structured_output: None,
                        progress,
                    });
                }
                // An answer in text is an invalid answer: the model is told to call the output
                // tool, within the same budget as answers the schema rejects.
                let next = self.text_answer(&mut progress);
                apply(messages, next)?;
                continue;
            }
            let returns = self.execute_calls(&mut progress, &calls, replayed).await?;
            let structured_output = self.accepted_output(&returns);
            let next = self.process_returns(
                &mut progress,
                || calls.iter().map(|call| (*call).clone()).collect(),
                returns,
                // Every return of a batch that just ran is fresh.
                &[],
            );
            if let Some(waiting) = apply(messages, next)? {
                return Ok(RunEnd::Waiting(waiting));
            }
            if structured_output.is_some() {
                return Ok(RunEnd::Completed {
                    output,
                    structured_output,
                    progress,
                });
            }
        }
    }

    /// The answer the output tool accepted in these returns (the first, when it was called
    /// more than once).
    fn accepted_output(&self, returns: &[Option<ToolReturnPart>]) -> Option<Value> {
        let output = self.output.as_ref()?;
        returns
            .iter()
            .flatten()
            .find_map(|part| output.value_of(part))
    }

    /// What follows a text answer of a run that asks for a structured one: a retry prompt
    /// telling the model to call the output tool, or, past the output's retries, the failure.
    fn text_answer(&self, progress: &mut RunProgress) -> Next {
        let retries = self.output.as_ref().map_or(0, OutputTool::retries);
        let used = progress
            .model_retries
            .entry(OUTPUT_TOOL_NAME.to_string())
            .or_insert(0);
        *used = used.saturating_add(1);
        if *used > retries {
            return Next::Fail(
                Vec::new(),
                AgentError::OutputInvalid {
                    tool: OUTPUT_TOOL_NAME.to_string(),
                    attempts: retries.saturating_add(1),
                    message: format!(
                        "the model answered in text without calling `{OUTPUT_TOOL_NAME}`"
                    ),
                },
            );
        }
        Next::Request(vec![RequestPart::RetryPrompt(RetryPromptPart {
            tool_call_id: None,
            tool_name: None,
            content: format!(
                "The answer must be given by calling the tool `{OUTPUT_TOOL_NAME}` with \
                 arguments that match its schema; call `{OUTPUT_TOOL_NAME}` to finish."
            ),
        })])
    }

    /// The tools, instructions and settings of step `step`'s request, with its notices and
    /// its `model_request` record.
    fn prepare_request(&mut self, step: u32) -> Result<ModelRequestParameters, AgentError> {
        let definitions = self
            .context
            .update(|context| self.registry.prepare_definitions(context));
        self.forward_events();
        let parameters = ModelRequestParameters {
            tools: definitions?,
            instructions: self.instructions(),
            settings: self.settings.clone(),
        };
        let reported = self
            .notices
            .report(self.config.model.as_ref(), &parameters, self.context);
        self.forward_events();
        reported?;
        self.recorder.emit(|| AgentStreamEvent::ModelRequest {
            step,
            tools: parameters
                .tools
                .iter()
                .map(|tool| tool.name.clone())
                .collect(),
        });
        Ok(parameters)
    }

    /// Re-reads the toolsets whose tool lists changed (an MCP server announced a new one), so
    /// this request carries the tools they offer now; each re-read is a context event.
    async fn refresh_toolsets(&mut self) -> Result<(), AgentError> {
        if !self.registry.tool_lists_changed() {
            return Ok(());
        }
        let reports = match self.cancellation.clone() {
            Some(token) => tokio::select! {
                biased;
                () = token.cancelled() => return Err(AgentError::Cancelled),
                reports = self.registry.refresh_toolsets() => reports,
            },
            None => self.registry.refresh_toolsets().await,
        };
        self.context.update(|context| {
            for report in &reports {
                report.publish(context);
            }
        });
        self.forward_events();
        Ok(())
    }

    fn instructions(&self) -> Vec<String> {
        let mut instructions = self.config.instructions.clone();
        instructions.extend(
            self.registry
                .instructions()
                .into_iter()
                .map(|instruction| instruction.text),
        );
        instructions.extend(self.extra_instructions.iter().cloned());
        instructions
    }

    async fn request(
        &mut self,
        messages: &[ModelMessage],
        parameters: &ModelRequestParameters,
    ) -> Result<ModelResponse, AgentError> {
        let model = &self.config.model;
        if !self.recorder.is_active() {
            return Ok(model.request(messages, parameters).await?);
        }
        let mut stream = model.request_stream(messages, parameters).await?;
        let mut text = String::new();
        let mut calls = 0usize;
        while let Some(event) = stream.next().await {
            match event? {
                ModelStreamEvent::TextDelta(delta) => {
                    text.push_str(&delta);
                    self.recorder.emit(|| AgentStreamEvent::TextDelta { delta });
                }
                // The finished response carries the calls again.
                ModelStreamEvent::ToolCall(call) => {
                    calls += 1;
                    discard_call(call);
                }
                ModelStreamEvent::Finished(response) => return Ok(response),
            }
        }
        // The stream ended before `Finished`: the answer is incomplete.
        Err(AgentError::Model(crate::model::ModelError::Request {
            model: model.name().to_string(),
            message: format!(
                "the response stream ended before it finished ({} characters of text and {} tool call(s) arrived); retry the request",
                text.chars().count(),
                calls
            ),
        }))
    }

    fn tool_context(&self, progress: &RunProgress, call: &ToolCallPart) -> ToolContext {
        call_in(&self.scope_context(progress), progress, call)
    }

    /// What the calls of one batch share: ids, the ambient context and
    /// cancellation. Each call's context is a clone, so the batch allocates
    /// this once.
    fn scope_context(&self, progress: &RunProgress) -> ToolContext {
        let ctx = ToolContext::new(progress.run_id.clone(), self.conversation_id.clone(), 0)
            .with_agent_context(self.context.clone());
        match &self.cancellation {
            Some(token) => ctx.with_cancellation(token.clone()),
            None => ctx,
        }
    }

    /// Runs a response's calls, except those whose returns the journal holds from an earlier
    /// attempt. In a step such an attempt journaled (`replayed`), a call without a return may
    /// have been running when that attempt died: its context says so. One return per call, in
    /// model order.
    async fn execute_calls(
        &mut self,
        progress: &mut RunProgress,
        calls: &[&ToolCallPart],
        replayed: bool,
    ) -> Result<Vec<Option<ToolReturnPart>>, AgentError> {
        let returns = match self.journal.clone() {
            None => self.run_batch(progress, calls, false).await?,
            Some(journal) => {
                let recorded: Vec<Option<ToolReturnPart>> = calls
                    .iter()
                    .map(|call| journal.recorded_return(progress.step, &call.id))
                    .collect();
                let to_run: Vec<&ToolCallPart> = calls
                    .iter()
                    .zip(&recorded)
                    .filter(|(_, recorded)| recorded.is_none())
                    .map(|(call, _)| *call)
                    .collect();
                let ran = if to_run.is_empty() {
                    Vec::new()
                } else {
                    self.run_batch(progress, &to_run, replayed).await?
                };
                let mut ran = ran.into_iter().flatten();
                recorded
                    .into_iter()
                    .map(|recorded| recorded.or_else(|| ran.next()))
                    .collect()
            }
        };
        let count = calls.len() as u64;
        progress.usage.tool_calls = progress.usage.tool_calls.saturating_add(count);
        self.context.update(|context| {
            context.usage.tool_calls = context.usage.tool_calls.saturating_add(count)
        });
        Ok(returns)
    }

    /// Runs calls as one batch, concurrently unless something asks for model order, writing
    /// each return to the journal as it arrives.
    async fn run_batch(
        &mut self,
        progress: &RunProgress,
        calls: &[&ToolCallPart],
        may_have_run: bool,
    ) -> Result<Vec<Option<ToolReturnPart>>, super::JournalError> {
        let reason = sequential_reason(&self.config.policy, &self.registry, calls);
        self.recorder.emit(|| AgentStreamEvent::ToolBatch {
            mode: if reason.is_some() {
                "sequential"
            } else {
                "parallel"
            }
            .to_string(),
            reason: reason.map(str::to_string),
            calls: calls.len(),
        });
        for call in calls {
            self.recorder.emit(|| AgentStreamEvent::ToolCall {
                call: (*call).clone(),
            });
        }
        // What a call of an earlier batch reported after it returned is not this batch's.
        self.reports.discard();
        let scope = self
            .sinks
            .attach(self.scope_context(progress))
            .with_may_have_run(may_have_run);
        // Each return (and the context events its tool published) is
        // reported as the call finishes, not when the batch does; progress
        // as it arrives.
        let recorder = &mut *self.recorder;
        let context = self.context;
        let seen = &mut self.seen_events;
        let mut counted = ProgressCounts::default();
        let journal = self
            .journal
            .as_deref()
            .map(|journal| (journal, progress.step));
        let returns = execute_batch(
            &self.registry,
            calls,
            |call| call_in(&scope, progress, call),
            reason.is_some(),
            &mut self.reports,
            journal,
            |event| match event {
                BatchEvent::Report(report) => counted.emit(recorder, report),
                BatchEvent::Returned(part) => {
                    recorder.emit(|| AgentStreamEvent::ToolReturn { part: part.clone() });
                    // Nobody listening: the events are counted once, after the batch.
                    if recorder.is_active() {
                        forward(context, seen, recorder);
                    }
                }
            },
        )
        .await;
        // A run nobody listens to counts the batch's events here, a batch that failed included.
        self.forward_events();
        returns
    }

    /// Applies returns in model order: pending calls make the run wait;
    /// model-retry returns become retry prompts within the budget.
    ///
    /// `fresh[i]` is false when return `i` was counted before (a resumed run's returns that
    /// did not run again); returns past the end of `fresh` are fresh.
    fn process_returns(
        &self,
        progress: &mut RunProgress,
        calls: impl FnOnce() -> Vec<ToolCallPart>,
        returns: Vec<Option<ToolReturnPart>>,
        fresh: &[bool],
    ) -> Next {
        // Budgets first: a batch that exhausts one fails before it can
        // pause for approvals that would never be resumed.
        self.count_sub_agents(progress, &returns, fresh);
        if let Some(error) = self.count_retries(progress, &returns, fresh) {
            return Next::Fail(request_parts(returns), error);
        }
        let (pending, delegated) = split_pending(
            returns
                .iter()
                .flatten()
                .filter_map(AgentHitlRequest::from_return)
                .collect(),
        );
        if !pending.is_empty() {
            let returns = returns
                .into_iter()
                .map(|part| part.filter(|part| !part.kind.is_control_flow()))
                .collect();
            return Next::Wait(WaitingState {
                progress: progress.clone(),
                calls: calls(),
                returns,
                pending,
                delegated,
                message_checkpoint: 0,
            });
        }
        Next::Request(request_parts(returns))
    }

    /// Adds what the sub-agents of the fresh returns used to the run's usage (and the
    /// context's): their requests count against the step limit, their tokens against the
    /// token budget.
    fn count_sub_agents(
        &self,
        progress: &mut RunProgress,
        returns: &[Option<ToolReturnPart>],
        fresh: &[bool],
    ) {
        for (index, part) in returns.iter().enumerate() {
            let Some(part) = part else { continue };
            if !fresh.get(index).copied().unwrap_or(true) {
                continue;
            }
            let Some(usage) = sub_agent_usage(part) else {
                continue;
            };
            progress.usage.add(&usage);
            progress.delegated_requests =
                progress.delegated_requests.saturating_add(usage.requests);
            self.context.update(|context| context.usage.add(&usage));
        }
    }

    /// Counts the fresh model-retry returns against their tools' budgets;
    /// the error of the first budget exceeded.
    fn count_retries(
        &self,
        progress: &mut RunProgress,
        returns: &[Option<ToolReturnPart>],
        fresh: &[bool],
    ) -> Option<AgentError> {
        for (index, part) in returns.iter().enumerate() {
            let Some(part) = part else { continue };
            if !part.kind.is_model_retry() || !fresh.get(index).copied().unwrap_or(true) {
                continue;
            }
            let used = progress
                .model_retries
                .entry(part.tool_name.to_string())
                .or_insert(0);
            *used = used.saturating_add(1);
            let max_retries = self.registry.max_retries_for(&part.tool_name);
            if *used > max_retries && self.output.is_some() && part.tool_name == OUTPUT_TOOL_NAME {
                return Some(AgentError::OutputInvalid {
                    tool: OUTPUT_TOOL_NAME.to_string(),
                    attempts: max_retries.saturating_add(1),
                    message: retry_message(part),
                });
            }
            if *used > max_retries {
                return Some(AgentError::ToolRetriesExhausted {
                    tool: part.tool_name.to_string(),
                    max_retries,
                    message: retry_message(part),
                });
            }
        }
        None
    }

    fn forward_events(&mut self) {
        forward(self.context, &mut self.seen_events, self.recorder);
    }
}

/// Puts what a batch produced into the history: the next request, or
/// the returns of a batch that failed the run. `Some` when the run waits.
fn apply(messages: &mut Vec<ModelMessage>, next: Next) -> Result<Option<WaitingState>, AgentError> {
    match next {
        Next::Request(parts) => {
            messages.push(ModelMessage::Request(ModelRequest { parts }));
            Ok(None)
        }
        Next::Wait(waiting) => Ok(Some(waiting)),
        Next::Fail(parts, error) => {
            if !parts.is_empty() {
                messages.push(ModelMessage::Request(ModelRequest { parts }));
            }
            Err(error)
        }
    }
}

/// The request parts of a batch's returns in model order: model-retry
/// returns become retry prompts; calls still waiting (control flow) have
/// none.
fn request_parts(returns: Vec<Option<ToolReturnPart>>) -> Vec<RequestPart> {
    // One pass that the standard library runs in place, in the returns' own buffer (a
    // request part and a slot are the same size): each return is moved once, not out
    // into a new vector's.
    returns
        .into_iter()
        .filter_map(|part| {
            let part = part.filter(|part| !part.kind.is_control_flow())?;
            if !part.kind.is_model_retry() {
                return Some(RequestPart::ToolReturn(part));
            }
            let message = retry_message(&part);
            Some(RequestPart::RetryPrompt(RetryPromptPart {
                tool_call_id: Some(part.tool_call_id.into_string()),
                tool_name: Some(part.tool_name.into_string()),
                content: format!("{message}\nFix the call and try again."),
            }))
        })
        .collect()
}

/// Reports context events published since `seen` as `Custom` records.
fn forward(context: &AgentContextHandle, seen: &mut usize, recorder: &mut Recorder<'_>) {
    let from = *seen;
    if !recorder.is_active() {
        // Nobody listens: count the new events without copying them.
        let total = context.read(|context| context.events.events().len());
        let fresh = total.saturating_sub(from);
        *seen += fresh;
        recorder.skip(fresh as u64);
        return;
    }
    let fresh: Vec<ContextEvent> = context.read(|context| {
        context
            .events
            .events()
            .get(from..)
            .map(<[ContextEvent]>::to_vec)
            .unwrap_or_default()
    });
    *seen += fresh.len();
    for event in fresh {
        recorder.emit(|| AgentStreamEvent::Custom { event });
    }
}

/// Progress records kept for one call; later reports of that call are dropped, so a tool (or
/// a server behind one) that reports in a loop cannot grow the run's records without bound.
pub(crate) const MAX_PROGRESS_RECORDS_PER_CALL: u32 = 1000;

/// Progress reports that may wait for the run loop to record them; a tool that reports faster
/// than that loses the updates past this many (progress is advice: the next one supersedes it).
const PROGRESS_BACKLOG: usize = 256;

/// Where the calls of a batch send their reports: progress, and the records of the runs
/// they nest (sub-agents) when the run is listened to.
#[derive(Clone)]
struct CallSinks {
    progress: ToolProgressSink,
    nested: Option<NestedRecordSink>,
}

impl CallSinks {
    /// `ctx`, reporting to these sinks.
    fn attach(&self, ctx: ToolContext) -> ToolContext {
        let ctx = ctx.with_progress_sink(self.progress.clone());
        match &self.nested {
            Some(nested) => ctx.with_nested_sink(nested.clone()),
            None => ctx,
        }
    }
}

/// Sinks for the reports of a run's calls, and where the reports arrive; nested records
/// only when someone `listening` to the run would see them. Made once per run: each batch
/// first discards what calls of earlier batches sent after they returned.
fn call_channels(listening: bool) -> (CallSinks, CallReports) {
    let (sender, progress) = tokio::sync::mpsc::channel(PROGRESS_BACKLOG);
    let progress_sink = ToolProgressSink::new(move |report| {
        // A full backlog drops the update; a batch that is over has nobody to tell.
        let _ = sender.try_send(Box::new(report));
    });
    let (nested_sink, nested) = if listening {
        let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
        let sink = NestedRecordSink::new(move |record| {
            let _ = sender.send(record);
        });
        (Some(sink), Some(receiver))
    } else {
        (None, None)
    };
    (
        CallSinks {
            progress: progress_sink,
            nested: nested_sink,
        },
        CallReports { progress, nested },
    )
}

/// How many progress records each call of a batch produced, for
/// [`MAX_PROGRESS_RECORDS_PER_CALL`].
#[derive(Default)]
struct ProgressCounts(std::collections::HashMap<String, u32>);

impl ProgressCounts {
    /// Records a call's report: progress as a `tool_progress` event, unless its call is past
    /// the bound; a nested run's record as the event it carries.
    fn emit(&mut self, recorder: &mut Recorder<'_>, report: CallReport) {
        let report = match report {
            CallReport::Progress(report) => *report,
            CallReport::Nested(record) => {
                if let Ok(event) = record.0.downcast::<AgentStreamEvent>() {
                    recorder.emit(|| *event);
                }
                return;
            }
        };
        let count = self.0.entry(report.tool_call_id.clone()).or_insert(0);
        if *count >= MAX_PROGRESS_RECORDS_PER_CALL {
            return;
        }
        *count += 1;
        recorder.emit(|| AgentStreamEvent::ToolProgress {
            tool_call_id: report.tool_call_id,
            tool_name: report.tool_name,
            update: report.update,
        });
    }
}

/// One call's context within `scope`: its retries and approval.
fn call_in(scope: &ToolContext, progress: &RunProgress, call: &ToolCallPart) -> ToolContext {
    let retry = progress.model_retries.get(&call.name).copied().unwrap_or(0);
    scope.clone().with_retry(retry).with_approved(
        // Most runs approve nothing: no key is built for them.
        !progress.approved_calls.is_empty()
            && progress
                .approved_calls
                .contains(&approval_key(progress.step, &call.id)),
    )
}

/// Approvals belong to one call of one model response: providers may reuse
/// ids across turns.
fn approval_key(step: u32, call_id: &str) -> String {
    format!("{step}:{call_id}")
}

/// The text of the last model response in the history.
fn last_text(messages: &[ModelMessage]) -> String {
    messages
        .iter()
        .rev()
        .find_map(|message| match message {
            ModelMessage::Response(response) => Some(response.text_content()),
            ModelMessage::Request(_) => None,
        })
        .unwrap_or_default()
}

/// The message of a model-retry return.
fn retry_message(part: &ToolReturnPart) -> String {
    part.content["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The context taken out of its handle for lifecycle hooks that need
/// `&mut AgentContext` across awaits; put back when dropped, also when the
/// run is cancelled half-way.
struct TakenContext<'a> {
    handle: &'a AgentContextHandle,
    context: Option<AgentContext>,
}

impl<'a> TakenContext<'a> {
    fn new(handle: &'a AgentContextHandle) -> Self {
        Self {
            handle,
            context: Some(handle.replace(AgentContext::default())),
        }
    }

    fn context(&mut self) -> &mut AgentContext {
        self.context.get_or_insert_with(AgentContext::default)
    }
}

impl Drop for TakenContext<'_> {
    fn drop(&mut self) {
        if let Some(context) = self.context.take() {
            self.handle.replace(context);
        }
    }
}

//! The run loop: request, schedule tool calls, apply returns, repeat.

use futures::StreamExt;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::deep_arguments::{discard_call, drop_deep_arguments};
use super::hitl::AgentHitlRequestKind;
use super::scheduling::{execute_batch, sequential_reason};
use super::state::{RunProgress, WaitingState};
use super::stream::Recorder;
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
use crate::tools::{ToolContext, ToolError};
use crate::JsonMap;

/// Everything an agent was built with.
pub(crate) struct AgentConfig {
    pub(crate) model: DynModel,
    pub(crate) registry: ToolRegistry,
    pub(crate) instructions: Vec<String>,
    pub(crate) tool_config: Option<ToolConfig>,
    pub(crate) policy: AgentRuntimePolicy,
    pub(crate) settings: ModelSettings,
    pub(crate) startup_events: Vec<ContextEvent>,
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
        progress: RunProgress,
    },
    Waiting(WaitingState),
}

/// What a resumed pending call does.
enum Answer {
    Denied(Option<String>, Option<Value>),
    Run {
        ctx: Box<ToolContext>,
        arguments: Value,
        approval: Option<JsonMap>,
    },
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
        let registry =
            registry.with_fallback_limits(config.policy.timeout_ms, config.policy.max_retries);
        let settings = options.settings.as_ref().map_or_else(
            || config.settings.clone(),
            |settings| config.settings.merged(settings),
        );
        let seen_events = context.read(|context| context.events.events().len());
        Self {
            config,
            registry,
            settings,
            extra_instructions: &options.instructions,
            cancellation: options.cancellation.clone(),
            context,
            conversation_id,
            recorder,
            seen_events,
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
        self.recorder.emit(AgentStreamEvent::RunStarted {
            run_id: progress.run_id.clone(),
        });
        self.lifecycle(true).await;
        let end = self.drive(messages, start, progress).await;
        self.lifecycle(false).await;
        // The terminal record comes last, after the toolsets closed.
        match &end {
            Ok(RunEnd::Completed { output, .. }) => {
                self.recorder.emit(AgentStreamEvent::RunCompleted {
                    output: output.clone(),
                })
            }
            Ok(RunEnd::Waiting(waiting)) => self.recorder.emit(AgentStreamEvent::Waiting {
                requests: waiting.pending.clone(),
            }),
            Err(_) => {}
        }
        end
    }

    async fn lifecycle(&mut self, enter: bool) {
        let mut taken = TakenContext::new(self.context);
        if enter {
            self.registry.enter_toolsets(taken.context()).await;
            // Resource-backed toolsets list their tools once set up: read
            // their inventory again for this run.
            let managed: Vec<_> = self
                .registry
                .toolsets()
                .iter()
                .filter(|toolset| needs_setup(toolset.as_ref()))
                .cloned()
                .collect();
            for toolset in &managed {
                self.registry.insert_toolset(toolset);
            }
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
                let next = self.process_returns(&mut progress, waiting.calls, returns, &fresh);
                if let Some(waiting) = apply(messages, next)? {
                    return Ok(RunEnd::Waiting(waiting));
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
            if progress.step >= max_steps {
                return Err(AgentError::MaxStepsExceeded { max_steps });
            }
            progress.step += 1;
            let definitions = self
                .context
                .update(|context| self.registry.prepare_definitions(context));
            self.forward_events();
            let parameters = ModelRequestParameters {
                tools: definitions?,
                instructions: self.instructions(),
                settings: self.settings.clone(),
            };
            self.recorder.emit(AgentStreamEvent::ModelRequest {
                step: progress.step,
                tools: parameters
                    .tools
                    .iter()
                    .map(|tool| tool.name.clone())
                    .collect(),
            });
            let mut response = self.request(messages, &parameters).await?;
            drop_deep_arguments(&mut response, self.registry.limits().max_argument_depth);
            unique_call_ids(&mut response, progress.step);
            let mut usage = response.usage;
            usage.requests = usage.requests.max(1);
            progress.usage.add(&usage);
            // Tool calls are counted when they run, below.
            let requested = crate::model::Usage {
                tool_calls: 0,
                ..usage
            };
            self.context.update(|context| context.usage.add(&requested));
            let calls: Vec<ToolCallPart> = response.calls().cloned().collect();
            let output = response.text_content();
            messages.push(ModelMessage::Response(response));
            if calls.is_empty() {
                return Ok(RunEnd::Completed { output, progress });
            }
            let returns = self.execute_calls(&mut progress, &calls).await;
            let fresh = vec![true; returns.len()];
            let returns = returns.into_iter().map(Some).collect();
            let next = self.process_returns(&mut progress, calls, returns, &fresh);
            if let Some(waiting) = apply(messages, next)? {
                return Ok(RunEnd::Waiting(waiting));
            }
        }
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
                    self.recorder.emit(AgentStreamEvent::TextDelta { delta });
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
        let retry = progress.model_retries.get(&call.name).copied().unwrap_or(0);
        let ctx = ToolContext::new(progress.run_id.clone(), self.conversation_id.clone(), retry)
            .with_agent_context(self.context.clone())
            .with_approved(
                progress
                    .approved_calls
                    .contains(&approval_key(progress.step, &call.id)),
            );
        match &self.cancellation {
            Some(token) => ctx.with_cancellation(token.clone()),
            None => ctx,
        }
    }

    async fn execute_calls(
        &mut self,
        progress: &mut RunProgress,
        calls: &[ToolCallPart],
    ) -> Vec<ToolReturnPart> {
        let reason = sequential_reason(&self.config.policy, &self.registry, calls);
        self.recorder.emit(AgentStreamEvent::ToolBatch {
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
            self.recorder
                .emit(AgentStreamEvent::ToolCall { call: call.clone() });
        }
        let contexts: Vec<ToolContext> = calls
            .iter()
            .map(|call| self.tool_context(progress, call))
            .collect();
        // Each return (and the context events its tool published) is
        // reported as the call finishes, not when the batch does.
        let recorder = &mut *self.recorder;
        let context = self.context;
        let seen = &mut self.seen_events;
        let returns = execute_batch(
            &self.registry,
            calls,
            contexts,
            reason.is_some(),
            |_, part| {
                recorder.emit(AgentStreamEvent::ToolReturn { part: part.clone() });
                forward(context, seen, recorder);
            },
        )
        .await;
        let count = calls.len() as u64;
        progress.usage.tool_calls = progress.usage.tool_calls.saturating_add(count);
        self.context.update(|context| {
            context.usage.tool_calls = context.usage.tool_calls.saturating_add(count)
        });
        self.forward_events();
        returns
    }

    /// Answers the pending calls of a waiting run. User input is
    /// preprocessed for every approval first; if any input is rejected,
    /// nothing has run and the error leaves the session waiting. The
    /// session has already checked `results` with [`validate_results`].
    async fn resume_calls(
        &mut self,
        waiting: &WaitingState,
        results: &AgentHitlResults,
    ) -> Result<(Vec<Option<ToolReturnPart>>, Vec<bool>), AgentError> {
        let mut answers = Vec::with_capacity(waiting.pending.len());
        for request in &waiting.pending {
            let Some(index) = waiting
                .calls
                .iter()
                .position(|call| call.id == request.tool_call_id)
            else {
                continue;
            };
            let call = &waiting.calls[index];
            let answer = self
                .prepare_answer(&waiting.progress, call, request, results)
                .await?;
            answers.push((index, answer));
        }
        let mut returns = waiting.returns.clone();
        let mut fresh = vec![false; returns.len()];
        for (index, answer) in answers {
            if let Some(flag) = fresh.get_mut(index) {
                *flag = true;
            }
            let call = &waiting.calls[index];
            let part = self.run_answer(call, answer).await;
            self.recorder
                .emit(AgentStreamEvent::ToolReturn { part: part.clone() });
            self.forward_events();
            if let Some(slot) = returns.get_mut(index) {
                *slot = Some(part);
            }
        }
        self.forward_events();
        Ok((returns, fresh))
    }

    /// Decides what to run for one pending call, preprocessing user input.
    async fn prepare_answer(
        &self,
        progress: &RunProgress,
        call: &ToolCallPart,
        request: &AgentHitlRequest,
        results: &AgentHitlResults,
    ) -> Result<Answer, AgentError> {
        let ctx = self.tool_context(progress, call);
        // What the human saw, and what runs: the call as the model sent it
        // (hooks and validation run again on the way in).
        let parsed = call.arguments.to_json().ok();
        let shown = if request.arguments.is_null() {
            parsed.clone().unwrap_or(Value::Null)
        } else {
            request.arguments.clone()
        };
        let arguments = parsed.unwrap_or_else(|| shown.clone());
        let request_record = request.metadata.get("request").cloned();
        if request.kind == AgentHitlRequestKind::Deferred {
            let result = results
                .deferred_results
                .get(&call.id)
                .cloned()
                .unwrap_or(Value::Null);
            return Ok(Answer::Run {
                ctx: Box::new(ctx.with_deferred_result(result)),
                arguments,
                approval: None,
            });
        }
        let interaction = match results.interactions.get(&call.id) {
            Some(interaction) if interaction.approved => interaction,
            Some(interaction) => {
                return Ok(Answer::Denied(interaction.reason.clone(), request_record))
            }
            None => return Ok(Answer::Denied(None, request_record)),
        };
        let ctx = ctx
            .with_approved(true)
            .with_metadata(crate::tools::HITL_ARGUMENTS_METADATA_KEY, shown);
        let mut arguments = arguments;
        let mut approval = JsonMap::new();
        approval.insert("approved".to_string(), Value::Bool(true));
        if let Some(record) = request_record {
            approval.insert("request".to_string(), record);
        }
        // The tool's preprocessor sees every approved call, with `null`
        // when the user gave no input, and decides whether that is enough
        // (clarifying questions reject it): the loop knows no tool kinds.
        let input = interaction.user_input.clone();
        let preprocessed = self
            .registry
            .preprocess_user_input(
                ctx.clone(),
                &call.id,
                &call.name,
                input.clone().unwrap_or(Value::Null),
            )
            .await
            .map_err(|error| AgentError::InvalidHitlInput {
                tool_call_id: call.id.clone(),
                tool: call.name.clone(),
                message: error.to_string(),
            })?;
        match (preprocessed, input) {
            (Some(preprocessed), _) => {
                if let Some(replacement) = preprocessed.override_arguments {
                    arguments = replacement;
                }
                approval.extend(preprocessed.approval_metadata);
            }
            (None, Some(input)) => {
                approval.insert("user_input".to_string(), input);
            }
            (None, None) => {}
        }
        Ok(Answer::Run {
            ctx: Box::new(ctx),
            arguments,
            approval: Some(approval),
        })
    }

    async fn run_answer(&self, call: &ToolCallPart, answer: Answer) -> ToolReturnPart {
        match answer {
            Answer::Denied(reason, request) => {
                denied(call, reason.as_deref(), request, *self.registry.limits())
            }
            Answer::Run {
                ctx,
                arguments,
                approval,
            } => {
                let mut part = self
                    .registry
                    .call_tool(*ctx, &call.id, &call.name, arguments)
                    .await
                    .into_return_part(&call.id, &call.name);
                if let Some(approval) = approval {
                    part.metadata
                        .insert("approval".to_string(), Value::Object(approval));
                }
                part
            }
        }
    }

    /// Applies returns in model order: pending calls make the run wait;
    /// model-retry returns become retry prompts within the budget.
    fn process_returns(
        &self,
        progress: &mut RunProgress,
        calls: Vec<ToolCallPart>,
        returns: Vec<Option<ToolReturnPart>>,
        fresh: &[bool],
    ) -> Next {
        // Budgets first: a batch that exhausts one fails before it can
        // pause for approvals that would never be resumed.
        if let Some(error) = self.count_retries(progress, &returns, fresh) {
            return Next::Fail(request_parts(returns), error);
        }
        let pending: Vec<AgentHitlRequest> = returns
            .iter()
            .flatten()
            .filter_map(AgentHitlRequest::from_return)
            .collect();
        if !pending.is_empty() {
            let returns = returns
                .into_iter()
                .map(|part| part.filter(|part| !part.kind.is_control_flow()))
                .collect();
            return Next::Wait(WaitingState {
                progress: progress.clone(),
                calls,
                returns,
                pending,
                message_checkpoint: 0,
            });
        }
        Next::Request(request_parts(returns))
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
                .entry(part.tool_name.clone())
                .or_insert(0);
            *used = used.saturating_add(1);
            let max_retries = self.registry.max_retries_for(&part.tool_name);
            if *used > max_retries {
                return Some(AgentError::ToolRetriesExhausted {
                    tool: part.tool_name.clone(),
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
    let mut parts = Vec::with_capacity(returns.len());
    for part in returns.into_iter().flatten() {
        if part.kind.is_control_flow() {
            continue;
        }
        if part.kind.is_model_retry() {
            let message = retry_message(&part);
            parts.push(RequestPart::RetryPrompt(RetryPromptPart {
                tool_call_id: Some(part.tool_call_id),
                tool_name: Some(part.tool_name),
                content: format!("{message}\nFix the call and try again."),
            }));
        } else {
            parts.push(RequestPart::ToolReturn(part));
        }
    }
    parts
}

/// Reports context events published since `seen` as `Custom` records.
fn forward(context: &AgentContextHandle, seen: &mut usize, recorder: &mut Recorder<'_>) {
    let from = *seen;
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
        recorder.emit(AgentStreamEvent::Custom { event });
    }
}

/// Every answer names a pending call and every pending call has one.
pub(crate) fn validate_results(
    waiting: &WaitingState,
    results: &AgentHitlResults,
) -> Result<(), AgentError> {
    let pending_ids: Vec<&str> = waiting
        .pending
        .iter()
        .map(|request| request.tool_call_id.as_str())
        .collect();
    for id in results
        .interactions
        .keys()
        .chain(results.deferred_results.keys())
    {
        if !pending_ids.contains(&id.as_str()) {
            return Err(AgentError::UnknownHitlResult {
                tool_call_id: id.clone(),
                pending: pending_ids.join(", "),
            });
        }
    }
    for request in &waiting.pending {
        let answered = match request.kind {
            AgentHitlRequestKind::Approval => {
                results.interactions.contains_key(&request.tool_call_id)
            }
            AgentHitlRequestKind::Deferred => {
                results.deferred_results.contains_key(&request.tool_call_id)
            }
        };
        if !answered {
            return Err(AgentError::MissingHitlResult {
                tool_call_id: request.tool_call_id.clone(),
            });
        }
    }
    Ok(())
}

/// Whether a toolset, or one it wraps, sets up before its inventory is read.
fn needs_setup(toolset: &dyn crate::tools::Toolset) -> bool {
    toolset.lifecycle_policy().enter_before_prepare
        || toolset
            .wrapped_toolsets()
            .iter()
            .any(|wrapped| needs_setup(wrapped.as_ref()))
}

/// Approvals belong to one call of one model response: providers may reuse
/// ids across turns.
fn approval_key(step: u32, call_id: &str) -> String {
    format!("{step}:{call_id}")
}

/// The message of a model-retry return.
fn retry_message(part: &ToolReturnPart) -> String {
    part.content["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Gives every call of a response a distinct, non-empty id, so each
/// return (and each human answer) lands on its own call. The first call
/// with an id keeps it; an empty id becomes `call_<step>_<index>`; a
/// repeat becomes `<id>#<n>` with the smallest free `n` from 2, skipping
/// every id the model sent itself (a literal `a#2` keeps its id and its
/// return). Linear in the number of calls: each base remembers its next
/// suffix, so a response with many repeats does not probe from 2 again.
fn unique_call_ids(response: &mut ModelResponse, step: u32) {
    let mut ids = CallIds::new(response.calls().map(|call| call.id.as_str()));
    for (index, part) in response.parts.iter_mut().enumerate() {
        if let crate::model::ResponsePart::ToolCall(call) = part {
            call.id = ids.assign(std::mem::take(&mut call.id), step, index);
        }
    }
}

/// The id bookkeeping of [`unique_call_ids`] for one response.
struct CallIds {
    /// Every non-empty id the model sent: generated ids never take one.
    sent: std::collections::HashSet<String>,
    /// Ids given out so far.
    used: std::collections::HashSet<String>,
    /// Per base id, the next suffix to try.
    next_suffix: std::collections::HashMap<String, u64>,
    /// Candidate ids looked at; the work done, for tests.
    probes: usize,
}

impl CallIds {
    fn new<'i>(sent: impl Iterator<Item = &'i str>) -> Self {
        Self {
            sent: sent
                .filter(|id| !id.is_empty())
                .map(str::to_string)
                .collect(),
            used: std::collections::HashSet::new(),
            next_suffix: std::collections::HashMap::new(),
            probes: 0,
        }
    }

    /// The id for the call at `index` that the model sent as `id`.
    fn assign(&mut self, id: String, step: u32, index: usize) -> String {
        let (base, from_model) = if id.is_empty() {
            (format!("call_{step}_{index}"), false)
        } else {
            (id, true)
        };
        self.probes += 1;
        // A generated `call_<step>_<index>` must not take an id the model sent.
        let free = !self.used.contains(&base) && (from_model || !self.sent.contains(&base));
        if free {
            self.used.insert(base.clone());
            return base;
        }
        let suffix = self.next_suffix.entry(base.clone()).or_insert(2);
        loop {
            let candidate = format!("{base}#{suffix}");
            *suffix += 1;
            self.probes += 1;
            // Each candidate is tried once per base and suffixes only grow,
            // so failed probes are bounded by the ids sent and given out.
            if !self.sent.contains(&candidate) && !self.used.contains(&candidate) {
                self.used.insert(candidate.clone());
                return candidate;
            }
        }
    }
}

/// A denied call's return: feedback (the model may try something else),
/// built by the registry's return builder like every other return, so
/// its kind, `error_kind` and bounds have one source.
fn denied(
    call: &ToolCallPart,
    reason: Option<&str>,
    request: Option<Value>,
    limits: crate::tools::ToolLimits,
) -> ToolReturnPart {
    let message = match reason {
        Some(reason) => format!("The user denied this tool call: {reason}"),
        None => "The user denied this tool call.".to_string(),
    };
    let outcome = crate::tools::ToolCallOutcome {
        result: Err(ToolError::Feedback {
            message,
            details: Some(json!({"error": "denied"})),
        }),
        execution_attempts: 0,
        max_retries: 0,
        model_retries_used: 0,
        delegated: false,
        limits,
    };
    let mut part = outcome.into_return_part(&call.id, &call.name);
    part.metadata.insert(
        "approval".to_string(),
        json!({"approved": false, "reason": reason, "request": request}),
    );
    part
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::{unique_call_ids, CallIds};
    use crate::model::{ModelResponse, ToolCallPart};

    fn response(ids: &[&str]) -> ModelResponse {
        ModelResponse::tool_calls(ids.iter().map(|id| ToolCallPart::new(*id, "t", json!({}))))
    }

    fn ids(response: &ModelResponse) -> Vec<String> {
        response.calls().map(|call| call.id.clone()).collect()
    }

    #[test]
    fn repeats_get_numbered_and_empty_ids_get_positions() {
        let mut sent = response(&["dup", "", "dup", "dup", "x"]);
        unique_call_ids(&mut sent, 3);
        assert_eq!(ids(&sent), ["dup", "call_3_1", "dup#2", "dup#3", "x"]);
    }

    // A repeat of `a` was renamed `a#2`, the id of another call the model sent.
    #[test]
    fn generated_ids_skip_the_ids_the_model_sent() {
        let mut sent = response(&["a", "a", "a#2"]);
        unique_call_ids(&mut sent, 1);
        let got = ids(&sent);
        assert_eq!(got, ["a", "a#3", "a#2"]);
        let mut sent = response(&["", "call_1_0"]);
        unique_call_ids(&mut sent, 1);
        assert_eq!(ids(&sent), ["call_1_0#2", "call_1_0"]);
    }

    // Every repeat probed `base#2`, `base#3`, ... again: quadratic work.
    #[test]
    fn renaming_repeats_is_linear_in_the_calls() {
        let calls = 10_000;
        let mut ids = CallIds::new(["a", "a#5", "a#7"].into_iter());
        for index in 0..calls {
            ids.assign("a".to_string(), 1, index);
        }
        // One probe per call plus one per id that was already taken.
        assert!(ids.probes <= 2 * calls + 3, "{} probes", ids.probes);
    }

    // 200,000 repeats of one id took the old renaming hours.
    #[test]
    fn a_response_of_many_repeats_is_renamed_quickly() {
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut sent = ModelResponse::tool_calls(
                (0..200_000).map(|_| ToolCallPart::new("a", "t", json!({}))),
            );
            unique_call_ids(&mut sent, 1);
            let distinct: std::collections::HashSet<String> = ids(&sent).into_iter().collect();
            let _ = done.send(distinct.len());
        });
        // Generous: this takes well under a second; the quadratic version
        // would run for hours.
        let distinct = finished.recv_timeout(Duration::from_secs(120));
        assert_eq!(distinct, Ok(200_000));
    }
}

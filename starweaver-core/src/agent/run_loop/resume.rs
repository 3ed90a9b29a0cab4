//! Resuming a paused run: the answers a host gives for approvals,
//! clarifying questions and deferred calls become tool returns.

use serde_json::{json, Value};
use tracing::Instrument;

use super::{ProgressCounts, Run};
use crate::agent::hitl::{AgentHitlRequest, AgentHitlRequestKind};
use crate::agent::scheduling::{record, reporting};
use crate::agent::state::{RunProgress, WaitingState};
use crate::agent::stream::AgentStreamEvent;
use crate::agent::sub_agent::route_answers;
use crate::agent::{AgentError, AgentHitlResults};
use crate::model::{ToolCallPart, ToolReturnPart};
use crate::tools::{ToolContext, ToolError, ToolRegistry};
use crate::JsonMap;

/// What a resumed pending call does.
enum Answer {
    Denied(Option<String>, Option<Value>),
    Run {
        ctx: Box<ToolContext>,
        arguments: Value,
        approval: Option<JsonMap>,
    },
}

impl Run<'_, '_> {
    /// Answers the pending calls of a waiting run. User input is
    /// preprocessed for every approval first; if any input is rejected,
    /// nothing has run and the error leaves the session waiting. The
    /// session has already checked `results` with [`validate_results`].
    pub(super) async fn resume_calls(
        &mut self,
        waiting: &WaitingState,
        results: &AgentHitlResults,
    ) -> Result<(Vec<Option<ToolReturnPart>>, Vec<bool>), AgentError> {
        // A call whose sub-agent waits is resumed like a deferred call, with the sub-agent's
        // saved session and the answers to its requests as the result.
        let results = &*route_answers(&waiting.delegated, results);
        let mut answers = Vec::with_capacity(waiting.pending.len());
        for request in waiting.pending.iter().chain(&waiting.delegated) {
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
            // A return an earlier attempt of this run journaled is used as it is.
            let step = waiting.progress.step;
            if let Some(part) = self
                .journal
                .as_ref()
                .and_then(|journal| journal.recorded_return(step, &call.id))
            {
                if let Some(slot) = returns.get_mut(index) {
                    *slot = Some(part);
                }
                continue;
            }
            // Its progress is reported as it arrives, as in a batch.
            self.reports.discard();
            let answer = answer.with_sinks(&self.sinks);
            let recorder = &mut *self.recorder;
            let mut counted = ProgressCounts::default();
            let part = reporting(
                run_answer(&self.registry, call, answer),
                &mut self.reports,
                |report| counted.emit(recorder, report),
            )
            .await;
            self.recorder
                .emit(|| AgentStreamEvent::ToolReturn { part: part.clone() });
            self.forward_events();
            let journal = self.journal.as_deref().map(|journal| (journal, step));
            record(journal, &part).await?;
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
        // Edited arguments replace the model's, for the preprocessor and
        // the call alike, once the tool's schema accepts them.
        let edited = match &interaction.arguments {
            Some(edited) => Some(self.check_edited(call, edited)?),
            None => None,
        };
        let (shown, mut arguments) = match &edited {
            Some(edited) => (edited.clone(), edited.clone()),
            None => (shown, arguments),
        };
        let ctx = ctx
            .with_approved(true)
            .with_metadata(crate::tools::HITL_ARGUMENTS_METADATA_KEY, shown);
        let mut approval = JsonMap::new();
        approval.insert("approved".to_string(), Value::Bool(true));
        if edited.is_some() {
            approval.insert("edited_arguments".to_string(), Value::Bool(true));
        }
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

    /// Checks arguments a human edited: a JSON object the tool's schema
    /// accepts, or [`AgentError::InvalidHitlInput`] naming the problem.
    fn check_edited(&self, call: &ToolCallPart, edited: &Value) -> Result<Value, AgentError> {
        let invalid = |message: String| AgentError::InvalidHitlInput {
            tool_call_id: call.id.clone(),
            tool: call.name.clone(),
            message,
        };
        if !edited.is_object() {
            return Err(invalid(
                "edited arguments must be a JSON object of named parameters".to_string(),
            ));
        }
        if let Some(tool) = self.registry.get(&call.name) {
            tool.check_arguments(edited)
                .map_err(|error| invalid(format!("edited arguments rejected: {error}")))?;
        }
        Ok(edited.clone())
    }
}

impl Answer {
    /// The answer, its call reporting to `sinks`.
    fn with_sinks(self, sinks: &super::CallSinks) -> Self {
        match self {
            Self::Run {
                ctx,
                arguments,
                approval,
            } => Self::Run {
                ctx: Box::new(sinks.attach(*ctx)),
                arguments,
                approval,
            },
            denied @ Self::Denied(..) => denied,
        }
    }
}

/// The return of one answered call: a denial, or the call run through `registry`.
async fn run_answer(
    registry: &ToolRegistry,
    call: &ToolCallPart,
    answer: Answer,
) -> ToolReturnPart {
    match answer {
        Answer::Denied(reason, request) => {
            denied(call, reason.as_deref(), request, *registry.limits())
        }
        Answer::Run {
            ctx,
            arguments,
            approval,
        } => {
            let span = crate::agent::spans::execute_tool(call);
            let mut part = registry
                .call_tool(*ctx, &call.id, &call.name, arguments)
                .instrument(span.clone())
                .await
                .into_return_part(&call.id, &call.name);
            crate::agent::spans::tool_returned(&span, &part);
            if let Some(approval) = approval {
                part.metadata
                    .insert("approval".to_string(), Value::Object(approval));
            }
            part
        }
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

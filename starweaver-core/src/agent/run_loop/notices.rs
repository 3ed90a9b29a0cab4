//! A model's request notices (schemas adapted, tools or settings left out) published as a
//! context event, each distinct notice once per run, and tools left out under FailRun.

use std::collections::HashSet;

use crate::agent::AgentError;
use crate::context::{AgentContextHandle, ContextEventKind, ToolAvailabilityPolicy};
use crate::model::{Model, ModelRequestParameters, RequestNotice, RequestNoticeKind};

/// The notices already published in this run.
#[derive(Default)]
pub(super) struct ReportedNotices {
    seen: HashSet<(RequestNoticeKind, String, String)>,
}

impl ReportedNotices {
    /// Publishes the notices `model` gives for `parameters` that this run has not published
    /// yet; fails the run when a tool is left out under FailRun.
    pub(super) fn report(
        &mut self,
        model: &dyn Model,
        parameters: &ModelRequestParameters,
        context: &AgentContextHandle,
    ) -> Result<(), AgentError> {
        let notices = model.request_notices(parameters);
        if notices.is_empty() {
            return Ok(());
        }
        let fresh: Vec<&RequestNotice> = notices
            .iter()
            .filter(|notice| {
                self.seen
                    .insert((notice.kind, notice.subject.clone(), notice.reason.clone()))
            })
            .collect();
        let policy = context.read(|context| context.tool_config.unavailable_tool_policy);
        if !fresh.is_empty() {
            let payload = serde_json::json!({
                "model": model.name(),
                "notices": fresh,
            });
            context.update(|context| context.emit(ContextEventKind::ModelRequestAdjusted, payload));
        }
        let left_out: Vec<&RequestNotice> = notices
            .iter()
            .filter(|notice| notice.kind == RequestNoticeKind::ToolLeftOut)
            .collect();
        match (policy, left_out.first()) {
            (ToolAvailabilityPolicy::FailRun, Some(first)) => {
                Err(AgentError::ToolsRefusedByModel {
                    model: model.name().to_string(),
                    tools: left_out
                        .iter()
                        .map(|notice| notice.subject.clone())
                        .collect(),
                    reason: first.reason.clone(),
                })
            }
            _ => Ok(()),
        }
    }
}

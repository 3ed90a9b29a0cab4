//! A sub-agent that waits makes the calling run wait. The call's return is a deferral that
//! carries the sub-agent's saved session; the calling run lists the sub-agent's requests
//! among its own (ids prefixed with the call's, agent path in front), keeps the deferral to
//! resume, and on resume hands the answers to the sub-agent's requests back to that call.

use std::borrow::Cow;

use serde_json::{json, Map, Value};

use super::call::SUB_AGENT_KEY;
use crate::agent::{AgentHitlRequest, AgentHitlRequestKind, AgentHitlResults, AgentSessionState};
use crate::model::{ToolReturnPart, Usage};
use crate::tools::ToolError;

/// The `request.kind` of a call whose sub-agent waits.
pub(crate) const SUB_AGENT_REQUEST_KIND: &str = "sub_agent";

/// What separates the calling call's id from a sub-agent request's own id.
const ID_SEPARATOR: char = '/';

/// What a waiting call's resume hands the sub-agent: its saved session and the answers to
/// its requests.
pub(super) struct Resume {
    pub(super) state: AgentSessionState,
    pub(super) results: AgentHitlResults,
}

impl Resume {
    /// Reads what [`route_answers`] wrote.
    pub(super) fn from_value(value: &Value) -> Result<Self, String> {
        let state = value
            .get("state")
            .cloned()
            .ok_or("the saved session of its waiting run is missing")?;
        let state: AgentSessionState = serde_json::from_value(state)
            .map_err(|error| format!("the saved session of its waiting run is invalid: {error}"))?;
        let results = match value.get("results") {
            Some(results) => serde_json::from_value(results.clone())
                .map_err(|error| format!("the answers for its waiting run are invalid: {error}"))?,
            None => AgentHitlResults::new(),
        };
        Ok(Self { state, results })
    }
}

/// The return of a call whose sub-agent waits: a deferral carrying the sub-agent's session.
pub(super) fn paused(agent: &str, tool: &str, state: AgentSessionState, usage: Usage) -> ToolError {
    let mut metadata = Map::new();
    metadata.insert(
        "request".to_string(),
        json!({"kind": SUB_AGENT_REQUEST_KIND, "agent": agent}),
    );
    metadata.insert(
        SUB_AGENT_KEY.to_string(),
        json!({"agent": agent, "usage": usage, "state": state}),
    );
    ToolError::CallDeferred {
        tool: tool.to_string(),
        metadata,
    }
}

/// Splits a batch's requests into what the host answers (the run's own, and its waiting
/// sub-agents' with their agent path) and the calls whose sub-agents wait.
pub(crate) fn split_pending(
    requests: Vec<AgentHitlRequest>,
) -> (Vec<AgentHitlRequest>, Vec<AgentHitlRequest>) {
    let mut pending = Vec::with_capacity(requests.len());
    let mut delegated = Vec::new();
    for request in requests {
        match waiting_sub_agent(&request) {
            Some((agent, inner)) => {
                for mut leaf in inner {
                    leaf.tool_call_id = format!(
                        "{}{ID_SEPARATOR}{}",
                        request.tool_call_id, leaf.tool_call_id
                    );
                    leaf.agent.insert(0, agent.clone());
                    pending.push(leaf);
                }
                delegated.push(request);
            }
            None => pending.push(request),
        }
    }
    (pending, delegated)
}

/// The sub-agent's name and its pending requests, when `request` is a call whose sub-agent
/// waits.
fn waiting_sub_agent(request: &AgentHitlRequest) -> Option<(String, Vec<AgentHitlRequest>)> {
    if request.kind != AgentHitlRequestKind::Deferred
        || request.request_kind() != SUB_AGENT_REQUEST_KIND
    {
        return None;
    }
    let record = request.metadata.get(SUB_AGENT_KEY)?;
    let agent = record.get("agent")?.as_str()?.to_string();
    let pending = record
        .get("state")?
        .get("waiting")?
        .get("pending")?
        .as_array()?
        .iter()
        .filter_map(|leaf| serde_json::from_value(leaf.clone()).ok())
        .collect();
    Some((agent, pending))
}

/// `results` with, for each call whose sub-agent waits, the deferred result that resumes
/// it: its saved session and the answers to its requests, ids unprefixed.
pub(crate) fn route_answers<'a>(
    delegated: &[AgentHitlRequest],
    results: &'a AgentHitlResults,
) -> Cow<'a, AgentHitlResults> {
    if delegated.is_empty() {
        return Cow::Borrowed(results);
    }
    let mut routed = results.clone();
    for request in delegated {
        let prefix = format!("{}{ID_SEPARATOR}", request.tool_call_id);
        let mut inner = AgentHitlResults::new();
        for (id, interaction) in &results.interactions {
            if let Some(own) = id.strip_prefix(&prefix) {
                let mut interaction = interaction.clone();
                interaction.tool_call_id = own.to_string();
                inner.interactions.insert(own.to_string(), interaction);
            }
        }
        for (id, result) in &results.deferred_results {
            if let Some(own) = id.strip_prefix(&prefix) {
                inner
                    .deferred_results
                    .insert(own.to_string(), result.clone());
            }
        }
        let state = request
            .metadata
            .get(SUB_AGENT_KEY)
            .and_then(|record| record.get("state"))
            .cloned()
            .unwrap_or(Value::Null);
        routed.deferred_results.insert(
            request.tool_call_id.clone(),
            json!({"state": state, "results": inner}),
        );
    }
    Cow::Owned(routed)
}

/// The usage a sub-agent call's return says its run added: on an answer or a failure in the
/// private metadata, on a pause in the request's metadata.
pub(crate) fn sub_agent_usage(part: &ToolReturnPart) -> Option<Usage> {
    let record = part
        .private_metadata
        .get(SUB_AGENT_KEY)
        .or_else(|| part.metadata.get(SUB_AGENT_KEY))?;
    serde_json::from_value(record.get("usage")?.clone()).ok()
}

//! Answers the run command gives without asking: `--yes` approvals and `--result` values for
//! deferred calls. What remains goes to the UI.

use std::collections::BTreeMap;

use starweaver::{
    AgentHitlRequest, AgentHitlRequestKind, AgentHitlResults, AgentHitlUserInteraction,
    CLARIFYING_QUESTIONS_REQUEST_KIND,
};

/// How the command answers pending calls on its own.
#[derive(Clone, Debug, Default)]
pub struct AutoAnswers {
    /// `--yes`: approve every tool approval (not clarifying questions).
    pub yes: bool,
    /// `--result CALL_ID=JSON` values, used once each.
    pub results: BTreeMap<String, serde_json::Value>,
}

impl AutoAnswers {
    /// The answers this policy gives for `pending`, and the requests left for the UI.
    pub fn split(
        &mut self,
        pending: &[AgentHitlRequest],
    ) -> (AgentHitlResults, Vec<AgentHitlRequest>) {
        let mut answers = AgentHitlResults::new();
        let mut rest = Vec::new();
        for request in pending {
            let id = &request.tool_call_id;
            match request.kind {
                AgentHitlRequestKind::Deferred => match self.results.remove(id) {
                    Some(value) => answers = answers.with_deferred_result(id.clone(), value),
                    None => rest.push(request.clone()),
                },
                AgentHitlRequestKind::Approval if self.yes && !is_question(request) => {
                    answers =
                        answers.with_interaction(AgentHitlUserInteraction::approved(id.clone()));
                }
                AgentHitlRequestKind::Approval => rest.push(request.clone()),
            }
        }
        (answers, rest)
    }
}

/// Whether the request is a clarifying question (which `--yes` cannot answer).
#[must_use]
pub fn is_question(request: &AgentHitlRequest) -> bool {
    request.request_kind() == CLARIFYING_QUESTIONS_REQUEST_KIND
}

/// The `--result` values parsed as JSON, and checked against the calls the run waits for.
///
/// # Errors
/// A message naming the value that is not JSON, or the id that is not a pending deferred call.
pub fn parse_results(
    given: &[(String, String)],
    pending: &[AgentHitlRequest],
) -> Result<BTreeMap<String, serde_json::Value>, String> {
    let deferred: Vec<&str> = pending
        .iter()
        .filter(|request| request.kind == AgentHitlRequestKind::Deferred)
        .map(|request| request.tool_call_id.as_str())
        .collect();
    let mut results = BTreeMap::new();
    for (id, text) in given {
        if !deferred.contains(&id.as_str()) {
            let known = if deferred.is_empty() {
                "the saved run waits for no deferred call".to_string()
            } else {
                format!("pending deferred calls: {}", deferred.join(", "))
            };
            return Err(format!(
                "--result {id}=...: `{id}` is not a pending deferred call; {known}"
            ));
        }
        let value = serde_json::from_str(text).map_err(|error| {
            format!(
                "--result {id}=...: the value is not JSON ({error}); quote text as JSON, \
                 e.g. --result {id}='\"done\"'"
            )
        })?;
        results.insert(id.clone(), value);
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn request(id: &str, kind: AgentHitlRequestKind, request_kind: &str) -> AgentHitlRequest {
        let metadata = json!({"request": {"kind": request_kind}});
        AgentHitlRequest {
            tool_call_id: id.to_string(),
            tool_name: "t".to_string(),
            arguments: json!({}),
            kind,
            metadata: metadata.as_object().unwrap().clone(),
        }
    }

    #[test]
    fn yes_approves_tools_but_leaves_questions_and_results_are_used_once() {
        let pending = [
            request("a", AgentHitlRequestKind::Approval, "tool_approval"),
            request("q", AgentHitlRequestKind::Approval, "clarifying_questions"),
            request("d", AgentHitlRequestKind::Deferred, "deferred_call"),
        ];
        let results = parse_results(&[("d".into(), "{\"ok\":1}".into())], &pending).unwrap();
        let mut auto = AutoAnswers { yes: true, results };
        let (answers, rest) = auto.split(&pending);
        assert!(answers.interactions["a"].approved);
        assert_eq!(answers.deferred_results["d"], json!({"ok": 1}));
        assert_eq!(rest.len(), 1);
        assert_eq!(rest[0].tool_call_id, "q");
        assert_eq!(auto.split(&pending[2..]).1.len(), 1);
    }

    #[test]
    fn results_must_be_json_for_a_pending_deferred_call() {
        let pending = [request(
            "d",
            AgentHitlRequestKind::Deferred,
            "deferred_call",
        )];
        let error = parse_results(&[("x".into(), "1".into())], &pending).unwrap_err();
        assert!(error.contains("pending deferred calls: d"), "{error}");
        let error = parse_results(&[("d".into(), "done".into())], &pending).unwrap_err();
        assert!(error.contains("not JSON"), "{error}");
    }
}

//! Answers the run command gives without asking: `--yes` approvals, `--answer` texts for
//! clarifying questions and `--result` values for deferred calls. What remains goes to the UI.
//! Each kind of call has one flag: an approval is never answered by `--answer`, a question
//! never by `--yes` or `--result`.

use std::collections::BTreeMap;

use starweaver_core::agent::{
    AgentHitlRequest, AgentHitlRequestKind, AgentHitlResults, AgentHitlUserInteraction,
};

use starweaver_core::bundles::CLARIFYING_QUESTIONS_REQUEST_KIND;

use crate::waits::Waits;

/// How the command answers pending calls on its own.
#[derive(Clone, Debug, Default)]
pub struct AutoAnswers {
    /// `--yes`: approve every tool approval (not clarifying questions).
    pub yes: bool,
    /// `--result CALL_ID=JSON` values, used once each.
    pub results: BTreeMap<String, serde_json::Value>,
    /// `--answer CALL_ID=TEXT` answers to clarifying questions, used once each.
    pub answers: BTreeMap<String, String>,
    /// Answers an earlier resume gave to calls that then still waited on others (a step's
    /// calls run together once every one is answered), kept in the save file so they need
    /// not be given again. A flag given now wins over them.
    pub earlier: AgentHitlResults,
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
                AgentHitlRequestKind::Deferred => match self
                    .results
                    .remove(id)
                    .or_else(|| self.earlier.deferred_results.remove(id))
                {
                    Some(value) => answers = answers.with_deferred_result(id.clone(), value),
                    None => rest.push(request.clone()),
                },
                AgentHitlRequestKind::Approval if is_question(request) => {
                    match self.answers.remove(id) {
                        Some(text) => {
                            answers = answers.with_interaction(
                                AgentHitlUserInteraction::approved(id.clone())
                                    .with_user_input(serde_json::Value::String(text)),
                            );
                        }
                        None => match self.earlier.interactions.remove(id) {
                            Some(interaction) => answers = answers.with_interaction(interaction),
                            None => rest.push(request.clone()),
                        },
                    }
                }
                AgentHitlRequestKind::Approval if self.yes => {
                    answers =
                        answers.with_interaction(AgentHitlUserInteraction::approved(id.clone()));
                }
                AgentHitlRequestKind::Approval => match self.earlier.interactions.remove(id) {
                    Some(interaction) => answers = answers.with_interaction(interaction),
                    None => rest.push(request.clone()),
                },
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

/// Whether an answer to a clarifying question says nothing: blank text, `null`, or an object
/// or array whose every entry says nothing. `--answer` and `runs answer` both refuse such an
/// answer, since the model would continue as if the person had replied.
pub(crate) fn says_nothing(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::Null => true,
        serde_json::Value::String(text) => text.trim().is_empty(),
        serde_json::Value::Array(items) => items.iter().all(says_nothing),
        serde_json::Value::Object(entries) => entries.values().all(says_nothing),
        serde_json::Value::Bool(_) | serde_json::Value::Number(_) => false,
    }
}

/// Refuses a flag given for call `id` that is not pending with the kind `want`, saying which
/// calls the flag can answer and which flag answers `id` if it is pending.
fn misfit(flag: &str, id: &str, want: Waits, pending: &[AgentHitlRequest]) -> String {
    let what = match want {
        Waits::Answers => "a pending question",
        Waits::Result => "a pending deferred call",
        Waits::Approval => "a pending approval",
    };
    let fitting: Vec<&str> = pending
        .iter()
        .filter(|request| Waits::of(request) == want)
        .map(|request| request.tool_call_id.as_str())
        .collect();
    let known = if fitting.is_empty() {
        format!("the saved run has no {}", &what[2..])
    } else {
        format!("{}s: {}", &what[2..], fitting.join(", "))
    };
    let instead = pending
        .iter()
        .find(|request| request.tool_call_id == id)
        .map(|request| {
            let waits = Waits::of(request);
            format!(
                "; `{id}` ({}) {}: answer it with {}",
                request.tool_name,
                waits.words(),
                waits.flag(id)
            )
        })
        .unwrap_or_default();
    format!("{flag} {id}=...: `{id}` is not {what}; {known}{instead}")
}

/// The `--answer` texts, checked against the questions the run waits for.
///
/// # Errors
/// A message naming the id that is not a pending question, and the flag that fits it.
pub fn parse_answers(
    given: &[(String, String)],
    pending: &[AgentHitlRequest],
) -> Result<BTreeMap<String, String>, String> {
    let mut answers = BTreeMap::new();
    for (id, text) in given {
        let fits = pending
            .iter()
            .any(|request| request.tool_call_id == *id && Waits::of(request) == Waits::Answers);
        if !fits {
            return Err(misfit("--answer", id, Waits::Answers, pending));
        }
        if says_nothing(&serde_json::Value::String(text.clone())) {
            return Err(format!(
                "--answer {id}=...: the answer is empty; write what the question asks, e.g. \
                 --answer {id}=\"yes, the tests pass\""
            ));
        }
        answers.insert(id.clone(), text.clone());
    }
    Ok(answers)
}

/// The `--result` values parsed as JSON, and checked against the calls the run waits for.
///
/// # Errors
/// A message naming the value that is not JSON, or the id that is not a pending deferred call
/// (and the flag that fits it).
pub fn parse_results(
    given: &[(String, String)],
    pending: &[AgentHitlRequest],
) -> Result<BTreeMap<String, serde_json::Value>, String> {
    let mut results = BTreeMap::new();
    for (id, text) in given {
        let fits = pending
            .iter()
            .any(|request| request.tool_call_id == *id && Waits::of(request) == Waits::Result);
        if !fits {
            return Err(misfit("--result", id, Waits::Result, pending));
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
            agent: Vec::new(),
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
        let mut auto = AutoAnswers {
            yes: true,
            results,
            answers: BTreeMap::new(),
            earlier: AgentHitlResults::new(),
        };
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

    // Regression: `--result` for a pending question was refused as "not a pending deferred
    // call" and nothing else could answer it without a terminal.
    #[test]
    fn a_question_is_answered_by_answer_and_each_flag_points_to_the_one_that_fits() {
        let pending = [
            request("a", AgentHitlRequestKind::Approval, "tool_approval"),
            request("q", AgentHitlRequestKind::Approval, "clarifying_questions"),
        ];
        let error = parse_results(&[("q".into(), "1".into())], &pending).unwrap_err();
        assert!(error.contains("answer it with --answer q=TEXT"), "{error}");
        let error = parse_answers(&[("a".into(), "ok".into())], &pending).unwrap_err();
        assert!(error.contains("answer it with --yes"), "{error}");
        assert!(error.contains("questions: q"), "{error}");
        let answers = parse_answers(&[("q".into(), "staging".into())], &pending).unwrap();
        let mut auto = AutoAnswers {
            yes: false,
            results: BTreeMap::new(),
            answers,
            earlier: AgentHitlResults::new(),
        };
        let (answered, rest) = auto.split(&pending);
        let answer = &answered.interactions["q"];
        assert!(answer.approved);
        assert_eq!(answer.user_input, Some(json!("staging")));
        // Without --yes the approval is left for the UI.
        assert_eq!(rest.len(), 1);
        assert_eq!(rest[0].tool_call_id, "a");
    }
}

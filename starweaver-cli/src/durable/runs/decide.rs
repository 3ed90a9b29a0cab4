//! `starweaver runs approve` and `starweaver runs answer`: a person's decision for a call a
//! waiting run waits for, recorded in the store. Once every call has one, the run is queued
//! for a worker (or `runs resume`) to continue.

use serde_json::{json, Value};
use starweaver_core::agent::{
    AgentHitlRequest, AgentHitlRequestKind, AgentHitlResults, AgentHitlUserInteraction,
};
use starweaver_core::runs::{RunStatus, StoredRun};

use super::{existing, print, print_json, refused};
use crate::durable::StoreArgs;
use crate::run::{is_question, says_nothing, Stop};

/// `runs approve`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  starweaver runs approve 01J9Z... call-1 --store sqlite:runs.db\n  starweaver runs approve 01J9Z... call-1 --deny \"not on a Friday\""
)]
pub struct ApproveArgs {
    /// The run's id.
    #[arg(value_name = "ID")]
    pub id: String,
    /// The call's id (`starweaver runs show ID` lists the calls it waits for).
    #[arg(value_name = "CALL")]
    pub call: String,
    /// Denies the call instead, telling the model why.
    #[arg(long, value_name = "REASON")]
    pub deny: Option<String>,
    /// Where the run is.
    #[command(flatten)]
    pub store: StoreArgs,
    /// Prints JSON (`id`, `call`, `status`).
    #[arg(long)]
    pub json: bool,
}

/// `runs answer`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  starweaver runs answer 01J9Z... call-2 '\"ship on Friday\"' --store sqlite:runs.db\n  starweaver runs answer 01J9Z... call-3 '{\"done\": true}'"
)]
pub struct AnswerArgs {
    /// The run's id.
    #[arg(value_name = "ID")]
    pub id: String,
    /// The call's id.
    #[arg(value_name = "CALL")]
    pub call: String,
    /// The answer as JSON: a clarifying question's answer (a string, or an object of answers
    /// by question), or a deferred call's result.
    #[arg(value_name = "JSON")]
    pub value: String,
    /// Where the run is.
    #[command(flatten)]
    pub store: StoreArgs,
    /// Prints JSON (`id`, `call`, `status`).
    #[arg(long)]
    pub json: bool,
}

/// The pending call `call` of `run`, or why there is none.
fn pending<'a>(run: &'a StoredRun, call: &str) -> Result<&'a AgentHitlRequest, Stop> {
    let found = run.waiting.as_ref().and_then(|state| {
        state
            .pending()
            .iter()
            .find(|request| request.tool_call_id == call)
    });
    match found {
        Some(request) if run.status == RunStatus::Waiting => Ok(request),
        _ if run.status != RunStatus::Waiting => Err(Stop {
            message: format!(
                "run {} is {}, so it waits for no answer",
                run.id.as_str(),
                run.status
            ),
            status: 1,
        }),
        _ => Err(refused(&starweaver_core::runs::StoreError::UnknownCall {
            run: run.id.clone(),
            call: call.to_string(),
        })),
    }
}

/// Records `answers` and says where the run stands.
async fn record(
    store: &StoreArgs,
    (id, call): (&str, &str),
    answers: AgentHitlResults,
    json: bool,
) -> Result<u8, Stop> {
    let store = store.open().await?;
    let run = store
        .answer(&starweaver_core::context::RunId::new(id), answers)
        .await
        .map_err(|error| refused(&error))?;
    if json {
        return print_json(&json!({"id": id, "call": call, "status": run.status.as_str()}));
    }
    let next = if run.status == RunStatus::Queued {
        format!(
            "run {id} has every answer it waits for and is queued: a worker (`starweaver worker`) \
             continues it, or `starweaver runs resume {id}` does here"
        )
    } else {
        format!("run {id} still waits for other calls (`starweaver runs show {id}` lists them)")
    };
    print(&format!("recorded for {call}; {next}\n"))
}

/// The approval (or denial) for `request`, or why `runs approve` does not fit it.
fn approval(
    id: &str,
    request: &AgentHitlRequest,
    deny: Option<&str>,
) -> Result<AgentHitlResults, Stop> {
    let call = &request.tool_call_id;
    if request.kind == AgentHitlRequestKind::Deferred || is_question(request) {
        return Err(Stop::usage(format!(
            "call {call} waits for {}, not an approval; give it with `starweaver runs answer {id} {call} JSON`",
            if is_question(request) { "answers to its questions" } else { "a deferred result" },
        )));
    }
    let interaction = match deny {
        Some(reason) => AgentHitlUserInteraction::denied(call.clone()).with_reason(reason),
        None => AgentHitlUserInteraction::approved(call.clone()),
    };
    Ok(AgentHitlResults::new().with_interaction(interaction))
}

/// The answer `value` for `request`, or why `runs answer` does not fit it.
fn answering(id: &str, request: &AgentHitlRequest, value: Value) -> Result<AgentHitlResults, Stop> {
    let call = &request.tool_call_id;
    if request.kind == AgentHitlRequestKind::Deferred {
        return Ok(AgentHitlResults::new().with_deferred_result(call.clone(), value));
    }
    if !is_question(request) {
        return Err(Stop::usage(format!(
            "call {call} waits for an approval, not an answer; give it with `starweaver runs approve \
             {id} {call}` (or --deny REASON)"
        )));
    }
    if says_nothing(&value) {
        return Err(Stop::usage(format!(
            "the answer for {call} is empty; write what the question asks, e.g. \
             `starweaver runs answer {id} {call} '\"yes, the tests pass\"'`"
        )));
    }
    Ok(AgentHitlResults::new()
        .with_interaction(AgentHitlUserInteraction::approved(call.clone()).with_user_input(value)))
}

/// Approves or denies a call.
pub(super) async fn approve(args: &ApproveArgs) -> Result<u8, Stop> {
    let store = args.store.open().await?;
    let run = existing(store.as_ref(), &args.id).await?;
    let answers = approval(&args.id, pending(&run, &args.call)?, args.deny.as_deref())?;
    record(&args.store, (&args.id, &args.call), answers, args.json).await
}

/// Answers a question or gives a deferred call its result.
pub(super) async fn answer(args: &AnswerArgs) -> Result<u8, Stop> {
    let value: Value = serde_json::from_str(&args.value).map_err(|error| {
        Stop::usage(format!(
            "the answer for {} is not JSON ({error}); quote text as JSON, e.g. '\"yes\"'",
            args.call
        ))
    })?;
    let store = args.store.open().await?;
    let run = existing(store.as_ref(), &args.id).await?;
    let answers = answering(&args.id, pending(&run, &args.call)?, value)?;
    record(&args.store, (&args.id, &args.call), answers, args.json).await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;
    use starweaver_core::bundles::CLARIFYING_QUESTIONS_REQUEST_KIND;

    use super::*;

    fn request(kind: AgentHitlRequestKind, request_kind: &str) -> AgentHitlRequest {
        let metadata = json!({"request": {"kind": request_kind}});
        AgentHitlRequest {
            tool_call_id: "call-1".to_string(),
            tool_name: "t".to_string(),
            arguments: json!({}),
            kind,
            metadata: metadata.as_object().unwrap().clone(),
            agent: Vec::new(),
        }
    }

    fn question() -> AgentHitlRequest {
        request(
            AgentHitlRequestKind::Approval,
            CLARIFYING_QUESTIONS_REQUEST_KIND,
        )
    }

    #[test]
    fn approve_fits_only_approvals_and_points_elsewhere_for_the_rest() {
        let plain = request(AgentHitlRequestKind::Approval, "tool_approval");
        let approved = approval("r1", &plain, None).unwrap();
        assert!(approved.interactions["call-1"].approved);
        let denied = approval("r1", &plain, Some("not today")).unwrap();
        assert!(!denied.interactions["call-1"].approved);
        for other in [
            question(),
            request(AgentHitlRequestKind::Deferred, "deferred_call"),
        ] {
            let refused = approval("r1", &other, None).unwrap_err();
            assert_eq!(refused.status, 2);
            assert!(
                refused.message.contains("starweaver runs answer r1 call-1"),
                "{}",
                refused.message
            );
        }
    }

    #[test]
    fn answer_gives_questions_input_and_deferred_calls_results() {
        let answered = answering("r1", &question(), json!("ship it")).unwrap();
        let interaction = &answered.interactions["call-1"];
        assert!(interaction.approved);
        assert_eq!(interaction.user_input, Some(json!("ship it")));
        let deferred = request(AgentHitlRequestKind::Deferred, "deferred_call");
        let result = answering("r1", &deferred, json!({"done": true})).unwrap();
        assert_eq!(result.deferred_results["call-1"], json!({"done": true}));

        let plain = request(AgentHitlRequestKind::Approval, "tool_approval");
        let refused = answering("r1", &plain, json!("yes")).unwrap_err();
        assert_eq!(refused.status, 2);
        assert!(refused
            .message
            .contains("starweaver runs approve r1 call-1"));
        for empty in [json!("  "), json!(null), json!({"q": ""})] {
            let refused = answering("r1", &question(), empty).unwrap_err();
            assert!(refused.message.contains("is empty"), "{}", refused.message);
        }
    }
}

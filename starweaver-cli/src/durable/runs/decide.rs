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
use crate::run::{is_question, Stop};

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

/// Approves or denies a call.
pub(super) async fn approve(args: &ApproveArgs) -> Result<u8, Stop> {
    let store = args.store.open().await?;
    let run = existing(store.as_ref(), &args.id).await?;
    let request = pending(&run, &args.call)?;
    if request.kind == AgentHitlRequestKind::Deferred || is_question(request) {
        return Err(Stop::usage(format!(
            "call {} waits for {}, not an approval; give it with `starweaver runs answer {} {} JSON`",
            args.call,
            if is_question(request) { "answers to its questions" } else { "a deferred result" },
            args.id,
            args.call
        )));
    }
    let interaction = match &args.deny {
        Some(reason) => {
            AgentHitlUserInteraction::denied(args.call.clone()).with_reason(reason.clone())
        }
        None => AgentHitlUserInteraction::approved(args.call.clone()),
    };
    record(
        &args.store,
        (&args.id, &args.call),
        AgentHitlResults::new().with_interaction(interaction),
        args.json,
    )
    .await
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
    let request = pending(&run, &args.call)?;
    let answers = if request.kind == AgentHitlRequestKind::Deferred {
        AgentHitlResults::new().with_deferred_result(args.call.clone(), value)
    } else if is_question(request) {
        AgentHitlResults::new().with_interaction(
            AgentHitlUserInteraction::approved(args.call.clone()).with_user_input(value),
        )
    } else {
        return Err(Stop::usage(format!(
            "call {} waits for an approval, not an answer; give it with `starweaver runs approve \
             {} {}` (or --deny REASON)",
            args.call, args.id, args.call
        )));
    };
    record(&args.store, (&args.id, &args.call), answers, args.json).await
}

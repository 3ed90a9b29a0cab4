//! `starweaver runs`: what a run store holds, and answers for the runs that wait.

mod cancel;
mod decide;
mod list;
mod show;
mod view;

use std::io::Write as _;
use std::process::ExitCode;

use starweaver_core::context::RunId;

use super::resume::{resume_main, ResumeArgs};
use super::{block_on, StoreArgs};
use crate::run::Stop;

pub use decide::{AnswerArgs, ApproveArgs};

/// The arguments of `starweaver runs`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  starweaver runs list --store sqlite:runs.db --json\n  starweaver runs show 01J9Z... --store sqlite:runs.db\n  starweaver runs approve 01J9Z... call-1 --store sqlite:runs.db\n  starweaver runs resume 01J9Z... --agents agents\n\nEvery subcommand takes --store URL (or STARWEAVER_STORE) and --json."
)]
pub struct RunsArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: RunsCommand,
}

/// The `runs` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum RunsCommand {
    /// Every run in the store, in every status, oldest first.
    List(Listing),
    /// One run: its status, the calls it waits for, its output, usage and error.
    Show(OneRun),
    /// Approve (or, with --deny, deny) a call a waiting run waits for.
    Approve(ApproveArgs),
    /// Answer a waiting run's clarifying question, or give a deferred call its result (JSON).
    Answer(AnswerArgs),
    /// Drive a waiting or queued run in this process until it finishes or waits again.
    Resume(ResumeArgs),
    /// Cancel a run that has not ended.
    Cancel(OneRun),
}

/// `runs list`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  starweaver runs list --store sqlite:runs.db\n  STARWEAVER_STORE=sqlite:runs.db starweaver runs list --json"
)]
pub struct Listing {
    /// Where the runs are.
    #[command(flatten)]
    pub store: StoreArgs,
    /// Prints one JSON array (`id`, `agent`, `status`, `created_at`, `updated_at`).
    #[arg(long)]
    pub json: bool,
}

/// A command on one run.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  starweaver runs show 01J9Z... --store sqlite:runs.db --json\n  starweaver runs cancel 01J9Z... --store sqlite:runs.db"
)]
pub struct OneRun {
    /// The run's id (`starweaver runs list` shows them).
    #[arg(value_name = "ID")]
    pub id: String,
    /// Where the run is.
    #[command(flatten)]
    pub store: StoreArgs,
    /// Prints JSON.
    #[arg(long)]
    pub json: bool,
}

/// `starweaver runs ...`.
#[must_use]
pub fn runs_main(args: &RunsArgs) -> ExitCode {
    match &args.command {
        RunsCommand::Resume(resume) => resume_main(resume),
        RunsCommand::List(listing) => block_on(list::list(listing)),
        RunsCommand::Show(one) => block_on(show::show(one)),
        RunsCommand::Approve(approve) => block_on(decide::approve(approve)),
        RunsCommand::Answer(answer) => block_on(decide::answer(answer)),
        RunsCommand::Cancel(one) => block_on(cancel::cancel(one)),
    }
}

/// A store refusal or failure: status 1 with its message (it says what and how to fix it).
pub(crate) fn refused(error: &starweaver_core::runs::StoreError) -> Stop {
    Stop {
        message: error.to_string(),
        status: 1,
    }
}

/// The run `id` in `store`, or status 1 naming it.
pub(crate) async fn existing(
    store: &dyn starweaver_core::runs::RunStore,
    id: &str,
) -> Result<starweaver_core::runs::StoredRun, Stop> {
    let id = RunId::new(id);
    match store.get(&id).await {
        Ok(Some(run)) => Ok(run),
        Ok(None) => Err(refused(&starweaver_core::runs::StoreError::UnknownRun {
            run: id,
        })),
        Err(error) => Err(refused(&error)),
    }
}

/// Writes `text` to standard output; status 0, or 1 when it cannot be written.
pub(crate) fn print(text: &str) -> Result<u8, Stop> {
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|error| Stop {
            message: format!("cannot write the output: {error}"),
            status: 1,
        })?;
    Ok(0)
}

/// `value` as one JSON document and a newline.
pub(crate) fn print_json(value: &serde_json::Value) -> Result<u8, Stop> {
    print(&format!("{value}\n"))
}

//! `starweaver runs resume ID`: claims one run (waiting, queued, or running under a lease that
//! lapsed) and drives it in this process until it finishes, fails or waits again.

use std::path::PathBuf;
use std::process::ExitCode;

use starweaver_core::context::RunId;
use starweaver_core::model::Usage;
use starweaver_core::runs::ClaimedRun;

use super::{block_on, drive_claimed, load_claimed, AgentsDir, Durable, OnCancel, StoreArgs};
use crate::run::{choose_ui, AutoAnswers, Interrupt, Stop, UiSettings};

/// The arguments of `starweaver runs resume`.
#[derive(Clone, Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  starweaver runs resume 01J9Z... --store sqlite:runs.db\n  starweaver runs resume 01J9Z... --agents agents --yes\n\nExit status: 0 the run finished, 1 it failed or cannot be resumed, 2 bad usage, 3 it waits again."
)]
pub struct ResumeArgs {
    /// The run's id (`starweaver runs list` shows them).
    #[arg(value_name = "ID")]
    pub id: String,
    /// Where the run is.
    #[command(flatten)]
    pub store: StoreArgs,
    /// The folder of manifests: the run goes to the one whose `name` is its agent.
    #[arg(long, value_name = "DIR", default_value = "agents")]
    pub agents: PathBuf,
    /// A secret variable's value (repeatable); the store never keeps secrets. Without it, the
    /// environment variable of that name (as named, or in upper case) is used.
    #[arg(long = "var", value_name = "NAME=VALUE", value_parser = crate::run::name_value)]
    pub vars: Vec<(String, String)>,
    /// Approves every tool approval without asking.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Prints one JSON object per line (the run's records, then a `run_finished` record).
    #[arg(long)]
    pub json: bool,
    /// How long this process's claim lasts unless renewed, in milliseconds.
    #[arg(long = "lease-ms", value_name = "MS", default_value_t = super::worker::DEFAULT_LEASE_MS,
          value_parser = clap::value_parser!(u64).range(100..))]
    pub lease_ms: u64,
    /// How large a manifest file may be.
    #[command(flatten)]
    pub limit: crate::check::ManifestLimitArgs,
}

/// `starweaver runs resume`.
#[must_use]
pub fn resume_main(args: &ResumeArgs) -> ExitCode {
    block_on(async {
        let store = args.store.open().await?;
        let limit = args.limit.limit();
        let agents = AgentsDir::read(&args.agents, limit).map_err(Stop::usage)?;
        let failed = |message: String| Stop { message, status: 1 };
        let id = RunId::new(args.id.clone());
        let (run, lease) = store
            .claim_run(&id, &super::worker_name(), args.lease_ms)
            .await
            .map_err(|error| failed(error.to_string()))?;
        let claimed = match ClaimedRun::load(store.clone(), run, lease.clone()).await {
            Ok(claimed) => claimed,
            Err(error) => {
                let message = error.to_string();
                let _ = store.fail(&lease, message.clone(), Usage::default()).await;
                return Err(failed(message));
            }
        };
        let vars = args.vars.iter().cloned().collect();
        let (prepared, redactor) = match load_claimed(&claimed, &agents, &vars, limit).await {
            Ok(loaded) => loaded,
            Err(message) => {
                // Nothing ran: the run goes back to where it was for a fixed retry.
                let _ = claimed.release().await;
                return Err(failed(message));
            }
        };
        let interrupt = Interrupt::default();
        crate::run::watch_ctrl_c(&interrupt)?;
        let settings = UiSettings {
            yes: args.yes,
            keep_pending: true,
            redactor: redactor.clone(),
            interrupt: interrupt.cancel.clone(),
        };
        let mut ui = choose_ui(args.json, settings);
        let durable = Durable {
            claimed,
            lease_ms: args.lease_ms,
            ui: ui.as_mut(),
            auto: AutoAnswers {
                yes: args.yes,
                ..AutoAnswers::default()
            },
            interrupt,
            redactor,
            on_cancel: OnCancel::Release,
            prompt: None,
        };
        Ok(drive_claimed(durable, prepared.loaded).await.exit_code())
    })
}

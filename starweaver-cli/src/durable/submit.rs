//! `starweaver submit MANIFEST --prompt TEXT`: a run queued in a run store for a worker. The
//! manifest is read and checked once, as `run` does; the run id alone goes to standard output,
//! so `id=$(starweaver submit ...)` works.

use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::json;

use super::{block_on, new_run, StoreArgs};
use crate::run::{prepare, Hooks, Stop};

/// The arguments of `starweaver submit`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  id=$(starweaver submit agents/repo-helper.yaml --prompt \"Where is the manifest loader?\" --store sqlite:runs.db)\n  starweaver submit agents/triage.yaml --prompt \"Triage issue 12\" --var tone=short --json\n\nExit status: 0 queued, 1 the store cannot be opened or refused the run, 2 bad usage or a manifest that does not check."
)]
pub struct SubmitArgs {
    /// The agent manifest to run.
    #[arg(value_name = "MANIFEST")]
    pub manifest: PathBuf,
    /// The prompt.
    #[arg(long, short = 'p', value_name = "TEXT")]
    pub prompt: String,
    /// Overrides a variable the manifest declares under `vars` (repeatable); secret values are
    /// never stored: the worker gives them again.
    #[arg(long = "var", value_name = "NAME=VALUE", value_parser = crate::run::name_value)]
    pub vars: Vec<(String, String)>,
    /// Where the run goes.
    #[command(flatten)]
    pub store: StoreArgs,
    /// Prints `{"id", "agent", "status"}` instead of the id alone.
    #[arg(long)]
    pub json: bool,
    /// How large the manifest file may be.
    #[command(flatten)]
    pub limit: crate::check::ManifestLimitArgs,
}

/// `starweaver submit`.
#[must_use]
pub fn submit_main(args: &SubmitArgs) -> ExitCode {
    block_on(async {
        if args.prompt.trim().is_empty() {
            return Err(Stop::usage(
                "--prompt is empty; give the agent something to do",
            ));
        }
        let store = args.store.open().await?;
        let vars = args.vars.iter().cloned().collect();
        let prepared = prepare(
            &args.manifest,
            &vars,
            None,
            args.limit.limit(),
            &Hooks::default(),
        )
        .await?;
        if !prepared.warnings.is_empty() {
            eprint!("{}", prepared.warnings);
        }
        let redactor = prepared.redactor(&vars);
        let run = new_run(&prepared, &vars, &redactor, args.prompt.clone());
        let created = store.create(run).await.map_err(|error| Stop {
            message: error.to_string(),
            status: 1,
        })?;
        let id = created.id.as_str();
        let line = if args.json {
            json!({"id": id, "agent": created.agent, "status": created.status.as_str()}).to_string()
        } else {
            id.to_string()
        };
        println!("{line}");
        Ok(0)
    })
}

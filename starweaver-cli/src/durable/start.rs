//! `starweaver run MANIFEST --store URL`: the run is created in the store, claimed by this
//! process and journaled as it works; a run that waits stays in the store for anyone to
//! answer.

use std::collections::BTreeMap;
use std::sync::Arc;

use starweaver_core::runs::{ClaimedRun, NewRun, RunStore};

use super::worker::DEFAULT_LEASE_MS;
use super::{drive_claimed, worker_name, Durable, OnCancel};
use crate::mask::Redactor;
use crate::run::{AutoAnswers, Interrupt, Prepared, Stop};
use crate::ui::RunUi;

/// The run as a store keeps it: the manifest's agent and digest, the prompt and the `--var`
/// values, every secret masked.
#[must_use]
pub(crate) fn new_run(
    prepared: &Prepared,
    vars: &BTreeMap<String, String>,
    redactor: &Redactor,
    prompt: String,
) -> NewRun {
    NewRun::new(prepared.name.clone(), redactor.text(&prompt))
        .with_manifest_digest(prepared.digest.clone())
        .with_vars(Redactor::vars_to_save(vars, &prepared.secret_vars))
}

/// Everything a stored run of `starweaver run` needs besides the store and the manifest.
pub(crate) struct StoreRun<'a> {
    /// The `--var` values.
    pub(crate) vars: &'a BTreeMap<String, String>,
    /// The prompt.
    pub(crate) prompt: String,
    /// `--yes`.
    pub(crate) auto: AutoAnswers,
    /// Who watches.
    pub(crate) ui: &'a mut dyn RunUi,
    /// Ctrl-C.
    pub(crate) interrupt: Interrupt,
    /// Masks secrets.
    pub(crate) redactor: Redactor,
}

/// Creates the run in `store`, claims it and drives it; the exit status of how it settled.
///
/// # Errors
/// Status 1 when the store refuses the run.
pub(crate) async fn run_in_store(
    store: Arc<dyn RunStore>,
    prepared: Prepared,
    run: StoreRun<'_>,
) -> Result<u8, Stop> {
    let failed = |message: String| Stop { message, status: 1 };
    let created = store
        .create(new_run(
            &prepared,
            run.vars,
            &run.redactor,
            run.prompt.clone(),
        ))
        .await
        .map_err(|error| failed(error.to_string()))?;
    let (stored, lease) = store
        .claim_run(&created.id, &worker_name(), DEFAULT_LEASE_MS)
        .await
        .map_err(|error| failed(error.to_string()))?;
    let claimed = ClaimedRun::load(store, stored, lease)
        .await
        .map_err(|error| failed(error.to_string()))?;
    let durable = Durable {
        claimed,
        lease_ms: DEFAULT_LEASE_MS,
        ui: run.ui,
        auto: run.auto,
        interrupt: run.interrupt,
        redactor: run.redactor,
        on_cancel: OnCancel::Cancel,
        prompt: Some(run.prompt),
    };
    Ok(drive_claimed(durable, prepared.loaded).await.exit_code())
}

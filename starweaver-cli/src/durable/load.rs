//! A claimed run's agent, loaded from the manifest its agent name finds, with the run's
//! variables and the worker's secrets, and the masker of those secrets.

use std::collections::BTreeMap;

use starweaver_config::check::ManifestLimit;
use starweaver_core::runs::ClaimedRun;

use super::agents::AgentsDir;
use super::vars::run_vars;
use crate::mask::Redactor;
use crate::run::{prepare, Hooks, Prepared};

/// The loaded manifest of `claimed`'s agent, and the masker of its secrets.
///
/// # Errors
/// Why the run cannot run here, to store as its failure: no manifest for its agent, a secret
/// variable the worker does not give, a manifest that no longer checks or loads.
pub(crate) async fn load_claimed(
    claimed: &ClaimedRun,
    agents: &AgentsDir,
    worker_vars: &BTreeMap<String, String>,
    limit: ManifestLimit,
) -> Result<(Prepared, Redactor), String> {
    let run = claimed.run();
    let path = agents.manifest(&run.agent)?;
    let vars = run_vars(&run.vars, worker_vars, |name| std::env::var(name).ok())?;
    let prepared = prepare(path, &vars, None, limit, &Hooks::default())
        .await
        .map_err(|stop| stop.message)?;
    let redactor = prepared.redactor(&vars);
    Ok((prepared, redactor))
}

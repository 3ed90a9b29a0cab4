//! `starweaver worker`: claim queued runs from a store and drive them, `--concurrency` at a
//! time, until stopped. Ctrl-C or SIGTERM stops claiming, cuts the runs in hand short and gives
//! them back to the queue, where another worker continues them from their journals.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use starweaver_config::check::ManifestLimit;
use starweaver_core::model::Usage;
use starweaver_core::runs::{ClaimedRun, Lease, RunStore, StoredRun};
use tokio_util::sync::CancellationToken;

use super::{drive_claimed, load_claimed, AgentsDir, Durable, OnCancel, QuietUi, Settled};
use crate::run::{AutoAnswers, Interrupt};

/// The arguments of `starweaver worker` besides the store.
#[derive(Clone, Debug, clap::Args)]
pub struct WorkerOptions {
    /// The folder of manifests: a run goes to the manifest whose `name` is its agent.
    #[arg(long, value_name = "DIR", default_value = "agents")]
    pub agents: PathBuf,
    /// How many runs this worker drives at once.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=256))]
    pub concurrency: u32,
    /// How long a claim lasts unless renewed, in milliseconds; a worker that stops renewing
    /// (it died, or it is paused) loses its runs to other workers after this long.
    #[arg(long = "lease-ms", value_name = "MS", default_value_t = DEFAULT_LEASE_MS,
          value_parser = clap::value_parser!(u64).range(100..))]
    pub lease_ms: u64,
    /// A secret variable's value for the runs that need it (repeatable); the store never keeps
    /// secrets. Without it, the variable of that name in the environment (as named, or in upper
    /// case) is used.
    #[arg(long = "var", value_name = "NAME=VALUE", value_parser = crate::run::name_value)]
    pub vars: Vec<(String, String)>,
    /// How long to wait before looking again when no run is queued, in milliseconds.
    #[arg(long = "poll-ms", value_name = "MS", default_value_t = 500,
          value_parser = clap::value_parser!(u64).range(10..))]
    pub poll_ms: u64,
    /// Exits once no run is left to claim, instead of waiting for more.
    #[arg(long)]
    pub exit_when_idle: bool,
    /// Prints one JSON object per run it settles (`run`, `agent`, `worker`, `settled`,
    /// `message`), instead of a line of text on standard error.
    #[arg(long)]
    pub json: bool,
    /// How large a manifest file may be.
    #[command(flatten)]
    pub limit: crate::check::ManifestLimitArgs,
}

/// The lease a worker holds unless `--lease-ms` says otherwise.
pub const DEFAULT_LEASE_MS: u64 = 30_000;

/// What every slot of a worker shares.
struct Shared {
    store: Arc<dyn RunStore>,
    agents: AgentsDir,
    vars: BTreeMap<String, String>,
    options: WorkerOptions,
    limit: ManifestLimit,
    shutdown: CancellationToken,
}

/// Runs the worker on `store` until `shutdown` fires (or, with `--exit-when-idle`, until no run
/// is left to claim). The exit status: 0, or 2 when `--agents` cannot be read.
pub async fn run_worker(
    store: Arc<dyn RunStore>,
    options: &WorkerOptions,
    shutdown: CancellationToken,
) -> u8 {
    let limit = options.limit.limit();
    let agents = match AgentsDir::read(&options.agents, limit) {
        Ok(agents) => agents,
        Err(message) => {
            let _ = writeln!(std::io::stderr().lock(), "error: {message}");
            return 2;
        }
    };
    let shared = Arc::new(Shared {
        store,
        agents,
        vars: options.vars.iter().cloned().collect(),
        options: options.clone(),
        limit,
        shutdown,
    });
    let base = worker_name();
    let mut slots = tokio::task::JoinSet::new();
    for slot in 0..options.concurrency {
        let shared = Arc::clone(&shared);
        let name = format!("{base}/{slot}");
        slots.spawn(async move { claim_loop(&shared, &name).await });
    }
    while slots.join_next().await.is_some() {}
    0
}

/// One slot: claim, drive, repeat.
async fn claim_loop(shared: &Shared, worker: &str) {
    let poll = Duration::from_millis(shared.options.poll_ms);
    loop {
        if shared.shutdown.is_cancelled() {
            return;
        }
        match shared.store.claim(worker, shared.options.lease_ms).await {
            Ok(Some((run, lease))) => drive_one(shared, worker, run, lease).await,
            Ok(None) if shared.options.exit_when_idle => return,
            Ok(None) => idle(shared, poll).await,
            Err(error) => {
                let _ = writeln!(
                    std::io::stderr().lock(),
                    "worker {worker}: cannot claim a run: {error}"
                );
                idle(shared, poll).await;
            }
        }
    }
}

async fn idle(shared: &Shared, poll: Duration) {
    tokio::select! {
        () = shared.shutdown.cancelled() => {}
        () = tokio::time::sleep(poll) => {}
    }
}

/// Drives one claimed run to its end or its next wait, and says how it settled.
async fn drive_one(shared: &Shared, worker: &str, run: StoredRun, lease: Lease) {
    let (id, agent) = (run.id.clone(), run.agent.clone());
    let settled = match ClaimedRun::load(Arc::clone(&shared.store), run, lease.clone()).await {
        // A journal this version cannot read fails only its run.
        Err(error) => fail(shared, &lease, error.to_string()).await,
        Ok(claimed) => {
            match load_claimed(&claimed, &shared.agents, &shared.vars, shared.limit).await {
                Err(message) => match claimed.fail(message.clone(), Usage::default()).await {
                    Ok(()) => Settled::Failed(message),
                    Err(error) => Settled::Unrecorded(error.to_string()),
                },
                Ok((prepared, redactor)) => {
                    let interrupt = Interrupt {
                        cancel: shared.shutdown.child_token(),
                        force: CancellationToken::new(),
                    };
                    let mut ui = QuietUi;
                    let durable = Durable {
                        claimed,
                        lease_ms: shared.options.lease_ms,
                        ui: &mut ui,
                        auto: AutoAnswers::default(),
                        interrupt,
                        redactor,
                        on_cancel: OnCancel::Release,
                        prompt: None,
                    };
                    drive_claimed(durable, prepared.loaded).await
                }
            }
        }
    };
    report(shared, worker, id.as_str(), &agent, &settled);
}

async fn fail(shared: &Shared, lease: &Lease, message: String) -> Settled {
    match shared
        .store
        .fail(lease, message.clone(), Usage::default())
        .await
    {
        Ok(()) => Settled::Failed(message),
        Err(error) => Settled::Unrecorded(error.to_string()),
    }
}

fn report(shared: &Shared, worker: &str, id: &str, agent: &str, settled: &Settled) {
    if shared.options.json {
        let (name, message) = match settled {
            Settled::Finished => ("finished", None),
            Settled::Waiting => ("waiting", None),
            Settled::Failed(message) => ("failed", Some(message.as_str())),
            Settled::Released => ("released", None),
            Settled::Cancelled => ("cancelled", None),
            Settled::Lost => ("lost", None),
            Settled::Unrecorded(message) => ("unrecorded", Some(message.as_str())),
        };
        let line = serde_json::json!({
            "run": id,
            "agent": agent,
            "worker": worker,
            "settled": name,
            "message": message,
        });
        let _ = writeln!(std::io::stdout().lock(), "{line}");
    } else {
        let _ = writeln!(
            std::io::stderr().lock(),
            "worker {worker}: run {id} ({agent}) {}",
            settled.describe()
        );
    }
}

/// This worker's name in leases: the host and the process, so `runs show` tells who holds a
/// run.
pub(crate) fn worker_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "worker".to_string());
    format!("{host}-{}", std::process::id())
}

/// The arguments of `starweaver worker`.
#[derive(Clone, Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  starweaver worker --store sqlite:runs.db --agents agents\n  STARWEAVER_STORE=postgres://sw:PASSWORD@db:5432/runs starweaver worker --concurrency 4\n  starweaver worker --store sqlite:runs.db --exit-when-idle --json\n\nCtrl-C or SIGTERM stops claiming and gives the runs in hand back to the queue.\nExit status: 0 stopped, 1 the store cannot be opened, 2 bad usage or an unreadable --agents."
)]
pub struct WorkerArgs {
    /// Where the runs are.
    #[command(flatten)]
    pub store: super::StoreArgs,
    /// How the worker runs them.
    #[command(flatten)]
    pub options: WorkerOptions,
}

/// `starweaver worker`: opens the store, then claims and drives runs until Ctrl-C, SIGTERM or
/// (with `--exit-when-idle`) an empty queue.
#[must_use]
pub fn worker_main(args: &WorkerArgs) -> std::process::ExitCode {
    super::block_on(async {
        let store = args.store.open().await?;
        let shutdown = CancellationToken::new();
        super::stop_on_signals(shutdown.clone())?;
        Ok(run_worker(store, &args.options, shutdown).await)
    })
}

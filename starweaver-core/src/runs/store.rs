//! [`RunStore`]: the contract every run store keeps, whatever keeps the bytes.

use crate::agent::{AgentHitlResults, AgentSessionState};
use crate::context::RunId;
use crate::model::Usage;
use crate::BoxFuture;

use super::{JournalEntry, Lease, NewRun, RunStatus, StoredRun};

/// Why a store refused or failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The worker's lease is no longer current: it expired, or another worker claimed the run
    /// since. Nothing was written; the worker must stop working on the run.
    #[error(
        "the lease on run {run} is no longer held (it expired, or another worker claimed the \
         run); nothing was written, and this worker stops working on it"
    )]
    LeaseLost {
        /// The run.
        run: RunId,
    },
    /// No run has this id.
    #[error("no run has the id {run}; `starweaver runs list` shows the runs there are")]
    UnknownRun {
        /// The id asked for.
        run: RunId,
    },
    /// A run with this id exists already.
    #[error("a run with the id {run} exists already")]
    DuplicateRun {
        /// The id.
        run: RunId,
    },
    /// The run is not in a status that allows this.
    #[error("run {run} is {status}, so it cannot be {action}")]
    WrongStatus {
        /// The run.
        run: RunId,
        /// Where it stands.
        status: RunStatus,
        /// What was asked (`claimed`, `cancelled`, ...).
        action: &'static str,
    },
    /// A stored row could not be read back (written by something else, or damaged). Only this
    /// run is affected.
    #[error("run {run} has a stored record that cannot be read: {detail}")]
    Corrupt {
        /// The run.
        run: RunId,
        /// What is wrong.
        detail: String,
    },
    /// An answer names a call the waiting run does not wait for.
    #[error(
        "run {run} does not wait for a call with the id {call}; `starweaver runs show {run}` \
         lists the calls it waits for"
    )]
    UnknownCall {
        /// The run.
        run: RunId,
        /// The call id the answer named.
        call: String,
    },
    /// The backend failed (a lost connection, a full disk).
    #[error("the run store failed: {message}")]
    Backend {
        /// What it said.
        message: String,
    },
}

/// A place runs live in while they are queued, work, wait and end. Every backend keeps the
/// same rules:
///
/// - Writes about a running run name its [`Lease`], and a store takes them only while that
///   lease is current (its token is the run's latest and it has not expired), in the same
///   step as the write: a worker that lost its lease writes nothing.
/// - [`Self::claim`] gives each claimable run to one caller, however many race for it.
/// - [`Self::append`] keeps the first entry of each `(step, call id)` key: a return journaled
///   twice (a worker that resumed from an earlier step) is kept once.
pub trait RunStore: Send + Sync {
    /// Stores a new run as `queued`.
    fn create<'a>(&'a self, run: NewRun) -> BoxFuture<'a, Result<StoredRun, StoreError>>;

    /// The run with this id, if there is one.
    fn get<'a>(&'a self, id: &'a RunId) -> BoxFuture<'a, Result<Option<StoredRun>, StoreError>>;

    /// Every run, in every status, oldest first.
    fn list(&self) -> BoxFuture<'_, Result<Vec<StoredRun>, StoreError>>;

    /// Claims the oldest run that is `queued`, or `running` under a lease that expired, for
    /// `worker`, for `lease_ms`: it becomes `running` under a new lease. `None` when no run
    /// can be claimed.
    fn claim<'a>(
        &'a self,
        worker: &'a str,
        lease_ms: u64,
    ) -> BoxFuture<'a, Result<Option<(StoredRun, Lease)>, StoreError>>;

    /// Claims the run `id` itself (to resume it in this process) when it is `queued` or
    /// `waiting`, or `running` under a lease that expired.
    fn claim_run<'a>(
        &'a self,
        id: &'a RunId,
        worker: &'a str,
        lease_ms: u64,
    ) -> BoxFuture<'a, Result<(StoredRun, Lease), StoreError>>;

    /// Extends a current lease by `lease_ms` from now (the worker's heartbeat).
    fn renew<'a>(
        &'a self,
        lease: &'a Lease,
        lease_ms: u64,
    ) -> BoxFuture<'a, Result<Lease, StoreError>>;

    /// Journals `entry` for the leased run. `Ok(false)` when its key was journaled already
    /// (the earlier entry stays).
    fn append<'a>(
        &'a self,
        lease: &'a Lease,
        entry: JournalEntry,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// The run's journal, by step and then call id.
    fn journal<'a>(&'a self, id: &'a RunId)
        -> BoxFuture<'a, Result<Vec<JournalEntry>, StoreError>>;

    /// The leased run waits: its session is stored and the lease ends, so any process may
    /// answer it and claim it again with [`Self::claim_run`].
    fn wait<'a>(
        &'a self,
        lease: &'a Lease,
        state: AgentSessionState,
        usage: Usage,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The leased run answered: `output` is the model's final text, `structured_output` the
    /// validated answer of an agent with an output schema (`None` for a text answer).
    fn finish<'a>(
        &'a self,
        lease: &'a Lease,
        output: String,
        structured_output: Option<serde_json::Value>,
        usage: Usage,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The leased run failed.
    fn fail<'a>(
        &'a self,
        lease: &'a Lease,
        error: String,
        usage: Usage,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Records answers for calls the waiting run `id` waits for: a person's approval, denial
    /// or answer, or a deferred call's result. A later answer for a call replaces an earlier
    /// one. Once every pending call has an answer, the run is `queued` again for a worker (or
    /// a resume in some process) to continue with them. The run as it now stands.
    fn answer<'a>(
        &'a self,
        id: &'a RunId,
        answers: AgentHitlResults,
    ) -> BoxFuture<'a, Result<StoredRun, StoreError>>;

    /// Gives the leased run back to the queue (a worker that stops before the run ends).
    fn release<'a>(&'a self, lease: &'a Lease) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Cancels a run that has not ended; a worker holding it loses its lease.
    fn cancel<'a>(&'a self, id: &'a RunId) -> BoxFuture<'a, Result<(), StoreError>>;
}

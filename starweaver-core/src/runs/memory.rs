//! [`MemoryRunStore`]: a run store in this process's memory, for tests and for hosts that need
//! the store's rules (leases, the journal) without durability.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::agent::{AgentHitlResults, AgentSessionState};
use crate::context::RunId;
use crate::model::Usage;
use crate::BoxFuture;

use super::{JournalEntry, Lease, NewRun, RunStatus, RunStore, StoreError, StoredRun};

/// Where the store reads the time: milliseconds since the Unix epoch.
type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// A run store in memory: everything is lost with the process. It keeps every rule of
/// [`RunStore`], and its clock can be replaced ([`Self::with_clock`]), so lease expiry is
/// tested without waiting.
#[derive(Clone)]
pub struct MemoryRunStore {
    state: Arc<Mutex<State>>,
    clock: Clock,
}

impl std::fmt::Debug for MemoryRunStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryRunStore").finish_non_exhaustive()
    }
}

#[derive(Default)]
struct State {
    /// Runs in creation order.
    runs: Vec<Held>,
    /// Where each run is in `runs`, by id.
    index: std::collections::HashMap<RunId, usize>,
    /// The runs that have not ended, in creation order: the only ones a claim looks at.
    open: std::collections::BTreeSet<usize>,
    /// Claims made: each lease's token is its number.
    claims: u64,
}

struct Held {
    run: StoredRun,
    lease: Option<Lease>,
    journal: BTreeMap<(u32, String), JournalEntry>,
}

impl Default for MemoryRunStore {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryRunStore {
    /// An empty store on the system clock.
    #[must_use]
    pub fn new() -> Self {
        Self::with_clock(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |elapsed| {
                    u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
                })
        })
    }

    /// An empty store reading the time from `clock` (milliseconds since the Unix epoch).
    #[must_use]
    pub fn with_clock(clock: impl Fn() -> u64 + Send + Sync + 'static) -> Self {
        Self {
            state: Arc::new(Mutex::new(State::default())),
            clock: Arc::new(clock),
        }
    }

    /// Ends the hold of a current `lease`: the run moves to `status`, `change` records what
    /// goes with it, and the lease is gone.
    fn end_lease<'a>(
        &'a self,
        lease: &'a Lease,
        status: RunStatus,
        change: impl FnOnce(&mut StoredRun),
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let done = self.with_state(|state, now| {
            let held = state.leased(lease, now)?;
            held.run.status = status;
            change(&mut held.run);
            held.run.updated_at = now;
            held.lease = None;
            if status.is_final() {
                state.ended(&lease.run_id);
            }
            Ok(())
        });
        Box::pin(async move { done })
    }

    fn with_state<T>(&self, change: impl FnOnce(&mut State, u64) -> T) -> T {
        let now = (self.clock)();
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        change(&mut state, now)
    }
}

impl State {
    fn find(&mut self, id: &RunId) -> Result<&mut Held, StoreError> {
        let found = self.index.get(id).copied();
        found
            .and_then(|at| self.runs.get_mut(at))
            .ok_or_else(|| StoreError::UnknownRun { run: id.clone() })
    }

    /// Notes that the run `id` ended, so claims no longer look at it.
    fn ended(&mut self, id: &RunId) {
        if let Some(at) = self.index.get(id) {
            self.open.remove(at);
        }
    }

    /// The run `lease` holds, when the lease is current.
    fn leased(&mut self, lease: &Lease, now: u64) -> Result<&mut Held, StoreError> {
        let held = self.find(&lease.run_id)?;
        let current = held.run.status == RunStatus::Running
            && held
                .lease
                .as_ref()
                .is_some_and(|own| own.token == lease.token && own.expires_at > now);
        if current {
            Ok(held)
        } else {
            Err(StoreError::LeaseLost {
                run: lease.run_id.clone(),
            })
        }
    }

    /// Gives `held` to `worker` under a new lease.
    fn grant(&mut self, index: usize, worker: &str, lease_ms: u64, now: u64) -> (StoredRun, Lease) {
        self.claims += 1;
        let token = self.claims.to_string();
        let held = &mut self.runs[index];
        let lease = Lease::new(
            held.run.id.clone(),
            worker,
            token,
            now.saturating_add(lease_ms),
        );
        held.run.status = RunStatus::Running;
        held.run.updated_at = now;
        held.lease = Some(lease.clone());
        (held.run.clone(), lease)
    }
}

/// Whether a run can be claimed now: queued, or running under a lease that lapsed.
fn claimable(held: &Held, now: u64) -> bool {
    match held.run.status {
        RunStatus::Queued => true,
        RunStatus::Running => held
            .lease
            .as_ref()
            .is_none_or(|lease| lease.expires_at <= now),
        _ => false,
    }
}

impl RunStore for MemoryRunStore {
    fn create<'a>(&'a self, run: NewRun) -> BoxFuture<'a, Result<StoredRun, StoreError>> {
        let created = self.with_state(|state, now| {
            if state.index.contains_key(&run.id) {
                return Err(StoreError::DuplicateRun { run: run.id });
            }
            let stored = StoredRun::created(run, now);
            let at = state.runs.len();
            state.index.insert(stored.id.clone(), at);
            state.open.insert(at);
            state.runs.push(Held {
                run: stored.clone(),
                lease: None,
                journal: BTreeMap::new(),
            });
            Ok(stored)
        });
        Box::pin(async move { created })
    }

    fn get<'a>(&'a self, id: &'a RunId) -> BoxFuture<'a, Result<Option<StoredRun>, StoreError>> {
        let found = self.with_state(|state, _| {
            state
                .index
                .get(id)
                .and_then(|at| state.runs.get(*at))
                .map(|held| held.run.clone())
        });
        Box::pin(async move { Ok(found) })
    }

    fn list(&self) -> BoxFuture<'_, Result<Vec<StoredRun>, StoreError>> {
        let runs =
            self.with_state(|state, _| state.runs.iter().map(|held| held.run.clone()).collect());
        Box::pin(async move { Ok(runs) })
    }

    fn claim<'a>(
        &'a self,
        worker: &'a str,
        lease_ms: u64,
    ) -> BoxFuture<'a, Result<Option<(StoredRun, Lease)>, StoreError>> {
        let claimed = self.with_state(|state, now| {
            let index = state
                .open
                .iter()
                .copied()
                .find(|at| claimable(&state.runs[*at], now))?;
            Some(state.grant(index, worker, lease_ms, now))
        });
        Box::pin(async move { Ok(claimed) })
    }

    fn claim_run<'a>(
        &'a self,
        id: &'a RunId,
        worker: &'a str,
        lease_ms: u64,
    ) -> BoxFuture<'a, Result<(StoredRun, Lease), StoreError>> {
        let claimed = self.with_state(|state, now| {
            let index = state
                .index
                .get(id)
                .copied()
                .ok_or_else(|| StoreError::UnknownRun { run: id.clone() })?;
            let held = &state.runs[index];
            if !(claimable(held, now) || held.run.status == RunStatus::Waiting) {
                return Err(StoreError::WrongStatus {
                    run: id.clone(),
                    status: held.run.status,
                    action: "claimed",
                });
            }
            Ok(state.grant(index, worker, lease_ms, now))
        });
        Box::pin(async move { claimed })
    }

    fn renew<'a>(
        &'a self,
        lease: &'a Lease,
        lease_ms: u64,
    ) -> BoxFuture<'a, Result<Lease, StoreError>> {
        let renewed = self.with_state(|state, now| {
            let held = state.leased(lease, now)?;
            let mut renewed = lease.clone();
            renewed.expires_at = now.saturating_add(lease_ms);
            held.lease = Some(renewed.clone());
            held.run.updated_at = now;
            Ok(renewed)
        });
        Box::pin(async move { renewed })
    }

    fn append<'a>(
        &'a self,
        lease: &'a Lease,
        entry: JournalEntry,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let written = self.with_state(|state, now| {
            let held = state.leased(lease, now)?;
            let key = (entry.step, entry.call_id.clone());
            if held.journal.contains_key(&key) {
                return Ok(false);
            }
            held.journal.insert(key, entry);
            held.run.updated_at = now;
            Ok(true)
        });
        Box::pin(async move { written })
    }

    fn journal<'a>(
        &'a self,
        id: &'a RunId,
    ) -> BoxFuture<'a, Result<Vec<JournalEntry>, StoreError>> {
        let entries = self.with_state(|state, _| {
            state
                .find(id)
                .map(|held| held.journal.values().cloned().collect())
        });
        Box::pin(async move { entries })
    }

    fn wait<'a>(
        &'a self,
        lease: &'a Lease,
        session: AgentSessionState,
        usage: Usage,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.end_lease(lease, RunStatus::Waiting, |run| {
            run.waiting = Some(session);
            run.answers = AgentHitlResults::default();
            run.usage = Some(usage);
        })
    }

    fn finish<'a>(
        &'a self,
        lease: &'a Lease,
        output: String,
        structured_output: Option<serde_json::Value>,
        usage: Usage,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.end_lease(lease, RunStatus::Finished, |run| {
            run.output = Some(output);
            run.structured_output = structured_output;
            run.usage = Some(usage);
            run.waiting = None;
            run.answers = AgentHitlResults::default();
        })
    }

    fn fail<'a>(
        &'a self,
        lease: &'a Lease,
        error: String,
        usage: Usage,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.end_lease(lease, RunStatus::Failed, |run| {
            run.error = Some(error);
            run.usage = Some(usage);
            run.waiting = None;
            run.answers = AgentHitlResults::default();
        })
    }

    fn answer<'a>(
        &'a self,
        id: &'a RunId,
        answers: AgentHitlResults,
    ) -> BoxFuture<'a, Result<StoredRun, StoreError>> {
        let answered = self.with_state(|state, now| {
            let held = state.find(id)?;
            held.run.take_answers(answers)?;
            held.run.updated_at = now;
            Ok(held.run.clone())
        });
        Box::pin(async move { answered })
    }

    fn release<'a>(&'a self, lease: &'a Lease) -> BoxFuture<'a, Result<(), StoreError>> {
        self.end_lease(lease, RunStatus::Queued, |_| {})
    }

    fn cancel<'a>(&'a self, id: &'a RunId) -> BoxFuture<'a, Result<(), StoreError>> {
        let done = self.with_state(|state, now| {
            let held = state.find(id)?;
            if held.run.status.is_final() {
                return Err(StoreError::WrongStatus {
                    run: id.clone(),
                    status: held.run.status,
                    action: "cancelled",
                });
            }
            held.run.status = RunStatus::Cancelled;
            held.run.updated_at = now;
            held.lease = None;
            state.ended(id);
            Ok(())
        });
        Box::pin(async move { done })
    }
}

// The store's rules are checked against every store at once, in the integration tests
// (`run_store`); what is checked here is the names stores write.
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use serde_json::json;

    use super::super::JournalKind;
    use super::*;

    #[test]
    fn statuses_and_kinds_read_back_their_names() {
        for status in [
            RunStatus::Queued,
            RunStatus::Running,
            RunStatus::Waiting,
            RunStatus::Finished,
            RunStatus::Failed,
            RunStatus::Cancelled,
        ] {
            assert_eq!(RunStatus::parse(status.as_str()), Some(status));
            assert_eq!(
                serde_json::to_value(status).unwrap(),
                json!(status.as_str())
            );
        }
        assert_eq!(RunStatus::parse("paused"), None);
        for kind in [JournalKind::ModelResponse, JournalKind::ToolReturn] {
            assert_eq!(JournalKind::parse(kind.as_str()), Some(kind));
        }
    }
}

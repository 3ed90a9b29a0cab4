//! [`MemoryRunStore`]: a run store in this process's memory, for tests and for hosts that need
//! the store's rules (leases, the journal) without durability.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::agent::AgentSessionState;
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

    fn with_state<T>(&self, change: impl FnOnce(&mut State, u64) -> T) -> T {
        let now = (self.clock)();
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        change(&mut state, now)
    }
}

impl State {
    fn find(&mut self, id: &RunId) -> Result<&mut Held, StoreError> {
        self.runs
            .iter_mut()
            .find(|held| held.run.id == *id)
            .ok_or_else(|| StoreError::UnknownRun { run: id.clone() })
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
            if state.runs.iter().any(|held| held.run.id == run.id) {
                return Err(StoreError::DuplicateRun { run: run.id });
            }
            let stored = StoredRun::created(run, now);
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
                .runs
                .iter()
                .find(|held| held.run.id == *id)
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
            let index = state.runs.iter().position(|held| claimable(held, now))?;
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
                .runs
                .iter()
                .position(|held| held.run.id == *id)
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
        let done = self.with_state(|state, now| {
            let held = state.leased(lease, now)?;
            held.run.status = RunStatus::Waiting;
            held.run.waiting = Some(session);
            held.run.usage = Some(usage);
            held.run.updated_at = now;
            held.lease = None;
            Ok(())
        });
        Box::pin(async move { done })
    }

    fn finish<'a>(
        &'a self,
        lease: &'a Lease,
        output: String,
        usage: Usage,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let done = self.with_state(|state, now| {
            let held = state.leased(lease, now)?;
            held.run.status = RunStatus::Finished;
            held.run.output = Some(output);
            held.run.usage = Some(usage);
            held.run.waiting = None;
            held.run.updated_at = now;
            held.lease = None;
            Ok(())
        });
        Box::pin(async move { done })
    }

    fn fail<'a>(
        &'a self,
        lease: &'a Lease,
        error: String,
        usage: Usage,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let done = self.with_state(|state, now| {
            let held = state.leased(lease, now)?;
            held.run.status = RunStatus::Failed;
            held.run.error = Some(error);
            held.run.usage = Some(usage);
            held.run.waiting = None;
            held.run.updated_at = now;
            held.lease = None;
            Ok(())
        });
        Box::pin(async move { done })
    }

    fn release<'a>(&'a self, lease: &'a Lease) -> BoxFuture<'a, Result<(), StoreError>> {
        let done = self.with_state(|state, now| {
            let held = state.leased(lease, now)?;
            held.run.status = RunStatus::Queued;
            held.run.updated_at = now;
            held.lease = None;
            Ok(())
        });
        Box::pin(async move { done })
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
            Ok(())
        });
        Box::pin(async move { done })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use serde_json::json;

    use super::*;

    /// A store whose clock the test moves, and the hand that moves it.
    fn at_time() -> (MemoryRunStore, Arc<AtomicU64>) {
        let now = Arc::new(AtomicU64::new(1_000));
        let clock = Arc::clone(&now);
        (
            MemoryRunStore::with_clock(move || clock.load(Ordering::SeqCst)),
            now,
        )
    }

    fn block<T>(future: BoxFuture<'_, T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn a_run_is_queued_claimed_journaled_and_finished() {
        let (store, now) = at_time();
        let run = block(store.create(NewRun::new("helper", "hi"))).unwrap();
        assert_eq!(run.status, RunStatus::Queued);
        let (claimed, lease) = block(store.claim("w1", 30_000)).unwrap().unwrap();
        assert_eq!(
            (claimed.id.clone(), claimed.status),
            (run.id.clone(), RunStatus::Running)
        );
        assert_eq!(
            block(store.claim("w2", 30_000)).unwrap(),
            None,
            "one run, one claim"
        );
        let response = JournalEntry::model_response(1, json!({"parts": []}));
        let first = JournalEntry::tool_return(1, "c1", json!({"content": 1}));
        assert!(block(store.append(&lease, first)).unwrap());
        assert!(block(store.append(&lease, response)).unwrap());
        // A return journaled again (a worker resuming from an earlier step) keeps the first.
        let again = JournalEntry::tool_return(1, "c1", json!({"content": 2}));
        assert!(!block(store.append(&lease, again)).unwrap());
        let journal = block(store.journal(&run.id)).unwrap();
        assert_eq!(journal.len(), 2);
        assert_eq!(journal[0].key(), (1, ""), "by step, then call id");
        assert_eq!(journal[1].payload, json!({"content": 1}));
        now.store(2_000, Ordering::SeqCst);
        block(store.finish(&lease, "done".into(), Usage::default())).unwrap();
        let finished = block(store.get(&run.id)).unwrap().unwrap();
        assert_eq!(finished.status, RunStatus::Finished);
        assert_eq!(finished.output.as_deref(), Some("done"));
        assert_eq!((finished.created_at, finished.updated_at), (1_000, 2_000));
        // A finished run writes nothing more, even with the lease it had.
        assert!(matches!(
            block(store.append(&lease, JournalEntry::model_response(2, json!(null)))),
            Err(StoreError::LeaseLost { .. })
        ));
    }

    #[test]
    fn an_expired_lease_goes_back_to_the_queue_and_its_worker_writes_nothing() {
        let (store, now) = at_time();
        let run = block(store.create(NewRun::new("helper", "hi"))).unwrap();
        let (_, first) = block(store.claim("w1", 500)).unwrap().unwrap();
        let renewed = block(store.renew(&first, 500)).unwrap();
        assert_eq!(renewed.expires_at, 1_500);
        now.store(1_600, Ordering::SeqCst);
        let (_, second) = block(store.claim("w2", 500)).unwrap().unwrap();
        assert_eq!(second.run_id, run.id);
        assert_ne!(second.token, first.token);
        // The first worker, back from its pause: no heartbeat, no journal row, no release.
        assert!(matches!(
            block(store.renew(&renewed, 500)),
            Err(StoreError::LeaseLost { .. })
        ));
        let late = JournalEntry::tool_return(1, "c1", json!("late"));
        assert!(block(store.append(&renewed, late)).is_err());
        assert!(block(store.release(&renewed)).is_err());
        assert!(block(store.journal(&run.id)).unwrap().is_empty());
        block(store.finish(&second, "second".into(), Usage::default())).unwrap();
        assert_eq!(
            block(store.get(&run.id))
                .unwrap()
                .unwrap()
                .output
                .as_deref(),
            Some("second")
        );
    }

    #[test]
    fn a_waiting_run_is_claimed_again_by_id_and_a_final_one_is_not() {
        let (store, _) = at_time();
        let run = block(store.create(NewRun::new("helper", "hi"))).unwrap();
        let (_, lease) = block(store.claim("w1", 30_000)).unwrap().unwrap();
        let session = crate::agent::AgentSession::new(
            crate::agent::AgentBuilder::new(Arc::new(crate::model::TestModel::with_text("x")))
                .build(),
        )
        .export_state();
        block(store.wait(&lease, session.clone(), Usage::default())).unwrap();
        let waiting = block(store.get(&run.id)).unwrap().unwrap();
        assert_eq!(waiting.status, RunStatus::Waiting);
        assert_eq!(waiting.waiting, Some(session));
        assert_eq!(
            block(store.claim("w2", 30_000)).unwrap(),
            None,
            "waits for an answer"
        );
        let (_, again) = block(store.claim_run(&run.id, "w2", 30_000)).unwrap();
        block(store.fail(&again, "broke".into(), Usage::default())).unwrap();
        assert!(matches!(
            block(store.claim_run(&run.id, "w3", 30_000)),
            Err(StoreError::WrongStatus {
                status: RunStatus::Failed,
                ..
            })
        ));
        assert!(matches!(
            block(store.cancel(&run.id)),
            Err(StoreError::WrongStatus { .. })
        ));
    }

    #[test]
    fn cancelling_a_running_run_takes_the_lease_and_ids_are_unique() {
        let (store, _) = at_time();
        let run = block(store.create(NewRun::new("helper", "hi"))).unwrap();
        let duplicate = NewRun::new("helper", "again").with_id(run.id.clone());
        assert!(matches!(
            block(store.create(duplicate)),
            Err(StoreError::DuplicateRun { .. })
        ));
        let (_, lease) = block(store.claim("w1", 30_000)).unwrap().unwrap();
        block(store.cancel(&run.id)).unwrap();
        assert!(matches!(
            block(store.finish(&lease, "too late".into(), Usage::default())),
            Err(StoreError::LeaseLost { .. })
        ));
        let listed = block(store.list()).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].status, RunStatus::Cancelled);
        assert!(matches!(block(store.get(&RunId::new("nope"))), Ok(None)));
        assert!(matches!(
            block(store.journal(&RunId::new("nope"))),
            Err(StoreError::UnknownRun { .. })
        ));
    }

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
        for kind in [
            super::super::JournalKind::ModelResponse,
            super::super::JournalKind::ToolReturn,
        ] {
            assert_eq!(super::super::JournalKind::parse(kind.as_str()), Some(kind));
        }
    }
}

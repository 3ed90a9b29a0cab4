//! [`ClaimedRun`]: a run a worker holds, as the agent loop's journal. It reads back what
//! earlier attempts of the run journaled, writes each step under the worker's lease, renews the
//! lease while the run works, and ends the run in the store.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::agent::{AgentHitlResults, AgentSessionState, DynRunJournal, JournalError, RunJournal};
use crate::context::RunId;
use crate::model::{ModelResponse, ToolReturnPart, Usage};
use crate::BoxFuture;

use super::{JournalEntry, JournalKind, Lease, RunStore, StoreError, StoredRun};

/// A run this worker claimed, with what earlier attempts journaled. Give
/// [`Self::journal`] to the run ([`crate::agent::AgentRunOptions::journal`]): each model
/// response and call return is then written under the lease before the run goes on, and what
/// is already journaled is used instead of asking the model or running the call again.
///
/// While the run works, [`Self::keep_alive`] renews the lease; once the lease is lost (it
/// expired and another worker claimed the run, or the run was cancelled), [`Self::lost`]
/// fires and every write is refused, so a worker that lost a run writes nothing more.
///
/// ```
/// # use std::sync::Arc;
/// # use starweaver_core::agent::{AgentBuilder, AgentRunOptions};
/// # use starweaver_core::model::TestModel;
/// # use starweaver_core::runs::{ClaimedRun, MemoryRunStore, NewRun, RunStatus, RunStore};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let store: Arc<dyn RunStore> = Arc::new(MemoryRunStore::new());
/// store.create(NewRun::new("helper", "Say hello")).await?;
/// let (run, lease) = store.claim("worker-1", 30_000).await?.expect("a queued run");
/// let claimed = ClaimedRun::load(Arc::clone(&store), run, lease).await?;
/// let agent = AgentBuilder::new(Arc::new(TestModel::with_text("hello"))).build();
/// let mut session = agent.session();
/// let options = AgentRunOptions::new().journal(claimed.journal());
/// let result = session.run_with_options(claimed.run().prompt.clone(), options).await?;
/// claimed
///     .finish(result.output, result.structured_output, result.usage)
///     .await?;
/// let stored = store.list().await?;
/// assert_eq!(stored[0].status, RunStatus::Finished);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct ClaimedRun {
    inner: Arc<Inner>,
}

struct Inner {
    store: Arc<dyn RunStore>,
    run: StoredRun,
    lease: Mutex<Lease>,
    responses: BTreeMap<u32, ModelResponse>,
    returns: BTreeMap<(u32, String), ToolReturnPart>,
    lost: CancellationToken,
    /// Stops the heartbeat when the run ends.
    done: CancellationToken,
}

impl std::fmt::Debug for ClaimedRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClaimedRun")
            .field("run", &self.inner.run.id)
            .field("journaled_steps", &self.inner.responses.len())
            .field("journaled_returns", &self.inner.returns.len())
            .finish_non_exhaustive()
    }
}

impl ClaimedRun {
    /// The run `run`, claimed under `lease`, with its journal read back from `store`.
    ///
    /// # Errors
    /// The store's error; [`StoreError::Corrupt`] naming the run when a journal entry is not
    /// a model response or a tool return this version wrote.
    pub async fn load(
        store: Arc<dyn RunStore>,
        run: StoredRun,
        lease: Lease,
    ) -> Result<Self, StoreError> {
        let entries = store.journal(&run.id).await?;
        let mut responses = BTreeMap::new();
        let mut returns = BTreeMap::new();
        for entry in entries {
            let corrupt = |error: serde_json::Error| StoreError::Corrupt {
                run: run.id.clone(),
                detail: format!(
                    "its journal entry for step {} (call `{}`) is not what this version writes: \
                     {error}",
                    entry.step, entry.call_id
                ),
            };
            match entry.kind {
                JournalKind::ModelResponse => {
                    let response: ModelResponse =
                        serde_json::from_value(entry.payload.clone()).map_err(corrupt)?;
                    responses.insert(entry.step, response);
                }
                JournalKind::ToolReturn => {
                    let part: ToolReturnPart =
                        serde_json::from_value(entry.payload.clone()).map_err(corrupt)?;
                    returns.insert((entry.step, entry.call_id), part);
                }
            }
        }
        Ok(Self {
            inner: Arc::new(Inner {
                store,
                run,
                lease: Mutex::new(lease),
                responses,
                returns,
                lost: CancellationToken::new(),
                done: CancellationToken::new(),
            }),
        })
    }

    /// The run as it was when claimed: its prompt, vars, and, for a run that waited, the
    /// session to continue and the answers given.
    #[must_use]
    pub fn run(&self) -> &StoredRun {
        &self.inner.run
    }

    /// The store the run is in.
    #[must_use]
    pub fn store(&self) -> &Arc<dyn RunStore> {
        &self.inner.store
    }

    /// The session to continue, when the run waited before.
    #[must_use]
    pub fn waiting_state(&self) -> Option<&AgentSessionState> {
        self.inner.run.waiting.as_ref()
    }

    /// The answers given while the run waited, to resume it with.
    #[must_use]
    pub fn answers(&self) -> &AgentHitlResults {
        &self.inner.run.answers
    }

    /// How many steps earlier attempts journaled (0 for a run that starts fresh).
    #[must_use]
    pub fn journaled_steps(&self) -> usize {
        self.inner.responses.len()
    }

    /// The run's journal, for [`crate::agent::AgentRunOptions::journal`].
    #[must_use]
    pub fn journal(&self) -> DynRunJournal {
        Arc::new(self.clone())
    }

    /// Fires when the lease is lost: stop working on the run (a host links it to the run's
    /// cancellation).
    #[must_use]
    pub fn lost(&self) -> CancellationToken {
        self.inner.lost.clone()
    }

    /// Renews the lease every third of `lease_ms` until the run ends (a background task on
    /// the current Tokio runtime). A renewal refused because the lease is gone fires
    /// [`Self::lost`]; a store that fails is tried again at the next beat, and the lease
    /// lapses if it stays down.
    pub fn keep_alive(&self, lease_ms: u64) {
        let beat = Duration::from_millis((lease_ms / 3).max(1));
        let claimed = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = claimed.inner.done.cancelled() => return,
                    () = claimed.inner.lost.cancelled() => return,
                    () = tokio::time::sleep(beat) => {}
                }
                let lease = claimed.lease();
                match claimed.inner.store.renew(&lease, lease_ms).await {
                    Ok(renewed) => claimed.set_lease(renewed),
                    Err(StoreError::LeaseLost { .. }) => {
                        claimed.inner.lost.cancel();
                        return;
                    }
                    Err(_) => {}
                }
            }
        });
    }

    /// The run answered: stored as finished, with its final text and, for an agent with an
    /// output schema, the validated answer
    /// ([`crate::agent::AgentRunResult::structured_output`]).
    ///
    /// # Errors
    /// [`StoreError::LeaseLost`] (nothing written) or the store's failure.
    pub async fn finish(
        &self,
        output: String,
        structured_output: Option<serde_json::Value>,
        usage: Usage,
    ) -> Result<(), StoreError> {
        self.end();
        let lease = self.lease();
        self.watch(
            self.inner
                .store
                .finish(&lease, output, structured_output, usage)
                .await,
        )
    }

    /// The run failed: stored as failed with `error`.
    ///
    /// # Errors
    /// As [`Self::finish`].
    pub async fn fail(&self, error: String, usage: Usage) -> Result<(), StoreError> {
        self.end();
        let lease = self.lease();
        self.watch(self.inner.store.fail(&lease, error, usage).await)
    }

    /// The run waits: its session is stored, and any process may answer and resume it.
    ///
    /// # Errors
    /// As [`Self::finish`].
    pub async fn wait(&self, state: AgentSessionState, usage: Usage) -> Result<(), StoreError> {
        self.end();
        let lease = self.lease();
        self.watch(self.inner.store.wait(&lease, state, usage).await)
    }

    /// This worker stops before the run ends: the run goes back to the queue, where another
    /// worker continues it from its journal.
    ///
    /// # Errors
    /// As [`Self::finish`].
    pub async fn release(&self) -> Result<(), StoreError> {
        self.end();
        let lease = self.lease();
        self.watch(self.inner.store.release(&lease).await)
    }

    fn end(&self) {
        self.inner.done.cancel();
    }

    fn lease(&self) -> Lease {
        self.inner
            .lease
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set_lease(&self, lease: Lease) {
        *self
            .inner
            .lease
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = lease;
    }

    /// `result`, firing [`Self::lost`] when it says the lease is gone.
    fn watch<T>(&self, result: Result<T, StoreError>) -> Result<T, StoreError> {
        if matches!(result, Err(StoreError::LeaseLost { .. })) {
            self.inner.lost.cancel();
        }
        result
    }

    async fn append(&self, entry: JournalEntry) -> Result<(), JournalError> {
        if self.inner.lost.is_cancelled() {
            return Err(JournalError::new(
                StoreError::LeaseLost {
                    run: self.inner.run.id.clone(),
                }
                .to_string(),
            ));
        }
        let lease = self.lease();
        self.watch(self.inner.store.append(&lease, entry).await)
            .map(|_| ())
            .map_err(|error| JournalError::new(error.to_string()))
    }
}

impl RunJournal for ClaimedRun {
    fn run_id(&self) -> Option<RunId> {
        Some(self.inner.run.id.clone())
    }

    fn recorded_response(&self, step: u32) -> Option<ModelResponse> {
        self.inner.responses.get(&step).cloned()
    }

    fn recorded_return(&self, step: u32, call_id: &str) -> Option<ToolReturnPart> {
        self.inner
            .returns
            .get(&(step, call_id.to_string()))
            .cloned()
    }

    fn record_response<'a>(
        &'a self,
        step: u32,
        response: &'a ModelResponse,
    ) -> BoxFuture<'a, Result<(), JournalError>> {
        Box::pin(async move {
            let payload = serde_json::to_value(response)
                .map_err(|error| JournalError::new(error.to_string()))?;
            self.append(JournalEntry::model_response(step, payload))
                .await
        })
    }

    fn record_return<'a>(
        &'a self,
        step: u32,
        part: &'a ToolReturnPart,
    ) -> BoxFuture<'a, Result<(), JournalError>> {
        Box::pin(async move {
            let payload =
                serde_json::to_value(part).map_err(|error| JournalError::new(error.to_string()))?;
            self.append(JournalEntry::tool_return(
                step,
                part.tool_call_id.to_string(),
                payload,
            ))
            .await
        })
    }
}

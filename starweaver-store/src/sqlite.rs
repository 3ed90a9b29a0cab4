//! [`SqliteRunStore`]: runs in one SQLite file.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{AssertSqlSafe, SqlitePool};
use starweaver_core::agent::{AgentHitlResults, AgentSessionState};
use starweaver_core::context::RunId;
use starweaver_core::model::Usage;
use starweaver_core::runs::{JournalEntry, Lease, NewRun, RunStore, StoreError, StoredRun};
use starweaver_core::BoxFuture;

use crate::rows::{backend, entry, json_text, refusal, run, RUN_COLUMNS};

/// The schema, embedded in the binary and applied when a store opens.
static MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");

/// Where the store reads the time: milliseconds since the Unix epoch.
type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// How long a statement waits for another connection's write before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Runs in one SQLite file, in WAL mode with `synchronous=NORMAL`: a committed write survives
/// a crash of the process, and one of the machine loses at most the last transactions, never
/// the file's consistency.
#[derive(Clone)]
pub struct SqliteRunStore {
    pool: SqlitePool,
    clock: Clock,
}

impl std::fmt::Debug for SqliteRunStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteRunStore").finish_non_exhaustive()
    }
}

impl SqliteRunStore {
    /// Opens the store in the file at `path`, creating it and its tables when they are not
    /// there yet.
    ///
    /// # Errors
    /// [`StoreError::Backend`] when the file cannot be opened or its schema applied.
    pub async fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let path = path.as_ref();
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(BUSY_TIMEOUT);
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await
            .map_err(|error| StoreError::Backend {
                message: format!("cannot open the run store {}: {error}", path.display()),
            })?;
        MIGRATIONS
            .run(&pool)
            .await
            .map_err(|error| StoreError::Backend {
                message: format!("cannot set up the run store {}: {error}", path.display()),
            })?;
        Ok(Self {
            pool,
            clock: Arc::new(system_time),
        })
    }

    /// The store reading the time from `clock` (milliseconds since the Unix epoch), for tests
    /// of lease expiry.
    #[must_use]
    pub fn with_clock(mut self, clock: impl Fn() -> u64 + Send + Sync + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    fn now(&self) -> i64 {
        i64::try_from((self.clock)()).unwrap_or(i64::MAX)
    }

    // The SQL built with `format!` joins this file's own constant fragments (column lists, fixed
    // conditions and assignments); every value is bound, never spliced: `AssertSqlSafe` says so.

    /// Whether `lease` is current now: the run is running under this token, not expired.
    async fn lease_is_current(&self, lease: &Lease) -> Result<bool, StoreError> {
        let row = sqlx::query(
            "SELECT 1 FROM runs WHERE id = ? AND status = 'running' AND lease_token = ? \
             AND lease_expires_at > ?",
        )
        .bind(lease.run_id.as_str())
        .bind(&lease.token)
        .bind(self.now())
        .fetch_optional(&self.pool)
        .await
        .map_err(|error| backend(&error))?;
        Ok(row.is_some())
    }

    /// Ends or hands back the leased run with `set` (assignments to `runs`'s columns, bound
    /// from `values` in order), in the same statement that checks the lease.
    async fn under_lease(
        &self,
        lease: &Lease,
        set: &str,
        values: Vec<Option<String>>,
    ) -> Result<(), StoreError> {
        let sql = format!(
            "UPDATE runs SET {set}, updated_at = ?, lease_token = NULL, lease_worker = NULL, \
             lease_expires_at = NULL \
             WHERE id = ? AND status = 'running' AND lease_token = ? AND lease_expires_at > ?"
        );
        let now = self.now();
        let mut query = sqlx::query(AssertSqlSafe(sql));
        for value in values {
            query = query.bind(value);
        }
        let done = query
            .bind(now)
            .bind(lease.run_id.as_str())
            .bind(&lease.token)
            .bind(now)
            .execute(&self.pool)
            .await
            .map_err(|error| backend(&error))?;
        if done.rows_affected() == 1 {
            Ok(())
        } else {
            Err(StoreError::LeaseLost {
                run: lease.run_id.clone(),
            })
        }
    }

    /// Claims the run `condition` picks (the oldest first), for `worker`, in one statement.
    async fn claim_where(
        &self,
        condition: &str,
        id: Option<&RunId>,
        worker: &str,
        lease_ms: u64,
    ) -> Result<Option<(StoredRun, Lease)>, StoreError> {
        let now = self.now();
        let expires = now.saturating_add(i64::try_from(lease_ms).unwrap_or(i64::MAX));
        let token = RunId::default().as_str().to_string();
        let sql = format!(
            "UPDATE runs SET status = 'running', lease_token = ?, lease_worker = ?, \
             lease_expires_at = ?, updated_at = ? \
             WHERE seq = (SELECT seq FROM runs WHERE ({condition}) ORDER BY seq LIMIT 1) \
             RETURNING {RUN_COLUMNS}"
        );
        let mut query = sqlx::query(AssertSqlSafe(sql))
            .bind(&token)
            .bind(worker)
            .bind(expires)
            .bind(now);
        if let Some(id) = id {
            query = query.bind(id.as_str());
        }
        let row = query
            .bind(now)
            .fetch_optional(&self.pool)
            .await
            .map_err(|error| backend(&error))?;
        let Some(row) = row else {
            return Ok(None);
        };
        let claimed = run(&row)?;
        let lease = Lease::new(
            claimed.id.clone(),
            worker,
            token,
            u64::try_from(expires).unwrap_or(0),
        );
        Ok(Some((claimed, lease)))
    }
}

/// The system clock in milliseconds since the Unix epoch.
fn system_time() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

impl RunStore for SqliteRunStore {
    fn create<'a>(&'a self, new: NewRun) -> BoxFuture<'a, Result<StoredRun, StoreError>> {
        Box::pin(async move {
            let now = self.now();
            let stored = StoredRun::created(new, u64::try_from(now).unwrap_or(0));
            let inserted = sqlx::query(
                "INSERT INTO runs (id, agent, manifest_digest, status, prompt, vars, created_at, \
                 updated_at) VALUES (?, ?, ?, 'queued', ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
            )
            .bind(stored.id.as_str())
            .bind(&stored.agent)
            .bind(&stored.manifest_digest)
            .bind(&stored.prompt)
            .bind(json_text(&stored.vars).unwrap_or_else(|| "{}".to_string()))
            .bind(now)
            .bind(now)
            .execute(&self.pool)
            .await
            .map_err(|error| backend(&error))?;
            if inserted.rows_affected() == 0 {
                return Err(StoreError::DuplicateRun { run: stored.id });
            }
            Ok(stored)
        })
    }

    fn get<'a>(&'a self, id: &'a RunId) -> BoxFuture<'a, Result<Option<StoredRun>, StoreError>> {
        Box::pin(async move {
            let row = sqlx::query(AssertSqlSafe(format!(
                "SELECT {RUN_COLUMNS} FROM runs WHERE id = ?"
            )))
            .bind(id.as_str())
            .fetch_optional(&self.pool)
            .await
            .map_err(|error| backend(&error))?;
            row.as_ref().map(run).transpose()
        })
    }

    fn list(&self) -> BoxFuture<'_, Result<Vec<StoredRun>, StoreError>> {
        Box::pin(async move {
            let rows = sqlx::query(AssertSqlSafe(format!(
                "SELECT {RUN_COLUMNS} FROM runs ORDER BY seq"
            )))
            .fetch_all(&self.pool)
            .await
            .map_err(|error| backend(&error))?;
            rows.iter().map(run).collect()
        })
    }

    fn claim<'a>(
        &'a self,
        worker: &'a str,
        lease_ms: u64,
    ) -> BoxFuture<'a, Result<Option<(StoredRun, Lease)>, StoreError>> {
        Box::pin(async move {
            self.claim_where(
                "status = 'queued' OR (status = 'running' AND lease_expires_at <= ?)",
                None,
                worker,
                lease_ms,
            )
            .await
        })
    }

    fn claim_run<'a>(
        &'a self,
        id: &'a RunId,
        worker: &'a str,
        lease_ms: u64,
    ) -> BoxFuture<'a, Result<(StoredRun, Lease), StoreError>> {
        Box::pin(async move {
            let claimed = self
                .claim_where(
                    "id = ? AND (status IN ('queued', 'waiting') OR (status = 'running' AND \
                     lease_expires_at <= ?))",
                    Some(id),
                    worker,
                    lease_ms,
                )
                .await?;
            if let Some(claimed) = claimed {
                return Ok(claimed);
            }
            Err(refusal(self, id, "claimed").await)
        })
    }

    fn renew<'a>(
        &'a self,
        lease: &'a Lease,
        lease_ms: u64,
    ) -> BoxFuture<'a, Result<Lease, StoreError>> {
        Box::pin(async move {
            let now = self.now();
            let expires = now.saturating_add(i64::try_from(lease_ms).unwrap_or(i64::MAX));
            let done = sqlx::query(
                "UPDATE runs SET lease_expires_at = ?, updated_at = ? WHERE id = ? AND \
                 status = 'running' AND lease_token = ? AND lease_expires_at > ?",
            )
            .bind(expires)
            .bind(now)
            .bind(lease.run_id.as_str())
            .bind(&lease.token)
            .bind(now)
            .execute(&self.pool)
            .await
            .map_err(|error| backend(&error))?;
            if done.rows_affected() != 1 {
                return Err(StoreError::LeaseLost {
                    run: lease.run_id.clone(),
                });
            }
            let mut renewed = lease.clone();
            renewed.expires_at = u64::try_from(expires).unwrap_or(0);
            Ok(renewed)
        })
    }

    fn append<'a>(
        &'a self,
        lease: &'a Lease,
        entry: JournalEntry,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let payload = json_text(&entry.payload).unwrap_or_else(|| "null".to_string());
            // One statement: the row goes in only while the lease is current.
            let inserted = sqlx::query(
                "INSERT INTO journal (run_id, step, call_id, kind, payload) \
                 SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM runs WHERE id = ? AND \
                 status = 'running' AND lease_token = ? AND lease_expires_at > ?) \
                 ON CONFLICT (run_id, step, call_id) DO NOTHING",
            )
            .bind(lease.run_id.as_str())
            .bind(i64::from(entry.step))
            .bind(&entry.call_id)
            .bind(entry.kind.as_str())
            .bind(payload)
            .bind(lease.run_id.as_str())
            .bind(&lease.token)
            .bind(self.now())
            .execute(&self.pool)
            .await
            .map_err(|error| backend(&error))?;
            if inserted.rows_affected() == 1 {
                return Ok(true);
            }
            // Nothing went in: the key was journaled already, or the lease is gone.
            if self.lease_is_current(lease).await? {
                Ok(false)
            } else {
                Err(StoreError::LeaseLost {
                    run: lease.run_id.clone(),
                })
            }
        })
    }

    fn journal<'a>(
        &'a self,
        id: &'a RunId,
    ) -> BoxFuture<'a, Result<Vec<JournalEntry>, StoreError>> {
        Box::pin(async move {
            if self.get(id).await?.is_none() {
                return Err(StoreError::UnknownRun { run: id.clone() });
            }
            let rows = sqlx::query(
                "SELECT step, call_id, kind, payload FROM journal WHERE run_id = ? \
                 ORDER BY step, call_id",
            )
            .bind(id.as_str())
            .fetch_all(&self.pool)
            .await
            .map_err(|error| backend(&error))?;
            rows.iter().map(|row| entry(row, id.as_str())).collect()
        })
    }

    fn wait<'a>(
        &'a self,
        lease: &'a Lease,
        state: AgentSessionState,
        usage: Usage,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            self.under_lease(
                lease,
                "status = 'waiting', waiting = ?, answers = NULL, usage = ?",
                vec![json_text(&state), json_text(&usage)],
            )
            .await
        })
    }

    fn finish<'a>(
        &'a self,
        lease: &'a Lease,
        output: String,
        structured_output: Option<serde_json::Value>,
        usage: Usage,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            self.under_lease(
                lease,
                "status = 'finished', output = ?, structured_output = ?, usage = ?, \
                 waiting = NULL, answers = NULL",
                vec![
                    Some(output),
                    structured_output.as_ref().and_then(json_text),
                    json_text(&usage),
                ],
            )
            .await
        })
    }

    fn fail<'a>(
        &'a self,
        lease: &'a Lease,
        error: String,
        usage: Usage,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            self.under_lease(
                lease,
                "status = 'failed', error = ?, usage = ?, waiting = NULL, answers = NULL",
                vec![Some(error), json_text(&usage)],
            )
            .await
        })
    }

    fn answer<'a>(
        &'a self,
        id: &'a RunId,
        answers: AgentHitlResults,
    ) -> BoxFuture<'a, Result<StoredRun, StoreError>> {
        Box::pin(async move {
            // Read, apply the rule, write back, in one write transaction: two people answering
            // at once both keep their answers.
            let mut transaction = self
                .pool
                .begin_with("BEGIN IMMEDIATE")
                .await
                .map_err(|error| backend(&error))?;
            let row = sqlx::query(AssertSqlSafe(format!(
                "SELECT {RUN_COLUMNS} FROM runs WHERE id = ?"
            )))
            .bind(id.as_str())
            .fetch_optional(&mut *transaction)
            .await
            .map_err(|error| backend(&error))?;
            let Some(row) = row else {
                return Err(StoreError::UnknownRun { run: id.clone() });
            };
            let mut stored = run(&row)?;
            stored.take_answers(answers)?;
            let now = self.now();
            stored.updated_at = u64::try_from(now).unwrap_or(0);
            sqlx::query("UPDATE runs SET status = ?, answers = ?, updated_at = ? WHERE id = ?")
                .bind(stored.status.as_str())
                .bind(json_text(&stored.answers))
                .bind(now)
                .bind(id.as_str())
                .execute(&mut *transaction)
                .await
                .map_err(|error| backend(&error))?;
            transaction
                .commit()
                .await
                .map_err(|error| backend(&error))?;
            Ok(stored)
        })
    }

    fn release<'a>(&'a self, lease: &'a Lease) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            self.under_lease(lease, "status = 'queued'", Vec::new())
                .await
        })
    }

    fn cancel<'a>(&'a self, id: &'a RunId) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let done = sqlx::query(
                "UPDATE runs SET status = 'cancelled', updated_at = ?, lease_token = NULL, \
                 lease_worker = NULL, lease_expires_at = NULL \
                 WHERE id = ? AND status IN ('queued', 'running', 'waiting')",
            )
            .bind(self.now())
            .bind(id.as_str())
            .execute(&self.pool)
            .await
            .map_err(|error| backend(&error))?;
            if done.rows_affected() == 1 {
                return Ok(());
            }
            Err(refusal(self, id, "cancelled").await)
        })
    }
}

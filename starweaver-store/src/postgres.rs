//! [`PgRunStore`]: runs on a PostgreSQL server, for many workers on many machines.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{AssertSqlSafe, Connection, PgConnection, PgPool};
use starweaver_core::agent::{AgentHitlResults, AgentSessionState};
use starweaver_core::context::RunId;
use starweaver_core::model::Usage;
use starweaver_core::runs::{JournalEntry, Lease, NewRun, RunStore, StoreError, StoredRun};
use starweaver_core::BoxFuture;

use crate::rows::{backend, entry, json_text, refusal, run, RUN_COLUMNS};
use crate::StoreUrl;

/// The schema, embedded in the binary and applied when a store opens (under PostgreSQL's
/// advisory lock, so workers starting together apply it once).
static MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// How long opening waits for the server to answer at all: a server that is down refuses at
/// once, one behind a dropped route never answers, and neither should hold a caller for long.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(8);

/// How long a statement waits for a free or new connection once the store is open.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);

/// The most connections one store keeps open: a worker runs a few runs at once, and many
/// workers share one server.
const MAX_CONNECTIONS: u32 = 8;

/// The longest lease taken (100 years in milliseconds): longer ones are cut to it, so an
/// expiry never overflows the column.
const MAX_LEASE_MS: i64 = 100 * 365 * 24 * 60 * 60 * 1000;

/// "Now" in every statement, in milliseconds since the Unix epoch: the test clock bound as
/// `$1` when there is one, the server's clock (at the statement's start, the same everywhere
/// in it) otherwise.
const NOW: &str =
    "COALESCE($1::bigint, (extract(epoch from statement_timestamp()) * 1000)::bigint)";

/// Where a test reads the time: milliseconds since the Unix epoch.
type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// Runs on a PostgreSQL server. Any number of workers on any number of machines may share
/// one: a claim picks the oldest claimable run and takes it in one statement, skipping rows
/// another claim holds (`FOR UPDATE SKIP LOCKED`), so racing workers never get the same run
/// and never wait for each other (a run whose row is locked at that instant, say by an answer
/// being written, is left for the next claim); every write about a running run checks its
/// lease in the statement that writes.
///
/// Times (creation, updates, lease expiry) come from the **database server's clock**, so
/// workers whose own clocks disagree still agree on when a lease lapsed;
/// [`Self::with_clock`] replaces it for tests.
#[derive(Clone)]
pub struct PgRunStore {
    pool: PgPool,
    clock: Option<Clock>,
}

impl std::fmt::Debug for PgRunStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgRunStore").finish_non_exhaustive()
    }
}

impl PgRunStore {
    /// Connects to the server at `url` (`postgres://USER:PASSWORD@HOST:PORT/DATABASE`) and
    /// creates the store's tables when they are not there yet.
    ///
    /// # Errors
    /// [`StoreError::Backend`] when `url` is not a PostgreSQL URL, or the server cannot be
    /// reached (within seconds, not retried), or the schema cannot be applied; the message
    /// names the URL with its password masked.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let parsed = StoreUrl::parse(url).map_err(|error| StoreError::Backend {
            message: error.to_string(),
        })?;
        if !parsed.is_postgres() {
            return Err(StoreError::Backend {
                message: format!(
                    "`{parsed}` is not a PostgreSQL URL; use \
                     `postgres://USER:PASSWORD@HOST:PORT/DATABASE`"
                ),
            });
        }
        Self::connect_url(&parsed).await
    }

    /// Connects to the PostgreSQL server `url` names.
    pub(crate) async fn connect_url(url: &StoreUrl) -> Result<Self, StoreError> {
        let unreachable = |detail: String| StoreError::Backend {
            message: format!(
                "cannot reach the PostgreSQL run store at {url}: {}. Check that the server is \
                 running and accepts connections at that host and port, and that the URL's \
                 user, password and database are right",
                url.scrub(&detail)
            ),
        };
        let options = PgConnectOptions::from_str(url.secret())
            .map_err(|error| unreachable(format!("the URL cannot be read: {error}")))?;
        // One connection first, bounded: a refused or rejected connection fails here at once
        // (the pool would retry it until its timeout), a server that never answers within
        // `CONNECT_TIMEOUT`.
        match tokio::time::timeout(CONNECT_TIMEOUT, PgConnection::connect_with(&options)).await {
            Err(_) => {
                return Err(unreachable(format!(
                    "no answer within {} s",
                    CONNECT_TIMEOUT.as_secs()
                )))
            }
            Ok(Err(error)) => return Err(unreachable(error.to_string())),
            Ok(Ok(probe)) => {
                // The probe only showed the server answers; the pool opens its own.
                let _closed = probe.close().await;
            }
        }
        let pool = PgPoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_lazy_with(options);
        MIGRATIONS
            .run(&pool)
            .await
            .map_err(|error| StoreError::Backend {
                message: format!(
                    "cannot set up the run store at {url}: {}",
                    url.scrub(&error.to_string())
                ),
            })?;
        Ok(Self { pool, clock: None })
    }

    /// The store reading the time from `clock` (milliseconds since the Unix epoch) instead of
    /// the server's, for tests of lease expiry.
    #[must_use]
    pub fn with_clock(mut self, clock: impl Fn() -> u64 + Send + Sync + 'static) -> Self {
        self.clock = Some(Arc::new(clock));
        self
    }

    /// The test clock's time, bound as `$1` ([`NOW`]); `None` for the server's.
    fn now(&self) -> Option<i64> {
        self.clock
            .as_ref()
            .map(|clock| i64::try_from(clock()).unwrap_or(i64::MAX))
    }

    // The SQL built with `format!` joins this file's own constant fragments (column lists, fixed
    // conditions and assignments, `NOW`); every value is bound, never spliced: `AssertSqlSafe`
    // says so.

    /// Whether `lease` is current now: the run is running under this token, not expired.
    async fn lease_is_current(&self, lease: &Lease) -> Result<bool, StoreError> {
        let row = sqlx::query(AssertSqlSafe(format!(
            "SELECT 1 FROM runs WHERE id = $2 AND status = 'running' AND lease_token = $3 \
             AND lease_expires_at > {NOW}"
        )))
        .bind(self.now())
        .bind(lease.run_id.as_str())
        .bind(&lease.token)
        .fetch_optional(&self.pool)
        .await
        .map_err(|error| backend(&error))?;
        Ok(row.is_some())
    }

    /// Ends or hands back the leased run with `set` (assignments to `runs`'s columns, which
    /// use `$2`, `$3`, ... bound from `values` in order), in the same statement that checks
    /// the lease.
    async fn under_lease(
        &self,
        lease: &Lease,
        set: &str,
        values: Vec<Option<String>>,
    ) -> Result<(), StoreError> {
        let id = values.len() + 2;
        let token = id + 1;
        let sql = format!(
            "UPDATE runs SET {set}, updated_at = {NOW}, lease_token = NULL, lease_worker = NULL, \
             lease_expires_at = NULL \
             WHERE id = ${id} AND status = 'running' AND lease_token = ${token} \
             AND lease_expires_at > {NOW}"
        );
        let mut query = sqlx::query(AssertSqlSafe(sql)).bind(self.now());
        for value in values {
            query = query.bind(value);
        }
        let done = query
            .bind(lease.run_id.as_str())
            .bind(&lease.token)
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

    /// [`RunStore::answer`]'s read, rule and write, inside `transaction`.
    async fn answer_in(
        &self,
        transaction: &mut sqlx::Transaction<'_, sqlx::Postgres>,
        id: &RunId,
        answers: AgentHitlResults,
    ) -> Result<StoredRun, StoreError> {
        let row = sqlx::query(AssertSqlSafe(format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE id = $1 FOR UPDATE"
        )))
        .bind(id.as_str())
        .fetch_optional(&mut **transaction)
        .await
        .map_err(|error| backend(&error))?;
        let Some(row) = row else {
            return Err(StoreError::UnknownRun { run: id.clone() });
        };
        let mut stored = run(&row)?;
        stored.take_answers(answers)?;
        let row = sqlx::query(AssertSqlSafe(format!(
            "UPDATE runs SET status = $2, answers = $3, updated_at = {NOW} WHERE id = $4 \
             RETURNING updated_at"
        )))
        .bind(self.now())
        .bind(stored.status.as_str())
        .bind(json_text(&stored.answers))
        .bind(id.as_str())
        .fetch_one(&mut **transaction)
        .await
        .map_err(|error| backend(&error))?;
        stored.updated_at = crate::rows::time(&row, "updated_at", id.as_str())?;
        Ok(stored)
    }

    /// Claims the run `condition` picks (the oldest first, skipping rows another claim holds
    /// locked), for `worker`, in one statement. `condition` may use `$5` for `id`.
    async fn claim_where(
        &self,
        condition: &str,
        id: Option<&RunId>,
        worker: &str,
        lease_ms: u64,
    ) -> Result<Option<(StoredRun, Lease)>, StoreError> {
        let lease_ms = i64::try_from(lease_ms)
            .unwrap_or(i64::MAX)
            .min(MAX_LEASE_MS);
        let token = RunId::default().as_str().to_string();
        let sql = format!(
            "UPDATE runs SET status = 'running', lease_token = $2, lease_worker = $3, \
             lease_expires_at = {NOW} + $4, updated_at = {NOW} \
             WHERE seq = (SELECT seq FROM runs WHERE ({condition}) ORDER BY seq LIMIT 1 \
             FOR UPDATE SKIP LOCKED) \
             RETURNING {RUN_COLUMNS}, lease_expires_at"
        );
        let mut query = sqlx::query(AssertSqlSafe(sql))
            .bind(self.now())
            .bind(&token)
            .bind(worker)
            .bind(lease_ms);
        if let Some(id) = id {
            query = query.bind(id.as_str());
        }
        let row = query
            .fetch_optional(&self.pool)
            .await
            .map_err(|error| backend(&error))?;
        let Some(row) = row else {
            return Ok(None);
        };
        let claimed = run(&row)?;
        let expires = crate::rows::lease_expiry(&row, claimed.id.as_str())?;
        let lease = Lease::new(claimed.id.clone(), worker, token, expires);
        Ok(Some((claimed, lease)))
    }
}

impl RunStore for PgRunStore {
    fn create<'a>(&'a self, new: NewRun) -> BoxFuture<'a, Result<StoredRun, StoreError>> {
        Box::pin(async move {
            let row = sqlx::query(AssertSqlSafe(format!(
                "INSERT INTO runs (id, agent, manifest_digest, status, prompt, vars, created_at, \
                 updated_at) VALUES ($2, $3, $4, 'queued', $5, $6, {NOW}, {NOW}) \
                 ON CONFLICT (id) DO NOTHING RETURNING {RUN_COLUMNS}"
            )))
            .bind(self.now())
            .bind(new.id.as_str())
            .bind(&new.agent)
            .bind(&new.manifest_digest)
            .bind(&new.prompt)
            .bind(json_text(&new.vars).unwrap_or_else(|| "{}".to_string()))
            .fetch_optional(&self.pool)
            .await
            .map_err(|error| backend(&error))?;
            match row {
                Some(row) => run(&row),
                None => Err(StoreError::DuplicateRun { run: new.id }),
            }
        })
    }

    fn get<'a>(&'a self, id: &'a RunId) -> BoxFuture<'a, Result<Option<StoredRun>, StoreError>> {
        Box::pin(async move {
            let row = sqlx::query(AssertSqlSafe(format!(
                "SELECT {RUN_COLUMNS} FROM runs WHERE id = $1"
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
                &format!("status = 'queued' OR (status = 'running' AND lease_expires_at <= {NOW})"),
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
                    &format!(
                        "id = $5 AND (status IN ('queued', 'waiting') OR (status = 'running' \
                         AND lease_expires_at <= {NOW}))"
                    ),
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
            let lease_ms = i64::try_from(lease_ms)
                .unwrap_or(i64::MAX)
                .min(MAX_LEASE_MS);
            let row = sqlx::query(AssertSqlSafe(format!(
                "UPDATE runs SET lease_expires_at = {NOW} + $2, updated_at = {NOW} \
                 WHERE id = $3 AND status = 'running' AND lease_token = $4 \
                 AND lease_expires_at > {NOW} RETURNING lease_expires_at"
            )))
            .bind(self.now())
            .bind(lease_ms)
            .bind(lease.run_id.as_str())
            .bind(&lease.token)
            .fetch_optional(&self.pool)
            .await
            .map_err(|error| backend(&error))?;
            let Some(row) = row else {
                return Err(StoreError::LeaseLost {
                    run: lease.run_id.clone(),
                });
            };
            let mut renewed = lease.clone();
            renewed.expires_at = crate::rows::lease_expiry(&row, lease.run_id.as_str())?;
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
            // One statement: the row goes in only while the lease is current. The run's row is
            // share-locked while it checks, so a claim, cancel or end racing it waits (or
            // skips it) rather than slipping in between the check and the insert.
            let inserted = sqlx::query(AssertSqlSafe(format!(
                "INSERT INTO journal (run_id, step, call_id, kind, payload) \
                 SELECT $2, $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM runs WHERE id = $2 AND \
                 status = 'running' AND lease_token = $7 AND lease_expires_at > {NOW} \
                 FOR SHARE) \
                 ON CONFLICT (run_id, step, call_id) DO NOTHING"
            )))
            .bind(self.now())
            .bind(lease.run_id.as_str())
            .bind(i64::from(entry.step))
            .bind(&entry.call_id)
            .bind(entry.kind.as_str())
            .bind(payload)
            .bind(&lease.token)
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
            // Call ids in byte order, as every store sorts them (not the database's locale).
            let rows = sqlx::query(
                "SELECT step, call_id, kind, payload FROM journal WHERE run_id = $1 \
                 ORDER BY step, call_id COLLATE \"C\"",
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
                "status = 'waiting', waiting = $2, answers = NULL, usage = $3",
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
                "status = 'finished', output = $2, structured_output = $3, usage = $4, \
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
                "status = 'failed', error = $2, usage = $3, waiting = NULL, answers = NULL",
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
            // Read under a row lock, apply the rule, write back, in one transaction: two
            // people answering at once both keep their answers.
            let mut transaction = self.pool.begin().await.map_err(|error| backend(&error))?;
            match self.answer_in(&mut transaction, id, answers).await {
                Ok(stored) => {
                    transaction
                        .commit()
                        .await
                        .map_err(|error| backend(&error))?;
                    Ok(stored)
                }
                Err(refused) => {
                    // Roll back now, not when the dropped transaction's connection is next
                    // used: until then the row stays locked, and claims skip it.
                    let _rolled_back = transaction.rollback().await;
                    Err(refused)
                }
            }
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
            let done = sqlx::query(AssertSqlSafe(format!(
                "UPDATE runs SET status = 'cancelled', updated_at = {NOW}, lease_token = NULL, \
                 lease_worker = NULL, lease_expires_at = NULL \
                 WHERE id = $2 AND status IN ('queued', 'running', 'waiting')"
            )))
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

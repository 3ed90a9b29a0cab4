//! The PostgreSQL store on a real server: a fresh database per test (made and dropped through
//! the server URL in `STARWEAVER_TEST_POSTGRES`, so tests running at once never meet), many
//! workers on their own connections racing for runs, a row damaged by another program, and a
//! server that cannot be reached (which needs no server at all).
//!
//! Without `STARWEAVER_TEST_POSTGRES` the server tests pass after one line on stderr saying
//! so; with `STARWEAVER_PG_TESTS=required` a missing or unreachable server fails them.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Once};
use std::time::Duration;

use sqlx::{Connection, Executor, PgConnection};
use starweaver::model::Usage;
use starweaver::runs::{NewRun, RunStore, StoreError};
use starweaver::store::{PgRunStore, StoreUrl};
use starweaver::RunId;

const URL_VAR: &str = "STARWEAVER_TEST_POSTGRES";

/// A database of its own for one test, on the test server.
pub struct TestDb {
    admin: String,
    name: String,
    url: String,
}

impl TestDb {
    /// The URL of this test's database.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A store on this database reading the time from `now`.
    pub async fn store(&self, now: &Arc<AtomicU64>) -> PgRunStore {
        let now = Arc::clone(now);
        PgRunStore::connect(&self.url)
            .await
            .unwrap()
            .with_clock(move || now.load(Ordering::SeqCst))
    }

    /// Drops the database (closing the connections still on it).
    pub async fn remove(self) {
        let mut admin = PgConnection::connect(&self.admin).await.unwrap();
        admin
            .execute(sqlx::AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)",
                self.name
            )))
            .await
            .unwrap();
    }
}

/// Whether a missing server fails the tests instead of skipping them.
fn required() -> bool {
    std::env::var("STARWEAVER_PG_TESTS").is_ok_and(|value| value == "required")
}

/// Skips (one line on stderr for the whole test binary) or, when required, fails.
fn skip(reason: &str) -> Option<TestDb> {
    assert!(
        !required(),
        "PostgreSQL tests are required (STARWEAVER_PG_TESTS=required) but {reason}"
    );
    static NOTICE: Once = Once::new();
    // Straight to stderr, past the test harness's capture, so the line shows in a normal run.
    NOTICE.call_once(|| {
        let _shown = writeln!(
            std::io::stderr(),
            "note: PostgreSQL tests skipped: {reason}"
        );
    });
    None
}

/// A fresh database on the test server, or `None` (the test skips) when there is none.
pub async fn database() -> Option<TestDb> {
    let Ok(admin) = std::env::var(URL_VAR) else {
        return skip(&format!("set {URL_VAR} to a server URL"));
    };
    let shown =
        StoreUrl::parse(&admin).map_or_else(|_| "(not a URL)".to_string(), |url| url.to_string());
    let connected =
        tokio::time::timeout(Duration::from_secs(10), PgConnection::connect(&admin)).await;
    let mut connection = match connected {
        Ok(Ok(connection)) => connection,
        Ok(Err(error)) => return skip(&format!("{URL_VAR} ({shown}) cannot be reached: {error}")),
        Err(_) => return skip(&format!("{URL_VAR} ({shown}) did not answer")),
    };
    let fresh: String = RunId::default()
        .as_str()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    let name = format!("sw_test_{}", fresh.to_ascii_lowercase());
    connection
        .execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{name}\"")))
        .await
        .unwrap();
    let url = with_database(&admin, &name);
    Some(TestDb { admin, name, url })
}

/// `url` naming the database `name` instead of its own.
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let authority_start = base.find("://").map_or(0, |at| at + 3);
    let path_at = base[authority_start..]
        .find('/')
        .map_or(base.len(), |at| authority_start + at);
    let mut rebuilt = format!("{}/{name}", &base[..path_at]);
    if let Some(query) = query {
        rebuilt.push('?');
        rebuilt.push_str(query);
    }
    rebuilt
}

#[test]
fn a_test_database_url_keeps_everything_but_the_name() {
    assert_eq!(
        with_database("postgres://u:p@h:5432/main?sslmode=disable", "t1"),
        "postgres://u:p@h:5432/t1?sslmode=disable"
    );
    assert_eq!(with_database("postgres://h", "t1"), "postgres://h/t1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_workers_on_their_own_connections_claim_each_run_exactly_once() {
    let Some(db) = database().await else { return };
    // The server's clock, as in production: no test clock here.
    let url = StoreUrl::parse(db.url()).unwrap();
    let producer = url.open().await.unwrap();
    let mut created = BTreeSet::new();
    for n in 0..48 {
        let run = producer
            .create(NewRun::new("helper", format!("run {n}")))
            .await
            .unwrap();
        created.insert(run.id);
    }
    let workers: Vec<_> = (0..16)
        .map(|worker| {
            let url = url.clone();
            tokio::spawn(async move {
                // A store (and so a connection pool) of its own, as on another machine.
                let store = url.open().await.unwrap();
                let mut mine = Vec::new();
                while let Some((run, lease)) =
                    store.claim(&format!("w{worker}"), 60_000).await.unwrap()
                {
                    assert!(lease.expires_at > run.created_at, "{lease:?} {run:?}");
                    store
                        .finish(&lease, format!("done by w{worker}"), None, Usage::default())
                        .await
                        .unwrap();
                    mine.push(run.id);
                }
                mine
            })
        })
        .collect();
    let mut claimed = Vec::new();
    for worker in workers {
        claimed.extend(worker.await.unwrap());
    }
    let distinct: BTreeSet<_> = claimed.iter().cloned().collect();
    assert_eq!(claimed.len(), distinct.len(), "a run was claimed twice");
    assert_eq!(distinct, created, "every run claimed once");
    for run in producer.list().await.unwrap() {
        assert!(run
            .output
            .is_some_and(|output| output.starts_with("done by w")));
    }
    db.remove().await;
}

#[tokio::test]
async fn a_damaged_postgres_row_is_an_error_naming_its_run_and_other_runs_still_read() {
    let Some(db) = database().await else { return };
    let now = super::clock();
    let store = db.store(&now).await;
    let damaged = store.create(NewRun::new("helper", "one")).await.unwrap();
    let fine = store.create(NewRun::new("helper", "two")).await.unwrap();
    // Another program writes what this version never would.
    let mut raw = PgConnection::connect(db.url()).await.unwrap();
    sqlx::query("UPDATE runs SET status = 'paused', vars = 'not json' WHERE id = $1")
        .bind(damaged.id.as_str())
        .execute(&mut raw)
        .await
        .unwrap();
    match store.get(&damaged.id).await {
        Err(StoreError::Corrupt { run, detail }) => {
            assert_eq!(run, damaged.id);
            assert!(detail.contains("paused"), "{detail}");
        }
        other => panic!("expected a corrupt-row error, got {other:?}"),
    }
    sqlx::query("UPDATE runs SET status = 'queued', usage = '{{{' WHERE id = $1")
        .bind(damaged.id.as_str())
        .execute(&mut raw)
        .await
        .unwrap();
    assert!(
        matches!(store.get(&damaged.id).await, Err(StoreError::Corrupt { run, .. }) if run == damaged.id)
    );
    assert_eq!(store.get(&fine.id).await.unwrap().unwrap().prompt, "two");
    drop(raw);
    db.remove().await;
}

#[tokio::test]
async fn a_postgres_store_from_before_structured_output_gains_the_column_and_keeps_its_runs() {
    let Some(db) = database().await else { return };
    let now = super::clock();
    let store = db.store(&now).await;
    let old = store.create(NewRun::new("helper", "old")).await.unwrap();
    drop(store);
    // The database as the version before the column left it.
    let mut raw = PgConnection::connect(db.url()).await.unwrap();
    raw.execute("ALTER TABLE runs DROP COLUMN structured_output")
        .await
        .unwrap();
    raw.execute("DELETE FROM _sqlx_migrations WHERE version = 2")
        .await
        .unwrap();
    drop(raw);
    let store = db.store(&now).await;
    let found = store.get(&old.id).await.unwrap().unwrap();
    assert_eq!(
        (found.prompt.as_str(), found.structured_output),
        ("old", None)
    );
    let (_, lease) = store.claim("w1", 30_000).await.unwrap().unwrap();
    let answer = serde_json::json!({"ok": true});
    store
        .finish(
            &lease,
            String::new(),
            Some(answer.clone()),
            Usage::default(),
        )
        .await
        .unwrap();
    let found = store.get(&old.id).await.unwrap().unwrap();
    assert_eq!(found.structured_output, Some(answer));
    drop(store);
    db.remove().await;
}

/// Needs no server: nothing listens on port 1.
#[tokio::test]
async fn an_unreachable_server_fails_within_seconds_naming_the_masked_url() {
    let url = StoreUrl::parse("postgres://sw:secret@127.0.0.1:1/nope").unwrap();
    let opened = tokio::time::timeout(Duration::from_secs(30), url.open())
        .await
        .expect("opening an unreachable store must fail, not hang");
    let message = opened.err().expect("nothing listens there").to_string();
    assert!(
        message.contains("postgres://sw:***@127.0.0.1:1/nope"),
        "{message}"
    );
    assert!(message.contains("server is running"), "{message}");
    assert!(!message.contains("secret"), "{message}");
    let direct = tokio::time::timeout(
        Duration::from_secs(30),
        PgRunStore::connect("postgres://sw:secret@127.0.0.1:1/nope"),
    )
    .await
    .expect("connecting to an unreachable store must fail, not hang");
    let message = direct.expect_err("nothing listens there").to_string();
    assert!(message.contains("sw:***@127.0.0.1:1"), "{message}");
    assert!(!message.contains("secret"), "{message}");
}

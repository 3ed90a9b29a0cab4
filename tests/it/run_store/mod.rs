//! Run stores: the rules of `RunStore` (claims, leases, the journal) held by the in-memory
//! store, by the SQLite store on a file and by the PostgreSQL store on a server, and what
//! only a database can show: runs that survive reopening, a race of many claimers, and a
//! damaged row that affects only its run.

mod contract;
mod journaled;
pub mod postgres;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use starweaver::model::Usage;
use starweaver::runs::{MemoryRunStore, NewRun, RunStore, StoreError};
use starweaver::store::SqliteRunStore;

/// A clock the test moves, starting at 1,000 ms.
fn clock() -> Arc<AtomicU64> {
    Arc::new(AtomicU64::new(1_000))
}

fn memory(now: &Arc<AtomicU64>) -> MemoryRunStore {
    let now = Arc::clone(now);
    MemoryRunStore::with_clock(move || now.load(Ordering::SeqCst))
}

async fn sqlite(dir: &tempfile::TempDir, now: &Arc<AtomicU64>) -> SqliteRunStore {
    let now = Arc::clone(now);
    SqliteRunStore::open(dir.path().join("runs.db"))
        .await
        .unwrap()
        .with_clock(move || now.load(Ordering::SeqCst))
}

/// Each contract check, once per store (on PostgreSQL when a test server is set, see
/// [`postgres`]).
macro_rules! on_every_store {
    ($($check:ident),* $(,)?) => {$(
        mod $check {
            use super::*;

            #[tokio::test]
            async fn in_memory() {
                let now = clock();
                contract::$check(&memory(&now), &now).await;
            }

            #[tokio::test]
            async fn on_sqlite() {
                let now = clock();
                let dir = tempfile::tempdir().unwrap();
                contract::$check(&sqlite(&dir, &now).await, &now).await;
            }

            #[tokio::test]
            async fn on_postgres() {
                let Some(db) = postgres::database().await else { return };
                let now = clock();
                contract::$check(&db.store(&now).await, &now).await;
                db.remove().await;
            }
        }
    )*};
}

on_every_store!(
    lifecycle,
    lease_expiry,
    waiting,
    cancel_and_ids,
    listing,
    answers,
    structured_output
);

#[tokio::test]
async fn a_sqlite_store_keeps_its_runs_when_opened_again() {
    let now = clock();
    let dir = tempfile::tempdir().unwrap();
    let id = {
        let store = sqlite(&dir, &now).await;
        store.create(NewRun::new("helper", "hi")).await.unwrap().id
    };
    let store = sqlite(&dir, &now).await;
    let found = store.get(&id).await.unwrap().unwrap();
    assert_eq!(found.prompt, "hi");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn of_many_claimers_racing_for_one_run_exactly_one_gets_it() {
    let now = clock();
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(sqlite(&dir, &now).await);
    store.create(NewRun::new("helper", "hi")).await.unwrap();
    let claims: Vec<_> = (0..16)
        .map(|worker| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                store
                    .claim(&format!("w{worker}"), 30_000)
                    .await
                    .unwrap()
                    .is_some()
            })
        })
        .collect();
    let mut won = 0;
    for claim in claims {
        if claim.await.unwrap() {
            won += 1;
        }
    }
    assert_eq!(won, 1);
}

#[tokio::test]
async fn a_damaged_row_is_an_error_naming_its_run_and_other_runs_still_read() {
    let now = clock();
    let dir = tempfile::tempdir().unwrap();
    let store = sqlite(&dir, &now).await;
    let damaged = store.create(NewRun::new("helper", "one")).await.unwrap();
    let fine = store.create(NewRun::new("helper", "two")).await.unwrap();
    drop(store);
    // Another program writes what this version never would.
    let raw = write_raw(
        &dir.path().join("runs.db"),
        &format!(
            "UPDATE runs SET status = 'paused', vars = 'not json' WHERE id = '{}'",
            damaged.id
        ),
    );
    assert!(raw, "the test could not damage the row");
    let store = sqlite(&dir, &now).await;
    match store.get(&damaged.id).await {
        Err(StoreError::Corrupt { run, detail }) => {
            assert_eq!(run, damaged.id);
            assert!(detail.contains("paused"), "{detail}");
        }
        other => panic!("expected a corrupt-row error, got {other:?}"),
    }
    assert_eq!(store.get(&fine.id).await.unwrap().unwrap().prompt, "two");
}

#[tokio::test]
async fn a_sqlite_store_from_before_structured_output_gains_the_column_and_keeps_its_runs() {
    let now = clock();
    let dir = tempfile::tempdir().unwrap();
    let store = sqlite(&dir, &now).await;
    let old = store.create(NewRun::new("helper", "old")).await.unwrap();
    drop(store);
    // The file as the version before the column left it.
    let path = dir.path().join("runs.db");
    assert!(write_raw(
        &path,
        "ALTER TABLE runs DROP COLUMN structured_output"
    ));
    assert!(write_raw(
        &path,
        "DELETE FROM _sqlx_migrations WHERE version = 3"
    ));
    let store = sqlite(&dir, &now).await;
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
}

/// Runs `sql` on the database file with Python's `sqlite3` module, as another program would.
fn write_raw(path: &std::path::Path, sql: &str) -> bool {
    std::process::Command::new("python3")
        .args([
            "-c",
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()",
        ])
        .arg(path)
        .arg(sql)
        .status()
        .is_ok_and(|status| status.success())
}

//! Journaled runs in the library: each step is written under the worker's lease, a run whose
//! worker died resumes from its journal without asking the model again or re-running a call
//! whose return was written, an at-most-once call that may have run waits for a person, and a
//! worker that lost its lease stops before its next write.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use starweaver::agent::{AgentHitlUserInteraction, AgentRunStatus};
use starweaver::model::{ModelResponse, TestModel};
use starweaver::runs::{
    ClaimedRun, JournalKind, MemoryRunStore, NewRun, RunStatus, RunStore, StoredRun,
};
use starweaver::{string_tool, AgentBuilder, AgentError, AgentRunOptions, ToolContext, ToolResult};

use starweaver::tools::FunctionTool;

use crate::common::{call_response, open_schema};

/// A tool that counts its calls and answers at once.
fn counting(name: &str, calls: &Arc<AtomicU32>) -> FunctionTool {
    let calls = Arc::clone(calls);
    string_tool(
        name,
        Some(format!("The {name} tool")),
        open_schema(),
        move |_ctx: ToolContext, _args: Value| {
            let calls = Arc::clone(&calls);
            async move {
                let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
                Ok(ToolResult::new(json!({"call": n})))
            }
        },
    )
}

/// A tool whose first call never returns (its worker dies during it); later calls answer.
fn hangs_once(name: &str, calls: &Arc<AtomicU32>) -> FunctionTool {
    let calls = Arc::clone(calls);
    string_tool(
        name,
        Some(format!("The {name} tool")),
        open_schema(),
        move |ctx: ToolContext, _args: Value| {
            let calls = Arc::clone(&calls);
            async move {
                if calls.fetch_add(1, Ordering::SeqCst) == 0 {
                    std::future::pending::<()>().await;
                }
                Ok(ToolResult::new(json!({"may_have_run": ctx.may_have_run()})))
            }
        },
    )
}

/// Step 1 calls `count`, step 2 calls `slow`, step 3 answers.
fn script() -> Vec<ModelResponse> {
    vec![
        call_response("c1", "count", json!({})),
        call_response("s1", "slow", json!({})),
        ModelResponse::text("all done"),
    ]
}

struct World {
    store: Arc<dyn RunStore>,
    now: Arc<AtomicU64>,
    counted: Arc<AtomicU32>,
    slowed: Arc<AtomicU32>,
}

impl World {
    fn new() -> Self {
        let now = Arc::new(AtomicU64::new(1_000));
        let clock = Arc::clone(&now);
        Self {
            store: Arc::new(MemoryRunStore::with_clock(move || {
                clock.load(Ordering::SeqCst)
            })),
            now,
            counted: Arc::default(),
            slowed: Arc::default(),
        }
    }

    fn agent(&self, model: &Arc<TestModel>, at_most_once: bool) -> starweaver::agent::Agent {
        AgentBuilder::new(model.clone())
            .tool(Arc::new(counting("count", &self.counted)))
            .tool(Arc::new(
                hangs_once("slow", &self.slowed).with_at_most_once(at_most_once),
            ))
            .build()
    }

    async fn claim(&self, worker: &str) -> ClaimedRun {
        let (run, lease): (StoredRun, _) = self.store.claim(worker, 10_000).await.unwrap().unwrap();
        ClaimedRun::load(Arc::clone(&self.store), run, lease)
            .await
            .unwrap()
    }

    /// The first worker runs until `slow` hangs with `count`'s return journaled, then dies
    /// (its run is dropped) and its lease lapses.
    async fn first_worker_dies_in_slow(&self, at_most_once: bool) -> starweaver::RunId {
        let run = self.store.create(NewRun::new("a", "go")).await.unwrap();
        let claimed = self.claim("w1").await;
        let model = Arc::new(TestModel::scripted(script()));
        let agent = self.agent(&model, at_most_once);
        let options = AgentRunOptions::new().journal(claimed.journal());
        let running = tokio::spawn(async move {
            let mut session = agent.session();
            session.run_with_options("go", options).await
        });
        while self.slowed.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        running.abort();
        assert_eq!(model.requests().len(), 2);
        self.now.fetch_add(60_000, Ordering::SeqCst);
        run.id
    }
}

#[tokio::test]
async fn every_model_response_and_return_is_journaled_under_the_runs_own_id() {
    let world = World::new();
    let run = world.store.create(NewRun::new("a", "go")).await.unwrap();
    let claimed = world.claim("w1").await;
    // `slow` answers at once here.
    world.slowed.store(1, Ordering::SeqCst);
    let model = Arc::new(TestModel::scripted(script()));
    let mut session = world.agent(&model, false).session();
    let result = session
        .run_with_options("go", AgentRunOptions::new().journal(claimed.journal()))
        .await
        .unwrap();
    assert_eq!(result.output, "all done");
    assert_eq!(result.run_id, run.id, "the run is the stored run");
    let keys: Vec<(u32, String, JournalKind)> = world
        .store
        .journal(&run.id)
        .await
        .unwrap()
        .into_iter()
        .map(|entry| (entry.step, entry.call_id, entry.kind))
        .collect();
    assert_eq!(
        keys,
        vec![
            (1, String::new(), JournalKind::ModelResponse),
            (1, "c1".into(), JournalKind::ToolReturn),
            (2, String::new(), JournalKind::ModelResponse),
            (2, "s1".into(), JournalKind::ToolReturn),
            (3, String::new(), JournalKind::ModelResponse),
        ]
    );
    claimed
        .finish(result.output, result.structured_output, result.usage)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_run_whose_worker_died_resumes_from_its_journal_and_runs_a_finished_call_once() {
    let world = World::new();
    let id = world.first_worker_dies_in_slow(false).await;

    let claimed = world.claim("w2").await;
    assert_eq!(claimed.run().id, id);
    assert_eq!(claimed.journaled_steps(), 2);
    // Only step 3 is asked: steps 1 and 2 come from the journal.
    let model = Arc::new(TestModel::scripted([ModelResponse::text("all done")]));
    let mut session = world.agent(&model, false).session();
    let result = session
        .run_with_options(
            claimed.run().prompt.clone(),
            AgentRunOptions::new().journal(claimed.journal()),
        )
        .await
        .unwrap();
    assert_eq!(result.output, "all done");
    assert_eq!(model.requests().len(), 1);
    assert_eq!(world.counted.load(Ordering::SeqCst), 1, "count ran once");
    assert_eq!(
        world.slowed.load(Ordering::SeqCst),
        2,
        "the call in flight runs again: at least once"
    );
    let slow = crate::common::tool_return(&result.messages, "s1");
    assert_eq!(slow.content, json!({"may_have_run": true}));
    claimed
        .finish(result.output, result.structured_output, result.usage)
        .await
        .unwrap();
    let stored = world.store.get(&id).await.unwrap().unwrap();
    assert_eq!(stored.status, RunStatus::Finished);
}

#[tokio::test]
async fn an_at_most_once_call_that_may_have_run_waits_for_a_person_instead() {
    let world = World::new();
    let id = world.first_worker_dies_in_slow(true).await;

    let claimed = world.claim("w2").await;
    let model = Arc::new(TestModel::scripted([ModelResponse::text("all done")]));
    let agent = world.agent(&model, true);
    let mut session = agent.session();
    let waiting = session
        .run_with_options("go", AgentRunOptions::new().journal(claimed.journal()))
        .await
        .unwrap();
    assert_eq!(waiting.status, AgentRunStatus::Waiting);
    assert_eq!(waiting.pending.len(), 1);
    assert_eq!(waiting.pending[0].tool_call_id, "s1");
    assert_eq!(waiting.pending[0].request_kind(), "interrupted_call");
    assert_eq!(
        world.slowed.load(Ordering::SeqCst),
        1,
        "not run again unasked"
    );
    claimed
        .wait(session.export_state(), waiting.usage)
        .await
        .unwrap();

    // Approved from anywhere, resumed by another worker.
    world
        .store
        .answer(
            &id,
            starweaver::agent::AgentHitlResults::new()
                .with_interaction(AgentHitlUserInteraction::approved("s1")),
        )
        .await
        .unwrap();
    let claimed = world.claim("w3").await;
    let state = claimed.waiting_state().cloned().unwrap();
    let mut session = starweaver::AgentSession::restore(agent, state);
    let done = session
        .resume_with_options(
            claimed.answers().clone(),
            AgentRunOptions::new().journal(claimed.journal()),
            &mut |_| {},
        )
        .await
        .unwrap();
    assert_eq!(done.output, "all done");
    assert_eq!(world.slowed.load(Ordering::SeqCst), 2);
    assert_eq!(world.counted.load(Ordering::SeqCst), 1);
    claimed
        .finish(done.output, done.structured_output, done.usage)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_worker_that_lost_its_lease_stops_before_its_next_write() {
    let world = World::new();
    world.slowed.store(1, Ordering::SeqCst);
    let run = world.store.create(NewRun::new("a", "go")).await.unwrap();
    let stale = world.claim("w1").await;
    // Its lease lapses and another worker takes the run.
    world.now.fetch_add(60_000, Ordering::SeqCst);
    let current = world.claim("w2").await;
    let model = Arc::new(TestModel::scripted(script()));
    let mut session = world.agent(&model, false).session();
    let error = session
        .run_with_options("go", AgentRunOptions::new().journal(stale.journal()))
        .await
        .unwrap_err();
    assert!(matches!(error, AgentError::Journal(_)), "{error}");
    assert!(error.to_string().contains("no longer held"), "{error}");
    assert!(stale.lost().is_cancelled());
    assert_eq!(
        world.counted.load(Ordering::SeqCst),
        0,
        "no call ran after the refused write"
    );
    assert!(world.store.journal(&run.id).await.unwrap().is_empty());
    assert!(stale.fail("x".into(), Default::default()).await.is_err());
    assert_eq!(
        world.store.get(&run.id).await.unwrap().unwrap().status,
        RunStatus::Running,
        "still the second worker's"
    );
    current.release().await.unwrap();
}

#[tokio::test]
async fn a_foreign_journal_entry_is_an_error_naming_its_run() {
    let world = World::new();
    let run = world.store.create(NewRun::new("a", "go")).await.unwrap();
    let (claimed, lease) = world.store.claim("w1", 10_000).await.unwrap().unwrap();
    world
        .store
        .append(
            &lease,
            starweaver::runs::JournalEntry::model_response(1, json!({"not": "a response"})),
        )
        .await
        .unwrap();
    let error = ClaimedRun::load(Arc::clone(&world.store), claimed, lease)
        .await
        .unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains(run.id.as_str()) && text.contains("step 1"),
        "{text}"
    );
}

//! The rules every run store keeps, written once and run against each store.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::json;
use starweaver::model::{TestModel, Usage};
use starweaver::runs::{JournalEntry, NewRun, RunStatus, RunStore, StoreError};
use starweaver::{AgentBuilder, AgentSession, RunId};

/// A run is queued, claimed by one worker, journaled (the first entry of a key stays) and
/// finished; a finished run takes no more writes.
pub async fn lifecycle(store: &dyn RunStore, now: &AtomicU64) {
    let run = store.create(NewRun::new("helper", "hi")).await.unwrap();
    assert_eq!(run.status, RunStatus::Queued);
    let (claimed, lease) = store.claim("w1", 30_000).await.unwrap().unwrap();
    assert_eq!((&claimed.id, claimed.status), (&run.id, RunStatus::Running));
    assert!(
        store.claim("w2", 30_000).await.unwrap().is_none(),
        "one run, one claim"
    );
    let first = JournalEntry::tool_return(1, "c1", json!({"content": 1}));
    assert!(store.append(&lease, first).await.unwrap());
    let response = JournalEntry::model_response(1, json!({"parts": []}));
    assert!(store.append(&lease, response).await.unwrap());
    // Journaled again (a worker resuming from an earlier step): the first entry stays.
    let again = JournalEntry::tool_return(1, "c1", json!({"content": 2}));
    assert!(!store.append(&lease, again).await.unwrap());
    let journal = store.journal(&run.id).await.unwrap();
    assert_eq!(journal.len(), 2);
    assert_eq!(journal[0].key(), (1, ""), "by step, then call id");
    assert_eq!(journal[1].payload, json!({"content": 1}));
    now.store(2_000, Ordering::SeqCst);
    store
        .finish(&lease, "done".into(), None, Usage::default())
        .await
        .unwrap();
    let finished = store.get(&run.id).await.unwrap().unwrap();
    assert_eq!(finished.status, RunStatus::Finished);
    assert_eq!(finished.output.as_deref(), Some("done"));
    assert_eq!((finished.created_at, finished.updated_at), (1_000, 2_000));
    let late = JournalEntry::model_response(2, json!(null));
    assert!(matches!(
        store.append(&lease, late).await,
        Err(StoreError::LeaseLost { .. })
    ));
}

/// A lease that lapsed puts the run back in the queue; its old holder then writes nothing:
/// no heartbeat, no journal row, no release.
pub async fn lease_expiry(store: &dyn RunStore, now: &AtomicU64) {
    let run = store.create(NewRun::new("helper", "hi")).await.unwrap();
    let (_, first) = store.claim("w1", 500).await.unwrap().unwrap();
    let renewed = store.renew(&first, 500).await.unwrap();
    assert_eq!(renewed.expires_at, 1_500);
    now.store(1_600, Ordering::SeqCst);
    let (_, second) = store.claim("w2", 500).await.unwrap().unwrap();
    assert_eq!(second.run_id, run.id);
    assert_ne!(second.token, first.token);
    assert!(matches!(
        store.renew(&renewed, 500).await,
        Err(StoreError::LeaseLost { .. })
    ));
    let late = JournalEntry::tool_return(1, "c1", json!("late"));
    assert!(store.append(&renewed, late).await.is_err());
    assert!(store.release(&renewed).await.is_err());
    assert!(store.journal(&run.id).await.unwrap().is_empty());
    store
        .finish(&second, "second".into(), None, Usage::default())
        .await
        .unwrap();
    let finished = store.get(&run.id).await.unwrap().unwrap();
    assert_eq!(finished.output.as_deref(), Some("second"));
}

/// A waiting run keeps its session, is claimed again only by id, and a final run is claimed
/// or cancelled no more.
pub async fn waiting(store: &dyn RunStore, _now: &AtomicU64) {
    let run = store.create(NewRun::new("helper", "hi")).await.unwrap();
    let (_, lease) = store.claim("w1", 30_000).await.unwrap().unwrap();
    let session = AgentSession::new(
        AgentBuilder::new(std::sync::Arc::new(TestModel::with_text("x"))).build(),
    )
    .export_state();
    store
        .wait(&lease, session.clone(), Usage::default())
        .await
        .unwrap();
    let paused = store.get(&run.id).await.unwrap().unwrap();
    assert_eq!(paused.status, RunStatus::Waiting);
    assert_eq!(paused.waiting, Some(session));
    assert!(
        store.claim("w2", 30_000).await.unwrap().is_none(),
        "it waits for an answer"
    );
    let (_, again) = store.claim_run(&run.id, "w2", 30_000).await.unwrap();
    store
        .fail(&again, "broke".into(), Usage::default())
        .await
        .unwrap();
    assert!(matches!(
        store.claim_run(&run.id, "w3", 30_000).await,
        Err(StoreError::WrongStatus {
            status: RunStatus::Failed,
            ..
        })
    ));
    assert!(matches!(
        store.cancel(&run.id).await,
        Err(StoreError::WrongStatus { .. })
    ));
}

/// Cancelling a running run takes its worker's lease; ids are unique; unknown ids say so.
pub async fn cancel_and_ids(store: &dyn RunStore, _now: &AtomicU64) {
    let run = store.create(NewRun::new("helper", "hi")).await.unwrap();
    let duplicate = NewRun::new("helper", "again").with_id(run.id.clone());
    assert!(matches!(
        store.create(duplicate).await,
        Err(StoreError::DuplicateRun { .. })
    ));
    let (_, lease) = store.claim("w1", 30_000).await.unwrap().unwrap();
    store.cancel(&run.id).await.unwrap();
    assert!(matches!(
        store
            .finish(&lease, "too late".into(), None, Usage::default())
            .await,
        Err(StoreError::LeaseLost { .. })
    ));
    let listed = store.list().await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].status, RunStatus::Cancelled);
    let nope = RunId::new("nope");
    assert_eq!(store.get(&nope).await.unwrap(), None);
    assert!(matches!(
        store.journal(&nope).await,
        Err(StoreError::UnknownRun { .. })
    ));
    assert!(matches!(
        store.claim_run(&nope, "w1", 1).await,
        Err(StoreError::UnknownRun { .. })
    ));
}

/// Runs come back oldest first, with what they were created with.
pub async fn listing(store: &dyn RunStore, _now: &AtomicU64) {
    let mut vars = std::collections::BTreeMap::new();
    vars.insert("token".to_string(), "***".to_string());
    for prompt in ["one", "two", "three"] {
        store
            .create(
                NewRun::new("helper", prompt)
                    .with_manifest_digest("sha256:abc")
                    .with_vars(vars.clone()),
            )
            .await
            .unwrap();
    }
    let listed = store.list().await.unwrap();
    let prompts: Vec<&str> = listed.iter().map(|run| run.prompt.as_str()).collect();
    assert_eq!(prompts, ["one", "two", "three"]);
    assert_eq!(listed[1].vars, vars);
    assert_eq!(listed[1].manifest_digest, "sha256:abc");
    let (claimed, _) = store.claim("w1", 30_000).await.unwrap().unwrap();
    assert_eq!(claimed.prompt, "one", "the oldest first");
}

/// Answers reach only a waiting run and only the calls it waits for; once every pending call
/// has one the run is queued again, with its session and answers, for any worker to continue.
pub async fn answers(store: &dyn RunStore, _now: &AtomicU64) {
    use starweaver::agent::AgentHitlResults;
    use starweaver::agent::AgentHitlUserInteraction;

    let run = store.create(NewRun::new("deployer", "ship")).await.unwrap();
    let early = AgentHitlResults::new().with_interaction(AgentHitlUserInteraction::approved("d1"));
    assert!(matches!(
        store.answer(&run.id, early.clone()).await,
        Err(StoreError::WrongStatus {
            status: RunStatus::Queued,
            action: "answered",
            ..
        })
    ));
    let (_, lease) = store.claim("w1", 30_000).await.unwrap().unwrap();
    let log = crate::common::Log::default();
    let model = std::sync::Arc::new(TestModel::scripted(crate::common::deploy_script("done")));
    let mut session = crate::common::deploy_agent(&model, &log).session();
    session.run("ship").await.unwrap();
    let state = session.export_state();
    assert_eq!(state.pending().len(), 1);
    store.wait(&lease, state, Usage::default()).await.unwrap();

    let stranger =
        AgentHitlResults::new().with_interaction(AgentHitlUserInteraction::denied("nope"));
    assert!(matches!(
        store.answer(&run.id, stranger).await,
        Err(StoreError::UnknownCall { ref call, .. }) if call == "nope"
    ));
    assert_eq!(
        store.get(&run.id).await.unwrap().unwrap().status,
        RunStatus::Waiting,
        "a refused answer changes nothing"
    );
    let answered = store.answer(&run.id, early).await.unwrap();
    assert_eq!(answered.status, RunStatus::Queued);
    assert!(answered.answers.interactions["d1"].approved);
    let (claimed, again) = store.claim("w2", 30_000).await.unwrap().unwrap();
    assert_eq!(claimed.id, run.id);
    assert!(
        claimed.waiting.is_some(),
        "the session to continue comes with the claim"
    );
    assert!(claimed.answers.interactions.contains_key("d1"));
    store
        .finish(&again, "done".into(), None, Usage::default())
        .await
        .unwrap();
    let done = store.get(&run.id).await.unwrap().unwrap();
    assert_eq!(
        (done.waiting, done.answers),
        (None, AgentHitlResults::default())
    );
}

/// A run finished with a structured answer keeps the object beside its text, in `get` and in
/// `list`; a text answer has none.
pub async fn structured_output(store: &dyn RunStore, _now: &AtomicU64) {
    let answer = json!({"severity": "high", "summary": "disk full", "tags": ["ops", 1, null]});
    let typed = store.create(NewRun::new("triage", "triage")).await.unwrap();
    let (_, lease) = store.claim("w1", 30_000).await.unwrap().unwrap();
    store
        .finish(
            &lease,
            "Filed.".into(),
            Some(answer.clone()),
            Usage::default(),
        )
        .await
        .unwrap();
    let text = store.create(NewRun::new("helper", "hi")).await.unwrap();
    let (_, lease) = store.claim("w1", 30_000).await.unwrap().unwrap();
    store
        .finish(&lease, "hello".into(), None, Usage::default())
        .await
        .unwrap();
    let found = store.get(&typed.id).await.unwrap().unwrap();
    assert_eq!(found.output.as_deref(), Some("Filed."));
    assert_eq!(found.structured_output, Some(answer.clone()));
    let plain = store.get(&text.id).await.unwrap().unwrap();
    assert_eq!(plain.output.as_deref(), Some("hello"));
    assert_eq!(plain.structured_output, None);
    let listed = store.list().await.unwrap();
    let listed = listed.iter().find(|run| run.id == typed.id).unwrap();
    assert_eq!(listed.structured_output, Some(answer));
}

//! Sixth review: the newest layers (environments, the filesystem bundle,
//! skills) integrated with the agent runtime, through the public API.
//!
//! No defect was found in this round; every test here locks in
//! integration behaviour that was checked and found sound: gated,
//! deferred, prefixed, proxied and searched filesystem tools across
//! pauses, restores and run options, per-file locks under the proxy,
//! `skills_scanned` once per run, cancellation of a long grep, and
//! per-call tool contexts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use serde_json::json;
use starweaver::environment::VirtualEnvironmentProvider;
use starweaver::{
    AgentBuilder, AgentHitlUserInteraction, AgentRunOptions, AgentSession, AgentStreamEvent,
};

mod common;
use common::environment::gated_writes;
use common::{batch_model, call};

// ---------------------------------------------------------------------------
// Skills, cancellation and per-call contexts
// ---------------------------------------------------------------------------

#[tokio::test]
async fn skills_scanned_is_published_once_for_a_run_that_waits_and_resumes() {
    let provider = Arc::new(
        VirtualEnvironmentProvider::new("ws")
            .with_file(
                "skills/notes/SKILL.md",
                "---\nname: notes\ndescription: Keep notes\n---\nBody.\n",
            )
            .with_file("notes.txt", "one\n"),
    );
    let report = starweaver::SkillRegistry::scan_with_report(
        provider.clone(),
        &[starweaver::SkillSourceScope::new("")],
    )
    .await
    .unwrap();
    let model = batch_model(vec![vec![call(
        "w1",
        "write_file",
        json!({"path": "notes.txt", "content": "two\n"}),
    )]]);
    let agent = AgentBuilder::new(model)
        .toolset(&gated_writes())
        .toolset(&starweaver::skill_tools(report.registry().packages()))
        .skills_report(report)
        .build();
    let mut session = AgentSession::new(agent).with_environment(provider.clone());
    let scans = Arc::new(Mutex::new(0_usize));
    let counter = scans.clone();
    let mut sink = move |record: &starweaver::AgentStreamRecord| {
        if matches!(&record.event, AgentStreamEvent::Custom { event } if event.kind == starweaver::SKILL_SCAN_EVENT_KIND)
        {
            *counter.lock().unwrap() += 1;
        }
    };
    let waiting = session
        .run_with_events("go", AgentRunOptions::new(), &mut sink)
        .await
        .unwrap();
    assert!(waiting.is_waiting());
    let done = session
        .resume_with_events(AgentHitlUserInteraction::approved("w1"), &mut sink)
        .await
        .unwrap();
    assert_eq!(done.output, "done");
    assert_eq!(*scans.lock().unwrap(), 1);
    let in_context = session
        .context()
        .events
        .events()
        .iter()
        .filter(|event| event.kind == starweaver::SKILL_SCAN_EVENT_KIND)
        .count();
    assert_eq!(in_context, 1);
    // A second run reports its own scan once.
    session.run("again").await.unwrap();
    let after = session
        .context()
        .events
        .events()
        .iter()
        .filter(|event| event.kind == starweaver::SKILL_SCAN_EVENT_KIND)
        .count();
    assert_eq!(after, 2);
}

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
use std::time::Duration;

use serde_json::json;
use starweaver::environment::{EnvironmentProvider, VirtualEnvironmentProvider};
use starweaver::model::ToolReturnKind;
use starweaver::{
    filesystem_tools, tool_proxy_toolset, tool_search_toolset, AgentBuilder, AgentError,
    AgentHitlUserInteraction, AgentRunOptions, AgentSession, AgentStreamEvent, DeferredToolset,
    DynTool, StaticToolset,
};

mod common;
use common::environment::{gated_writes, notes, text_of, TestEnvironment};
use common::{batch_model, call, proxied, round_trip, tool_returns};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// The bundle's tool `name`.
fn bundle_tool(name: &str) -> DynTool {
    filesystem_tools()
        .get_tools()
        .into_iter()
        .find(|tool| tool.name() == name)
        .unwrap()
}

// ---------------------------------------------------------------------------
// Proxies, prefixes, search and deferral over the filesystem bundle
// ---------------------------------------------------------------------------

#[tokio::test]
async fn two_writes_of_one_file_through_the_proxy_do_not_deadlock() {
    let provider = notes();
    let model = batch_model(vec![vec![
        proxied(
            "w1",
            "write_file",
            json!({"path": "notes.txt", "content": "a\n"}),
        ),
        proxied(
            "w2",
            "write_file",
            json!({"path": "/notes.txt", "content": "b\n"}),
        ),
        proxied(
            "e1",
            "edit_file",
            json!({"path": "notes.txt", "old_string": "b", "new_string": "c"}),
        ),
        proxied("r1", "read_file", json!({"path": "notes.txt"})),
    ]]);
    let agent = AgentBuilder::new(model)
        .toolset(&tool_proxy_toolset(vec![filesystem_tools()]))
        .build();
    let mut session = AgentSession::new(agent).with_environment(provider.clone());
    let result = tokio::time::timeout(Duration::from_secs(5), session.run("write twice"))
        .await
        .expect("the batch deadlocked")
        .unwrap();
    let returns = tool_returns(&result.messages);
    assert!(returns
        .iter()
        .all(|part| part.kind == ToolReturnKind::Success));
    assert_eq!(returns[3].content["content"], "c\n");
    assert_eq!(text_of(&provider, "notes.txt").await, "c\n");
}

#[tokio::test]
async fn filesystem_tools_loaded_by_tool_search_act_on_the_session_environment() {
    let provider = notes();
    let model = batch_model(vec![
        vec![call("s1", "tool_search", json!({"query": "write file"}))],
        vec![call(
            "w1",
            "write_file",
            json!({"path": "new/file.txt", "content": "x"}),
        )],
    ]);
    let agent = AgentBuilder::new(model)
        .toolset(&tool_search_toolset(vec![filesystem_tools()]))
        .build();
    let mut session = AgentSession::new(agent).with_environment(provider.clone());
    let result = session.run("search then write").await.unwrap();
    let returns = tool_returns(&result.messages);
    assert_eq!(returns[1].kind, ToolReturnKind::Success, "{:?}", returns[1]);
    assert_eq!(text_of(&provider, "new/file.txt").await, "x");
}

#[tokio::test]
async fn a_deferred_write_returns_the_worker_result_and_touches_nothing() {
    let provider = notes();
    let model = batch_model(vec![vec![
        call("r1", "read_file", json!({"path": "notes.txt"})),
        call(
            "w1",
            "write_file",
            json!({"path": "notes.txt", "content": "x"}),
        ),
    ]]);
    let build = || {
        AgentBuilder::new(model.clone())
            .toolset(&StaticToolset::new("fs").with_tool(bundle_tool("read_file")))
            .toolset(&DeferredToolset::new("remote").with_tool(bundle_tool("write_file")))
            .build()
    };
    let mut session = AgentSession::new(build()).with_environment(provider.clone());
    let waiting = session.run("defer").await.unwrap();
    assert_eq!(waiting.pending.len(), 1);
    let mut restored = round_trip(&session, build()).with_environment(provider.clone());
    let done = restored
        .resume_after_hitl(
            starweaver::AgentHitlResults::new().with_deferred_result("w1", json!({"ok": 1})),
        )
        .await
        .unwrap();
    let returns = tool_returns(&done.messages);
    assert_eq!(returns[1].content, json!({"ok": 1}));
    assert_eq!(text_of(&provider, "notes.txt").await, "one\n");
}

// ---------------------------------------------------------------------------
// Run options and scheduling
// ---------------------------------------------------------------------------

#[tokio::test]
async fn run_scoped_filesystem_tools_see_the_environment_and_stay_ordered() {
    let provider = notes();
    let model = batch_model(vec![vec![
        call("r0", "read_file", json!({"path": "notes.txt"})),
        call(
            "w1",
            "write_file",
            json!({"path": "notes.txt", "content": "two\n"}),
        ),
        call("r1", "grep", json!({"pattern": "two"})),
    ]]);
    let agent = AgentBuilder::new(model).build();
    let mut session = AgentSession::new(agent).with_environment(provider.clone());
    let records = Arc::new(Mutex::new(Vec::new()));
    let sink = records.clone();
    let result = session
        .run_with_events(
            "per run",
            AgentRunOptions::new().toolset(&filesystem_tools()),
            &mut move |record| sink.lock().unwrap().push(record.event.clone()),
        )
        .await
        .unwrap();
    let returns = tool_returns(&result.messages);
    assert_eq!(returns[0].content["content"], "one\n");
    assert_eq!(returns[2].content["count"], 1);
    let batch = records
        .lock()
        .unwrap()
        .iter()
        .find_map(|event| match event {
            AgentStreamEvent::ToolBatch { mode, reason, .. } => {
                Some((mode.clone(), reason.clone()))
            }
            _ => None,
        })
        .unwrap();
    assert_eq!(batch.0, "sequential");
    assert_eq!(batch.1.as_deref(), Some("sequential_tool"));
}

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

#[tokio::test]
async fn cancelling_a_run_stops_a_long_grep() {
    let files = VirtualEnvironmentProvider::new("big");
    let text = "haystack\n".repeat(50);
    for index in 0..20_000 {
        let path = format!("d{}/f{index}.txt", index % 100);
        files.write_text(&path, &text).await.unwrap();
    }
    // Cancel from inside the search, at its 100th file read: no sleeping,
    // and the grep is provably under way when the token fires.
    let token = tokio_util::sync::CancellationToken::new();
    let trigger = token.clone();
    let reads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = reads.clone();
    let provider = Arc::new(TestEnvironment::new(files).with_read_hook(move |_| {
        if counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 99 {
            trigger.cancel();
        }
    }));
    let model = batch_model(vec![vec![call("g1", "grep", json!({"pattern": "needle"}))]]);
    let agent = AgentBuilder::new(model)
        .toolset(&filesystem_tools())
        .build();
    let mut session = AgentSession::new(agent).with_environment(provider);
    let returns = Arc::new(Mutex::new(Vec::new()));
    let sink_returns = returns.clone();
    let mut sink = move |record: &starweaver::AgentStreamRecord| {
        if let AgentStreamEvent::ToolReturn { part } = &record.event {
            sink_returns.lock().unwrap().push(part.clone());
        }
    };
    let result = session
        .run_with_events(
            "search",
            AgentRunOptions::new().cancellation(token),
            &mut sink,
        )
        .await;
    assert!(matches!(result, Err(AgentError::Cancelled)), "{result:?}");
    let returns = returns.lock().unwrap();
    assert_eq!(returns.len(), 1);
    assert_eq!(
        returns[0].kind,
        ToolReturnKind::Cancelled,
        "{:?}",
        returns[0]
    );
    // The search stopped at its next yield, long before 20,000 reads.
    let read = reads.load(std::sync::atomic::Ordering::SeqCst);
    assert!((100..1_000).contains(&read), "{read} reads");
}

#[tokio::test]
async fn a_deferred_write_behind_the_proxy_and_a_duplicate_run_toolset() {
    let provider = notes();
    let model = batch_model(vec![vec![
        proxied(
            "w1",
            "write_file",
            json!({"path": "notes.txt", "content": "x"}),
        ),
        call("r1", "read_file", json!({"path": "notes.txt"})),
    ]]);
    let build = || {
        AgentBuilder::new(model.clone())
            .toolset(&filesystem_tools())
            .toolset(&tool_proxy_toolset(vec![
                DeferredToolset::new("remote").with_tool(bundle_tool("write_file"))
            ]))
            .build()
    };
    let mut session = AgentSession::new(build()).with_environment(provider.clone());
    let waiting = session
        .run_with_options("defer", AgentRunOptions::new().toolset(&filesystem_tools()))
        .await
        .unwrap();
    assert_eq!(waiting.pending.len(), 1);
    let mut restored = round_trip(&session, build()).with_environment(provider.clone());
    let done = restored
        .resume_after_hitl(
            starweaver::AgentHitlResults::new().with_deferred_result("w1", json!({"ok": 1})),
        )
        .await
        .unwrap();
    let returns = tool_returns(&done.messages);
    assert_eq!(returns[0].content, json!({"ok": 1}));
    assert_eq!(returns[1].content["content"], "one\n");
    assert_eq!(text_of(&provider, "notes.txt").await, "one\n");
}

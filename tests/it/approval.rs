//! `ApprovalRequiredToolset`: gating tools a host did not write (the
//! filesystem bundle's writes) behind human approval, also behind the
//! proxy, a prefix and tool search, and across export and restore.

use std::sync::{Arc, Mutex};

use serde_json::json;
use starweaver::agent::{AgentHitlUserInteraction, AgentRunStatus};
use starweaver::environment::{EnvironmentProvider, VirtualEnvironmentProvider};
use starweaver::model::{ModelResponse, ToolCallPart, ToolReturnKind};
use starweaver::tools::ApprovalRequiredToolset;
use starweaver::{
    filesystem_tools, tool_proxy_toolset, tool_search_toolset, AgentBuilder, AgentRunOptions,
    AgentSession, AgentStreamEvent, DynToolset, PrefixedToolset, TestModel, ToolRegistry,
};

use crate::common::environment::{gated_writes, notes, text_of};
use crate::common::{batch_model, call, proxied, round_trip, tool_returns};

fn workspace() -> Arc<VirtualEnvironmentProvider> {
    Arc::new(VirtualEnvironmentProvider::new("ws").with_file("notes.md", "old\n"))
}

/// A read and a write in one response, then an answer.
fn read_then_write() -> TestModel {
    TestModel::scripted([
        ModelResponse::tool_calls([
            ToolCallPart::new("r1", "read_file", json!({"path": "notes.md"})),
            ToolCallPart::new(
                "w1",
                "write_file",
                json!({"path": "notes.md", "content": "new\n"}),
            ),
        ]),
        ModelResponse::text("done"),
    ])
}

#[tokio::test]
async fn a_gated_write_waits_for_approval_and_ungated_tools_run() {
    let env = workspace();
    let agent = AgentBuilder::new(Arc::new(read_then_write()))
        .toolset(&gated_writes())
        .build();
    let mut session = AgentSession::new(agent).with_environment(env.clone());

    let waiting = session.run("update the notes").await.unwrap();
    assert_eq!(waiting.status, AgentRunStatus::Waiting);
    let pending: Vec<&str> = waiting
        .pending
        .iter()
        .map(|request| request.tool_call_id.as_str())
        .collect();
    assert_eq!(pending, ["w1"], "only the write waits");
    assert_eq!(env.read_text("notes.md").await.unwrap(), "old\n");

    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("w1"))
        .await
        .unwrap();
    assert_eq!(done.output, "done");
    assert_eq!(env.read_text("notes.md").await.unwrap(), "new\n");
}

#[tokio::test]
async fn a_denied_write_changes_nothing() {
    let env = workspace();
    let agent = AgentBuilder::new(Arc::new(read_then_write()))
        .toolset(&gated_writes())
        .build();
    let mut session = AgentSession::new(agent).with_environment(env.clone());
    session.run("update the notes").await.unwrap();

    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::denied("w1").with_reason("not today"))
        .await
        .unwrap();
    assert_eq!(done.output, "done");
    assert_eq!(env.read_text("notes.md").await.unwrap(), "old\n");
    let write = tool_returns(session.messages())
        .into_iter()
        .find(|part| part.tool_call_id == "w1")
        .unwrap();
    assert_ne!(write.kind, ToolReturnKind::Success);
}

#[tokio::test]
async fn without_a_list_every_tool_is_gated_and_typos_are_reported() {
    let all: DynToolset = Arc::new(ApprovalRequiredToolset::new(filesystem_tools()));
    let registry = ToolRegistry::new().with_toolset(&all);
    for name in ["ls", "read_file", "write_file", "edit_file", "glob", "grep"] {
        let definition = registry.get(name).unwrap().definition();
        assert!(
            starweaver::tools::tool_metadata_requires_approval(&definition.metadata),
            "{name}"
        );
    }

    let listed =
        ApprovalRequiredToolset::new(filesystem_tools()).with_tools(["write_file", "wrte_file"]);
    assert_eq!(listed.unknown_tools(), ["wrte_file"]);
    assert!(ApprovalRequiredToolset::new(filesystem_tools())
        .unknown_tools()
        .is_empty());
}

#[tokio::test]
async fn a_gated_write_behind_the_proxy_waits_too() {
    let env = workspace();
    let model = TestModel::scripted([
        ModelResponse::tool_calls([ToolCallPart::new(
            "c1",
            "call_tool",
            json!({"name": "write_file", "arguments": {"path": "notes.md", "content": "new\n"}}),
        )]),
        ModelResponse::text("done"),
    ]);
    let agent = AgentBuilder::new(Arc::new(model))
        .toolset(&tool_proxy_toolset(vec![gated_writes()]))
        .build();
    let mut session = AgentSession::new(agent).with_environment(env.clone());

    let waiting = session.run("update the notes").await.unwrap();
    assert_eq!(waiting.status, AgentRunStatus::Waiting);
    assert_eq!(env.read_text("notes.md").await.unwrap(), "old\n");
    session
        .resume_after_hitl(AgentHitlUserInteraction::approved("c1"))
        .await
        .unwrap();
    assert_eq!(env.read_text("notes.md").await.unwrap(), "new\n");
}

#[tokio::test]
async fn names_are_the_inner_toolsets_under_a_prefix() {
    let gated = ApprovalRequiredToolset::new(filesystem_tools()).with_tools(["write_file"]);
    let prefixed: DynToolset = Arc::new(starweaver::PrefixedToolset::new("fs", gated));
    let registry = ToolRegistry::new().with_toolset(&prefixed);
    let gated_of = |name: &str| {
        starweaver::tools::tool_metadata_requires_approval(
            &registry.get(name).unwrap().definition().metadata,
        )
    };
    assert!(gated_of("fs_write_file"));
    assert!(!gated_of("fs_read_file"));
    assert!(!gated_of("fs_edit_file"));
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression lock (review found no defect): a gated proxied write resumes after a restore.
#[tokio::test]
async fn a_gated_write_behind_the_proxy_resumes_after_export_and_restore() {
    let provider = notes();
    let model = batch_model(vec![vec![
        proxied("r1", "read_file", json!({"path": "notes.txt"})),
        proxied(
            "w1",
            "write_file",
            json!({"path": "notes.txt", "content": "two\n"}),
        ),
    ]]);
    let build = || {
        AgentBuilder::new(model.clone())
            .toolset(&tool_proxy_toolset(vec![gated_writes()]))
            .build()
    };
    let mut session = AgentSession::new(build()).with_environment(provider.clone());
    let waiting = session.run("rewrite notes").await.unwrap();
    assert!(waiting.is_waiting());
    assert_eq!(waiting.pending.len(), 1);
    assert_eq!(waiting.pending[0].tool_call_id, "w1");
    assert_eq!(text_of(&provider, "notes.txt").await, "one\n");

    let mut restored = round_trip(&session, build()).with_environment(provider.clone());
    let done = restored
        .resume_after_hitl(AgentHitlUserInteraction::approved("w1"))
        .await
        .unwrap();
    assert_eq!(done.output, "done");
    assert_eq!(text_of(&provider, "notes.txt").await, "two\n");
    let returns = tool_returns(&done.messages);
    assert_eq!(returns[0].content["content"], "one\n");
    assert_eq!(returns[1].kind, ToolReturnKind::Success);
    assert_eq!(returns[1].content["created"], false);
}

// Regression lock (review found no defect): a gated prefixed edit is denied, then approved.
#[tokio::test]
async fn a_gated_prefixed_edit_is_denied_then_approved_across_a_restore() {
    let provider = notes();
    let model = batch_model(vec![
        vec![call(
            "e1",
            "fs_edit_file",
            json!({"path": "notes.txt", "old_string": "one", "new_string": "uno"}),
        )],
        vec![call(
            "e2",
            "fs_edit_file",
            json!({"file_path": "notes.txt", "old_string": "one", "new_string": "eins"}),
        )],
    ]);
    let build = || {
        AgentBuilder::new(model.clone())
            .toolset(&PrefixedToolset::new("fs", gated_writes()))
            .build()
    };
    let mut session = AgentSession::new(build()).with_environment(provider.clone());
    assert!(session.run("edit").await.unwrap().is_waiting());
    let waiting = session
        .resume_after_hitl(AgentHitlUserInteraction::denied("e1"))
        .await
        .unwrap();
    assert!(waiting.is_waiting());
    assert_eq!(text_of(&provider, "notes.txt").await, "one\n");
    let mut restored = round_trip(&session, build()).with_environment(provider.clone());
    let done = restored
        .resume_after_hitl(AgentHitlUserInteraction::approved("e2"))
        .await
        .unwrap();
    assert_eq!(done.output, "done");
    assert_eq!(text_of(&provider, "notes.txt").await, "eins\n");
}

// Regression lock (review found no defect): a searched-in gated write resumes after a restore.
#[tokio::test]
async fn a_gated_write_loaded_by_tool_search_resumes_after_a_restore() {
    let provider = notes();
    let model = batch_model(vec![
        vec![call("s1", "tool_search", json!({"query": "write file"}))],
        vec![
            call(
                "w1",
                "write_file",
                json!({"path": "notes.txt", "content": "two\n"}),
            ),
            call("r1", "read_file", json!({"path": "notes.txt"})),
        ],
    ]);
    let build = || {
        AgentBuilder::new(model.clone())
            .toolset(&tool_search_toolset(vec![gated_writes()]))
            .build()
    };
    let mut session = AgentSession::new(build()).with_environment(provider.clone());
    let waiting = session.run("search then write").await.unwrap();
    assert!(
        waiting.is_waiting(),
        "{:?}",
        tool_returns(&waiting.messages)
    );
    let mut restored = round_trip(&session, build()).with_environment(provider.clone());
    let done = restored
        .resume_after_hitl(AgentHitlUserInteraction::approved("w1"))
        .await
        .unwrap();
    let returns = tool_returns(&done.messages);
    assert_eq!(returns[1].kind, ToolReturnKind::Success, "{:?}", returns[1]);
    assert_eq!(text_of(&provider, "notes.txt").await, "two\n");
}

// Regression lock (review found no defect): prefixed and run-scoped gated writes resume.
#[tokio::test]
async fn prefixed_and_run_scoped_gated_writes_resume_in_process() {
    let provider = notes();
    let model = batch_model(vec![vec![
        call(
            "w1",
            "fs_write_file",
            json!({"path": "notes.txt", "content": "two\n"}),
        ),
        call("r1", "fs_read_file", json!({"path": "notes.txt"})),
    ]]);
    let agent = AgentBuilder::new(model).build();
    let mut session = AgentSession::new(agent).with_environment(provider.clone());
    let records = Arc::new(Mutex::new(Vec::new()));
    let sink = records.clone();
    let waiting = session
        .run_with_events(
            "go",
            AgentRunOptions::new().toolset(&PrefixedToolset::new("fs", gated_writes())),
            &mut move |record| sink.lock().unwrap().push(record.event.clone()),
        )
        .await
        .unwrap();
    assert!(waiting.is_waiting());
    let batch = records
        .lock()
        .unwrap()
        .iter()
        .find_map(|event| match event {
            AgentStreamEvent::ToolBatch { reason, .. } => Some(reason.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(batch.as_deref(), Some("sequential_tool"));
    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("w1"))
        .await
        .unwrap();
    assert_eq!(done.output, "done");
    assert_eq!(text_of(&provider, "notes.txt").await, "two\n");
}

//! `ApprovalRequiredToolset`: gating tools a host did not write (the
//! filesystem bundle's writes) behind human approval.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use serde_json::json;
use starweaver::environment::{EnvironmentProvider, VirtualEnvironmentProvider};
use starweaver::model::{ModelResponse, ToolCallPart};
use starweaver::{
    filesystem_tools, tool_proxy_toolset, AgentBuilder, AgentHitlUserInteraction, AgentRunStatus,
    AgentSession, ApprovalRequiredToolset, DynToolset, TestModel, ToolRegistry, ToolReturnKind,
};

mod common;
use common::environment::gated_writes;
use common::tool_returns;

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
            starweaver::tool_metadata_requires_approval(&definition.metadata),
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
        starweaver::tool_metadata_requires_approval(
            &registry.get(name).unwrap().definition().metadata,
        )
    };
    assert!(gated_of("fs_write_file"));
    assert!(!gated_of("fs_read_file"));
    assert!(!gated_of("fs_edit_file"));
}

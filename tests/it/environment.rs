//! Sessions and their environment: `AgentSession::with_environment`, the
//! capability name tools request, dependency profiles, and what survives
//! export and restore.

use std::sync::Arc;

use serde_json::{json, Value};
use starweaver::context::ToolCapabilityGrant;
use starweaver::environment::{
    tool_environment, EnvironmentProvider, VirtualEnvironmentProvider, ENVIRONMENT_CAPABILITY,
};
use starweaver::model::ModelResponse;
use starweaver::tools::{FunctionTool, ToolDependencyRequirements};
use starweaver::{
    string_tool, AgentBuilder, AgentSession, TestModel, Tool, ToolContext, ToolError, ToolResult,
};

use crate::common::{call_response, open_schema, tool_returns};

/// A tool that reads `README.md` from whatever environment it can reach.
fn reader(name: &str) -> FunctionTool {
    string_tool(
        name,
        Some("Read README.md from the active environment".to_string()),
        open_schema(),
        |ctx: ToolContext, _args: Value| async move {
            let Some(environment) = tool_environment(&ctx) else {
                return Ok(ToolResult::new(json!({"environment": null})));
            };
            let text = environment
                .read_text("README.md")
                .await
                .map_err(ToolError::execution)?;
            Ok(ToolResult::new(
                json!({"environment": environment.name(), "text": text}),
            ))
        },
    )
}

fn docs() -> Arc<VirtualEnvironmentProvider> {
    Arc::new(VirtualEnvironmentProvider::new("docs").with_file("README.md", "hello"))
}

/// Runs `tool` once in `session` and returns what it returned.
async fn run_once(session: &mut AgentSession, tool: &str) -> Value {
    session.run("read it").await.unwrap();
    let returns = tool_returns(session.messages());
    let last = returns.iter().rev().find(|part| part.tool_name == tool);
    last.expect("the tool ran").content.clone()
}

fn session_with(tool: FunctionTool) -> AgentSession {
    let name = tool.definition().name;
    let model = TestModel::scripted([
        call_response("c1", &name, json!({})),
        ModelResponse::text("done"),
    ]);
    AgentSession::new(
        AgentBuilder::new(Arc::new(model))
            .tool(Arc::new(tool))
            .build(),
    )
}

#[tokio::test]
async fn legacy_tools_reach_the_session_environment() {
    let mut session = session_with(reader("legacy")).with_environment(docs());
    let content = run_once(&mut session, "legacy").await;
    assert_eq!(content, json!({"environment": "docs", "text": "hello"}));
}

#[tokio::test]
async fn filtered_tools_reach_it_when_they_request_the_capability() {
    let requesting = reader("filtered").with_dependencies(ToolDependencyRequirements::filtered([
        ENVIRONMENT_CAPABILITY,
    ]));
    let mut session = session_with(requesting).with_environment(docs());
    assert_eq!(run_once(&mut session, "filtered").await["text"], "hello");

    let not_requesting =
        reader("filtered").with_dependencies(ToolDependencyRequirements::filtered(["other"]));
    let mut session = session_with(not_requesting).with_environment(docs());
    assert_eq!(
        run_once(&mut session, "filtered").await,
        json!({"environment": null})
    );
}

#[tokio::test]
async fn strict_tools_need_a_host_grant() {
    let strict = || {
        reader("strict")
            .with_dependencies(ToolDependencyRequirements::strict([ENVIRONMENT_CAPABILITY]))
    };
    let mut ungranted = session_with(strict()).with_environment(docs());
    assert_eq!(
        run_once(&mut ungranted, "strict").await,
        json!({"environment": null})
    );

    let mut granted = session_with(strict()).with_environment(docs());
    granted.context_mut().grant_tool_capabilities(
        "strict",
        ToolCapabilityGrant {
            host_capabilities: vec![ENVIRONMENT_CAPABILITY.to_string()],
            ..ToolCapabilityGrant::default()
        },
    );
    assert_eq!(run_once(&mut granted, "strict").await["text"], "hello");
}

#[tokio::test]
async fn the_session_reports_its_environment_and_a_later_one_replaces_it() {
    let first = docs();
    let second = Arc::new(VirtualEnvironmentProvider::new("other").with_file("README.md", "bye"));
    let session = session_with(reader("legacy")).with_environment(first.clone());
    let attached = session.environment().unwrap();
    assert_eq!(attached.name(), "docs");

    let mut session = session.with_environment(second);
    assert_eq!(session.environment().unwrap().name(), "other");
    assert_eq!(run_once(&mut session, "legacy").await["text"], "bye");
}

#[tokio::test]
async fn writes_through_tools_land_in_the_provider() {
    let provider = docs();
    let writer = string_tool(
        "writer",
        Some("Write notes.md".to_string()),
        open_schema(),
        |ctx: ToolContext, _args: Value| async move {
            let environment =
                tool_environment(&ctx).ok_or_else(|| ToolError::user_error("no environment"))?;
            environment
                .write_text("out/notes.md", "written by a tool")
                .await
                .map_err(ToolError::execution)?;
            Ok(ToolResult::new(json!({"ok": true})))
        },
    );
    let mut session = session_with(writer).with_environment(provider.clone());
    run_once(&mut session, "writer").await;
    assert_eq!(
        provider.read_text("out/notes.md").await.unwrap(),
        "written by a tool"
    );
}

#[tokio::test]
async fn an_environment_is_not_part_of_exported_state() {
    let model = TestModel::scripted([
        call_response("c1", "legacy", json!({})),
        ModelResponse::text("done"),
        call_response("c2", "legacy", json!({})),
        ModelResponse::text("done again"),
        call_response("c3", "legacy", json!({})),
        ModelResponse::text("and again"),
    ]);
    let agent = AgentBuilder::new(Arc::new(model))
        .tool(Arc::new(reader("legacy")))
        .build();
    let mut session = AgentSession::new(agent.clone()).with_environment(docs());
    assert_eq!(run_once(&mut session, "legacy").await["text"], "hello");

    let state = serde_json::to_string(&session.export_state()).unwrap();
    assert!(!state.contains(ENVIRONMENT_CAPABILITY));
    let restored = AgentSession::restore(agent, serde_json::from_str(&state).unwrap());
    assert!(restored.environment().is_none());
    let mut restored = restored;
    assert_eq!(
        run_once(&mut restored, "legacy").await,
        json!({"environment": null})
    );
    let mut restored = restored.with_environment(docs());
    assert_eq!(run_once(&mut restored, "legacy").await["text"], "hello");
}

#[tokio::test]
async fn with_context_keeps_an_environment_attached_before_it() {
    let mut context = starweaver::AgentContext::default();
    context.notes.set("lang", "en");
    let session = session_with(reader("legacy"))
        .with_environment(docs())
        .with_context(context);
    assert_eq!(session.environment().unwrap().name(), "docs");
    assert_eq!(session.context().notes.get("lang"), Some("en"));

    // A context that brings its own environment wins.
    let mut own = starweaver::AgentContext::default();
    starweaver::attach_environment(&mut own, Arc::new(VirtualEnvironmentProvider::new("own")));
    let session = session_with(reader("legacy"))
        .with_environment(docs())
        .with_context(own);
    assert_eq!(session.environment().unwrap().name(), "own");
}

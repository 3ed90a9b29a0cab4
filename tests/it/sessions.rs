//! Sessions and their state: history across runs, context notes and
//! updates, and the exported state format (versions, missing fields,
//! extreme counters, the fail-closed tool policy).

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use starweaver::agent::{AgentHitlUserInteraction, AgentSessionState};
use starweaver::model::{ModelMessage, ModelResponse, RequestPart};
use starweaver::{
    string_tool, typed_tool, AgentBuilder, AgentContext, AgentContextHandle, AgentError,
    AgentSession, TestModel, ToolContext, ToolError, ToolResult,
};

use crate::common::{
    call_response, deploy_agent, deploy_script, echo_deploy_agent, last_request_parts, open_schema,
    tool_returns, Log,
};

// ---------------------------------------------------------------------------
// Sessions and context
// ---------------------------------------------------------------------------

#[tokio::test]
async fn sessions_keep_history_across_runs() {
    let model = Arc::new(TestModel::with_text("reply"));
    let mut session = AgentBuilder::new(model.clone()).build_app().session();
    let first = session.run("first question").await.unwrap();
    assert_eq!(first.output, "reply");
    let second = session.run("second question").await.unwrap();
    assert_eq!(second.output, "reply");
    assert_eq!(session.messages().len(), 4);

    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let sent = &requests[1].messages;
    assert_eq!(sent.len(), 3);
    assert_eq!(
        sent[0],
        ModelMessage::Request(starweaver::model::ModelRequest::user("first question"))
    );
    assert!(
        matches!(&sent[1], ModelMessage::Response(response) if response.text_content() == "reply")
    );
    assert_eq!(
        sent[2],
        ModelMessage::Request(starweaver::model::ModelRequest::user("second question"))
    );

    // A plain agent run starts a fresh conversation every time.
    let fresh_model = Arc::new(TestModel::with_text("reply"));
    let agent = AgentBuilder::new(fresh_model.clone()).build();
    agent.run("one").await.unwrap();
    agent.run("two").await.unwrap();
    assert_eq!(fresh_model.requests()[1].messages.len(), 1);
}

#[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
struct ReadNoteArgs {
    /// Note key to read from AgentContext.
    key: String,
}

#[tokio::test]
async fn legacy_tool_reads_context_notes_through_the_handle() {
    let read_note = typed_tool::<ReadNoteArgs, _, _>(
        "read_note",
        Some("Read one AgentContext note".to_string()),
        |ctx: ToolContext, args: ReadNoteArgs| async move {
            let context_handle = ctx
                .dependency::<AgentContextHandle>()
                .ok_or_else(|| ToolError::user_error("agent context handle missing"))?;
            let context = context_handle.snapshot();
            let value = context.notes.get(&args.key).unwrap_or_default().to_string();
            Ok(ToolResult::new(json!({"value": value})))
        },
    );
    let model = Arc::new(TestModel::scripted(vec![
        call_response("n1", "read_note", json!({"key": "lang"})),
        ModelResponse::text("done"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(read_note))
        .build();
    let mut context = AgentContext::default();
    context.notes.set("lang", "Chinese");

    let result = agent
        .run_with_context("read note", &mut context)
        .await
        .unwrap();
    assert_eq!(result.output, "done");
    let returns = tool_returns(&result.messages);
    assert_eq!(returns.len(), 1);
    assert_eq!(returns[0].tool_call_id, "n1");
    assert!(returns[0].is_success(), "{:?}", returns[0]);
    assert_eq!(returns[0].content, json!({"value": "Chinese"}));
    // The model received it, and the host's context is intact.
    let sent = last_request_parts(&model.requests()[1]);
    assert!(
        matches!(&sent[..], [RequestPart::ToolReturn(part)] if part.content == json!({"value": "Chinese"}))
    );
    assert_eq!(context.notes.get("lang"), Some("Chinese"));
}

#[tokio::test]
async fn tool_context_updates_persist_in_the_session_context() {
    let writer = string_tool(
        "write_note",
        Some("Writes a note".to_string()),
        open_schema(),
        |ctx: ToolContext, _args: Value| async move {
            let handle = ctx
                .dependency::<AgentContextHandle>()
                .ok_or_else(|| ToolError::user_error("agent context handle missing"))?;
            handle.update(|context| context.notes.set("written", "yes"));
            Ok(ToolResult::new(json!({})))
        },
    );
    let model = Arc::new(TestModel::scripted(vec![
        call_response("w1", "write_note", json!({})),
        ModelResponse::text("done"),
    ]));
    let mut session = AgentBuilder::new(model)
        .tool(Arc::new(writer))
        .build()
        .session();
    session.run("write").await.unwrap();
    assert_eq!(session.context().notes.get("written"), Some("yes"));
}

// ---------------------------------------------------------------------------
// Exported state
// ---------------------------------------------------------------------------

#[tokio::test]
async fn session_state_rejects_garbage_and_unknown_versions() {
    for garbage in ["", "not json", "{}", "[1, 2]", r#"{"version": "one"}"#] {
        let error = AgentSessionState::from_json(garbage).unwrap_err();
        assert!(
            matches!(error, AgentError::State(_)),
            "{garbage}: {error:?}"
        );
    }

    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted(deploy_script("x")));
    let mut session = deploy_agent(&model, &log).session();
    session.run("deploy").await.unwrap();
    let json = session.export_state().to_json().unwrap();
    assert!(AgentSessionState::from_json(&json).is_ok());

    let mut value: Value = serde_json::from_str(&json).unwrap();
    value["version"] = json!(AgentSessionState::VERSION + 1);
    let error = AgentSessionState::from_json(&value.to_string()).unwrap_err();
    match error {
        AgentError::State(message) => assert!(message.contains("version"), "{message}"),
        other => panic!("expected State, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: export/restore dropped the host's fail-closed tool policy.
#[tokio::test]
async fn restore_keeps_the_fail_closed_tool_policy() {
    let mut context = starweaver::AgentContext::default();
    context.tool_config = starweaver::ToolConfig {
        unavailable_tool_policy: starweaver::ToolAvailabilityPolicy::FailRun,
    };
    let agent = AgentBuilder::new(Arc::new(TestModel::with_text("ok"))).build();
    let session = agent.session().with_context(context);
    let json = session.export_state().to_json().unwrap();
    let restored = starweaver::AgentSession::restore(
        agent,
        starweaver::agent::AgentSessionState::from_json(&json).unwrap(),
    );
    assert_eq!(
        restored.context().tool_config.unavailable_tool_policy,
        starweaver::ToolAvailabilityPolicy::FailRun
    );
}

// Regression: a newer session state version was reported as malformed JSON.
#[test]
fn newer_session_state_version_is_reported_as_a_version_problem() {
    // A version 2 state whose layout changed.
    let newer = json!({"version": 2, "session": {"id": "c", "history": []}});
    let error = AgentSessionState::from_json(&newer.to_string()).unwrap_err();
    let AgentError::State(message) = error else {
        panic!("expected State");
    };
    // Today: "not a session state: missing field `conversation_id`".
    assert!(
        message.contains("version 2"),
        "the error hides the unsupported version: {message}"
    );
}

// Regression: missing nested fields failed the whole context state.
#[test]
fn context_state_tolerates_missing_nested_fields() {
    // Every field of AgentContextState is `#[serde(default)]`, but the
    // counters and the tool-search state inside it are not.
    for context in [
        json!({"usage": {"requests": 3}}),
        json!({"tool_search": {"loaded_tools": ["lookup_docs"]}}),
    ] {
        let state = json!({
            "version": 1,
            "conversation_id": "conv",
            "messages": [],
            "context": context
        });
        let result = AgentSessionState::from_json(&state.to_string());
        assert!(result.is_ok(), "{context}: {result:?}");
    }
}

// Regression: restored counters overflowed and panicked.
#[tokio::test]
async fn restored_state_with_extreme_counters_does_not_panic() {
    let model = Arc::new(TestModel::scripted(vec![
        call_response("d1", "deploy", json!({})),
        ModelResponse::text("deployed"),
    ]));
    let agent = echo_deploy_agent(model);
    let mut session = agent.session();
    session.run("deploy").await.unwrap();
    let mut state: Value =
        serde_json::from_str(&session.export_state().to_json().unwrap()).unwrap();
    state["waiting"]["progress"]["next_sequence"] = json!(u64::MAX);
    // from_json accepts it ...
    let state = AgentSessionState::from_json(&state.to_string()).unwrap();
    let mut restored = AgentSession::restore(agent, state);
    // ... and the resume panics ("nothing panics on input").
    let resumed = tokio::spawn(async move {
        restored
            .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
            .await
            .map(|result| result.output)
    })
    .await;
    assert!(
        resumed.is_ok(),
        "the resume panicked: {:?}",
        resumed.err().map(|error| error.to_string())
    );
}

//! Cancelled and dropped runs: the token ends the run, and the host's
//! context keeps what tools already did.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use starweaver::agent::AgentStreamRecord;
use starweaver::model::{FunctionModel, ModelMessage, ModelResponse, ToolReturnKind};
use starweaver::{
    string_tool, AgentBuilder, AgentContext, AgentContextHandle, AgentError, AgentRunOptions,
    AgentStreamEvent, TestModel, ToolContext, ToolResult,
};
use tokio_util::sync::CancellationToken;

use crate::common::{call, call_response, counter, open_schema, responses_so_far, NamedDb};

use super::typed_echo;

#[tokio::test]
async fn a_cancelled_token_ends_the_run_before_the_model_is_asked() {
    let runs = counter();
    let token = tokio_util::sync::CancellationToken::new();
    token.cancel();
    let model = Arc::new(TestModel::scripted(vec![
        call_response("c1", "echo", json!({"value": "x"})),
        ModelResponse::text("cancelled"),
    ]));
    let mut session = AgentBuilder::new(model.clone())
        .tool(Arc::new(typed_echo(&runs)))
        .build()
        .session();
    let result = session
        .run_with_options("go", AgentRunOptions::new().cancellation(token))
        .await;
    assert!(matches!(result, Err(AgentError::Cancelled)), "{result:?}");
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    assert!(model.requests().is_empty());
    // Only the prompt was kept, marked failed.
    assert_eq!(
        session.messages(),
        [ModelMessage::Request(
            starweaver::model::ModelRequest::user("go")
        )]
    );
    assert_eq!(session.failed_run().unwrap().error, "the run was cancelled");
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: dropping a run (host timeout or select) wiped the caller's AgentContext.
#[tokio::test]
async fn cancelled_run_keeps_the_host_context() {
    let slow = Arc::new(string_tool(
        "slow",
        Some("Takes a while".to_string()),
        open_schema(),
        |_ctx: ToolContext, _args: Value| async move {
            tokio::time::sleep(Duration::from_secs(5)).await;
            Ok(ToolResult::new(json!({})))
        },
    ));
    let model = Arc::new(FunctionModel::new(|messages: &[ModelMessage], _| {
        Ok(if messages.len() < 2 {
            ModelResponse::tool_calls([call("s1", "slow", json!({}))])
        } else {
            ModelResponse::text("done")
        })
    }));
    let agent = AgentBuilder::new(model).tool(slow).build();
    let mut context = AgentContext::default();
    context.notes.set("customer", "acme");
    context.insert_named_dependency("db", NamedDb);
    let outcome = tokio::time::timeout(
        Duration::from_millis(50),
        agent.run_with_context("go", &mut context),
    )
    .await;
    assert!(outcome.is_err(), "the run should have been cut off");
    // Design: "nothing is lost".
    assert_eq!(context.notes.get("customer"), Some("acme"));
    assert!(context.dependencies.contains_named("db"));
}

// Regression: a dropped run's context changes were not handed back as documented.
#[tokio::test]
async fn dropped_run_hands_back_the_context_with_what_tools_already_did() {
    let note = Arc::new(string_tool(
        "remember",
        Some("Writes a note".to_string()),
        open_schema(),
        |ctx: ToolContext, _args: Value| async move {
            let handle = ctx.dependency::<AgentContextHandle>().unwrap();
            handle.update(|context| context.notes.set("half_run", "written"));
            Ok(ToolResult::new(json!({"ok": true})))
        },
    ));
    let slow = Arc::new(string_tool(
        "slow",
        Some("Takes a while".to_string()),
        open_schema(),
        |_ctx: ToolContext, _args: Value| async move {
            tokio::time::sleep(Duration::from_secs(5)).await;
            Ok(ToolResult::new(json!({})))
        },
    ));
    let model = Arc::new(FunctionModel::new(|messages: &[ModelMessage], _| {
        Ok(match responses_so_far(messages) {
            0 => ModelResponse::tool_calls([call("r1", "remember", json!({}))]),
            1 => ModelResponse::tool_calls([call("s1", "slow", json!({}))]),
            _ => ModelResponse::text("done"),
        })
    }));
    let agent = AgentBuilder::new(model).tool(note).tool(slow).build();
    let mut context = AgentContext::default();
    let outcome = tokio::time::timeout(
        Duration::from_millis(100),
        agent.run_with_context("go", &mut context),
    )
    .await;
    assert!(outcome.is_err(), "the run should have been cut off");
    // agent-runtime.md: a dropped run hands the context back (nothing is
    // lost, so what tools already did stays); a stateless run has no
    // session to keep its messages in.
    assert_eq!(context.notes.get("half_run"), Some("written"));
    assert_eq!(context.usage.requests, 2, "usage: {:?}", context.usage);
}

// Regression: a fired cancellation token did not end the run.
#[tokio::test]
async fn cancelled_run_stops_requesting_the_model() {
    let token = CancellationToken::new();
    // `stop` fires the run's token while `slow` is still running.
    let stop = {
        let token = token.clone();
        string_tool(
            "stop",
            Some("Stop everything".to_string()),
            open_schema(),
            move |_ctx: ToolContext, _args: Value| {
                let token = token.clone();
                async move {
                    token.cancel();
                    Ok(ToolResult::new(json!({"stopped": true})))
                }
            },
        )
    };
    let slow = string_tool(
        "slow",
        Some("A long job".to_string()),
        open_schema(),
        |_ctx: ToolContext, _args: Value| async move {
            tokio::time::sleep(Duration::from_secs(5)).await;
            Ok(ToolResult::new(json!({"done": true})))
        },
    );
    // A model that keeps working: it calls both tools on every turn.
    let model = Arc::new(FunctionModel::new(|_messages: &[ModelMessage], _| {
        Ok(ModelResponse::tool_calls([
            call("", "stop", json!({})),
            call("", "slow", json!({})),
        ]))
    }));
    let mut session = AgentBuilder::new(model.clone())
        .tool(Arc::new(stop))
        .tool(Arc::new(slow))
        .build()
        .session();
    let mut records: Vec<AgentStreamRecord> = Vec::new();
    let mut sink = |record: &AgentStreamRecord| records.push(record.clone());
    let outcome = session
        .run_with_events("go", AgentRunOptions::new().cancellation(token), &mut sink)
        .await;

    // The batch that was cancelled half-way: the finished call kept its
    // result, the running one ended `cancelled`.
    let kinds: Vec<(String, ToolReturnKind)> = records
        .iter()
        .filter_map(|record| match &record.event {
            AgentStreamEvent::ToolReturn { part } => Some((part.tool_name.to_string(), part.kind)),
            _ => None,
        })
        .collect();
    assert!(
        kinds.contains(&("stop".to_string(), ToolReturnKind::Success)),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&("slow".to_string(), ToolReturnKind::Cancelled)),
        "{kinds:?}"
    );
    // agent-runtime.md: the token cancels the run: no further model request
    // is made once it fired, and the run ends with AgentError::Cancelled.
    assert!(
        matches!(outcome, Err(AgentError::Cancelled)),
        "{:?}",
        outcome.map(|result| result.output)
    );
    assert_eq!(model.requests().len(), 1);
}

/// A model whose answer never comes.
struct Silent;

impl starweaver::model::Model for Silent {
    fn name(&self) -> &str {
        "silent"
    }

    fn request<'a>(
        &'a self,
        _messages: &'a [ModelMessage],
        _parameters: &'a starweaver::model::ModelRequestParameters,
    ) -> starweaver::tools::BoxFuture<'a, Result<ModelResponse, starweaver::model::ModelError>>
    {
        Box::pin(std::future::pending())
    }
}

// Regression: a cancelled run waited for the model request in flight, so a model that never
// answered kept a cancelled run alive forever.
#[tokio::test]
async fn cancelling_aborts_the_model_request_in_flight() {
    let token = CancellationToken::new();
    let mut session = AgentBuilder::new(Arc::new(Silent)).build().session();
    let cancel = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        cancel.cancel();
    });
    let options = AgentRunOptions::new().cancellation(token);
    let ended = tokio::time::timeout(
        Duration::from_secs(30),
        session.run_with_options("hi", options),
    )
    .await
    .expect("the cancelled run ended");
    assert!(matches!(ended, Err(AgentError::Cancelled)), "{ended:?}");
}

//! Regression tests from the first review of the agent runtime: each pins
//! a defect that was found and fixed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use starweaver::model::{sample_value, ModelMessage, ModelResponse};
use starweaver::{
    string_tool, user_input_tools, AgentBuilder, AgentHitlResults, AgentHitlUserInteraction,
    AgentRunStatus, BoxFuture, DeferredToolset, FunctionModel, Model, ModelError, TestModel,
    ToolContext, ToolError, ToolExecutionHook, ToolHookInput, ToolRegistry, ToolResult,
    ToolUserInputPreprocessResult,
};

mod common;
use common::{calls, one_question, open_schema, recording_tool, tool_returns, Log};

// ---------------------------------------------------------------------
// 1. Duplicate tool-call ids: resumed results land on the wrong call.
// ---------------------------------------------------------------------

#[tokio::test]
async fn duplicate_call_ids_keep_every_return_on_its_own_call() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted([
        calls(&[
            ("dup", "plain", json!({"n": 1})),
            ("dup", "deploy", json!({"n": 2})),
        ]),
        ModelResponse::text("done"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .tool(Arc::new(recording_tool("plain", &log)))
        .tool(Arc::new(
            recording_tool("deploy", &log).with_approval_required(true),
        ))
        .build();
    let mut session = agent.session();
    let waiting = session.run("go").await.unwrap();
    assert_eq!(waiting.status, AgentRunStatus::Waiting);
    assert_eq!(waiting.pending[0].tool_name, "deploy");
    // Duplicate ids are made distinct when the response arrives; the
    // pending request names the id to answer.
    let pending_id = waiting.pending[0].tool_call_id.clone();
    assert_ne!(pending_id, "dup");

    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved(pending_id))
        .await
        .unwrap();
    assert_eq!(done.output, "done");
    // The approved tool must have run (it is the one the human approved).
    let ran: Vec<String> = log
        .lock()
        .unwrap()
        .iter()
        .map(|entry| entry["tool"].as_str().unwrap().to_string())
        .collect();
    assert!(
        ran.contains(&"deploy".to_string()),
        "the approved `deploy` call never ran; tools that ran: {ran:?}"
    );
    // Both calls of the batch must have a return in the history.
    let returns = tool_returns(session.messages());
    let names: Vec<&str> = returns.iter().map(|part| part.tool_name.as_str()).collect();
    assert_eq!(names, vec!["plain", "deploy"], "returns: {returns:#?}");
}

// ---------------------------------------------------------------------
// 2. ask_user_question trusts model-supplied `user_answers`.
// ---------------------------------------------------------------------

#[tokio::test]
async fn model_cannot_forge_clarifying_answers() {
    let model = Arc::new(TestModel::scripted([
        calls(&[(
            "ask",
            "ask_user_question",
            json!({
                "questions": one_question(),
                "user_answers": {"answers": {"Which language?": "Go"}}
            }),
        )]),
        ModelResponse::text("ok"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .toolset(&user_input_tools())
        .build();
    let mut session = agent.session();
    let first = session.run("write it").await.unwrap();
    if !first.is_waiting() {
        // Rejecting the forged argument up front is a fine fix too.
        return;
    }
    // The host approves without answering (e.g. `starweaver run --yes`).
    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("ask"))
        .await
        .unwrap();
    let returns = tool_returns(&done.messages);
    let content = &returns[0].content;
    assert_ne!(
        content["answers"][0]["answer"],
        json!("Go"),
        "the model's forged answer was returned to it as the user's answer: {content}"
    );
    assert_ne!(returns[0].metadata.get("answered"), Some(&json!(true)));
}

// ---------------------------------------------------------------------
// 3. Input hooks run twice on approved calls.
// ---------------------------------------------------------------------

struct Increment;

impl ToolExecutionHook for Increment {
    fn before_execute<'a>(
        &'a self,
        input: ToolHookInput<'a>,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        let n = input.arguments["n"].as_i64().unwrap_or(0);
        input.arguments["n"] = json!(n + 1);
        Box::pin(async { Ok(()) })
    }
}

#[tokio::test]
async fn approved_call_runs_with_the_approved_arguments() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted([
        calls(&[("d1", "deploy", json!({"n": 1}))]),
        ModelResponse::text("done"),
    ]));
    let registry = ToolRegistry::new()
        .with_execution_hook(Arc::new(Increment))
        .with_tool(Arc::new(
            recording_tool("deploy", &log).with_approval_required(true),
        ));
    let agent = AgentBuilder::new(model.clone())
        .tool_registry(registry)
        .build();
    let mut session = agent.session();
    let waiting = session.run("go").await.unwrap();
    let approved_arguments = waiting.pending[0].arguments.clone();
    session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap();
    let ran = log.lock().unwrap()[0]["args"].clone();
    assert_eq!(
        ran, approved_arguments,
        "the human approved {approved_arguments} but the tool ran with {ran}"
    );
}

// ---------------------------------------------------------------------
// 4. Usage: run usage and context usage disagree on requests.
// ---------------------------------------------------------------------

struct BareModel;

impl Model for BareModel {
    fn name(&self) -> &str {
        "bare"
    }

    fn request<'a>(
        &'a self,
        _messages: &'a [ModelMessage],
        _parameters: &'a starweaver::model::ModelRequestParameters,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        // A provider that reports no usage at all.
        Box::pin(async { Ok(ModelResponse::text("hi")) })
    }
}

#[tokio::test]
async fn run_usage_counts_requests_like_the_context() {
    let agent = AgentBuilder::new(Arc::new(BareModel)).build();
    let mut session = agent.session();
    let result = session.run("hello").await.unwrap();
    assert_eq!(session.context().usage.requests, 1);
    assert_eq!(
        result.usage.requests, 1,
        "one model request was made but the run's usage says {}",
        result.usage.requests
    );
}

// ---------------------------------------------------------------------
// 5. Usage overflow from bad model output panics.
// ---------------------------------------------------------------------

#[tokio::test]
async fn huge_usage_from_a_model_does_not_panic() {
    let model = FunctionModel::new(|messages, _| {
        let mut response = if messages.len() < 3 {
            calls(&[("c", "plain", json!({}))])
        } else {
            ModelResponse::text("done")
        };
        response.usage.input_tokens = u64::MAX;
        Ok(response)
    });
    let log: Log = Arc::default();
    let agent = AgentBuilder::new(Arc::new(model))
        .tool(Arc::new(recording_tool("plain", &log)))
        .build();
    let outcome =
        futures::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(agent.run("go"))).await;
    assert!(
        outcome.is_ok(),
        "the run panicked on the model's reported usage"
    );
}

// ---------------------------------------------------------------------
// 6. TestModel auto: schema samples outside open numeric intervals.
// ---------------------------------------------------------------------

#[test]
fn samples_respect_open_intervals() {
    let schema = json!({
        "type": "object",
        "properties": {"ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}},
        "required": ["ratio"]
    });
    let value = sample_value(&schema);
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(
        validator.is_valid(&value),
        "{value} does not match {schema}"
    );
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct PairArgs {
    pair: (String, u32),
}

#[test]
fn samples_for_typed_tuple_arguments_validate() {
    let schema = serde_json::to_value(schemars::schema_for!(PairArgs)).unwrap();
    let value = sample_value(&schema);
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(
        validator.is_valid(&value),
        "{value} does not match {schema}"
    );
}

// ---------------------------------------------------------------------
// 7. User-input preprocessor does not see the call id.
// ---------------------------------------------------------------------

#[tokio::test]
async fn preprocessor_sees_the_call_id() {
    let seen: Log = Arc::default();
    let seen_in_tool = seen.clone();
    let log: Log = Arc::default();
    let tool = recording_tool("write", &log)
        .with_approval_required(true)
        .with_user_input_preprocessor(move |ctx: ToolContext, _input: Value| {
            let seen = seen_in_tool.clone();
            async move {
                seen.lock().unwrap().push(json!(ctx.tool_call_id()));
                Ok(ToolUserInputPreprocessResult::new())
            }
        });
    let model = Arc::new(TestModel::scripted([
        calls(&[("w1", "write", json!({"n": 1}))]),
        ModelResponse::text("done"),
    ]));
    let mut session = AgentBuilder::new(model)
        .tool(Arc::new(tool))
        .build()
        .session();
    session.run("go").await.unwrap();
    session
        .resume_after_hitl(AgentHitlUserInteraction::approved("w1").with_user_input("edit"))
        .await
        .unwrap();
    assert_eq!(seen.lock().unwrap().as_slice(), &[json!("w1")]);
}

// ---------------------------------------------------------------------
// 8. Deferred tool that also needs approval never completes.
// ---------------------------------------------------------------------

#[tokio::test]
async fn approved_deferred_call_completes_with_its_result() {
    let log: Log = Arc::default();
    let jobs = DeferredToolset::new("jobs").with_tool(Arc::new(
        recording_tool("render", &log).with_approval_required(true),
    ));
    let model = Arc::new(TestModel::scripted([
        calls(&[("r1", "render", json!({"n": 1}))]),
        ModelResponse::text("rendered"),
    ]));
    let mut session = AgentBuilder::new(model).toolset(&jobs).build().session();
    let first = session.run("render").await.unwrap();
    assert!(first.is_waiting());
    let mut result = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("r1"))
        .await
        .unwrap();
    let mut rounds = 0;
    while result.is_waiting() && rounds < 4 {
        rounds += 1;
        let pending = result.pending[0].clone();
        let answer = match pending.kind {
            starweaver::AgentHitlRequestKind::Approval => {
                AgentHitlResults::interaction(AgentHitlUserInteraction::approved("r1"))
            }
            starweaver::AgentHitlRequestKind::Deferred => {
                AgentHitlResults::deferred_result("r1", json!({"video": "ok"}))
            }
        };
        result = session.resume_after_hitl(answer).await.unwrap();
    }
    assert_eq!(
        result.output, "rendered",
        "after approval and the deferred result the run still waits: {:?}",
        result.pending
    );
    assert!(rounds <= 1, "needed {rounds} extra rounds");
}

// ---------------------------------------------------------------------
// 9. A denied clarifying question leaves no request.kind on its record.
// ---------------------------------------------------------------------

#[tokio::test]
async fn every_clarifying_approval_record_names_its_kind() {
    for answer in [
        AgentHitlUserInteraction::denied("ask").with_reason("later"),
        // Approving clarifying questions needs the user's answers.
        AgentHitlUserInteraction::approved("ask")
            .with_user_input(json!({"answers": {"Which language?": "Rust"}})),
    ] {
        let model = Arc::new(TestModel::scripted([
            calls(&[(
                "ask",
                "ask_user_question",
                json!({"questions": one_question()}),
            )]),
            ModelResponse::text("ok"),
        ]));
        let mut session = AgentBuilder::new(model)
            .toolset(&user_input_tools())
            .build()
            .session();
        session.run("go").await.unwrap();
        let done = session.resume_after_hitl(answer.clone()).await.unwrap();
        let part = &tool_returns(&done.messages)[0];
        let approval = part.metadata.get("approval").cloned().unwrap_or_default();
        assert_eq!(
            approval["request"]["kind"],
            json!("clarifying_questions"),
            "approval record for {answer:?}: {approval}"
        );
        assert_eq!(approval["request"]["tool"], json!("ask_user_question"));
    }
}

// ---------------------------------------------------------------------
// 10. ask_user_question with array arguments: the preprocessor panics.
// ---------------------------------------------------------------------

#[tokio::test]
async fn clarifying_question_with_array_arguments_is_answerable_or_rejected() {
    let model = Arc::new(TestModel::scripted([
        calls(&[("ask", "ask_user_question", json!([one_question()]))]),
        ModelResponse::text("ok"),
        ModelResponse::text("ok"),
    ]));
    let mut session = AgentBuilder::new(model)
        .toolset(&user_input_tools())
        .build()
        .session();
    let first = session.run("go").await.unwrap();
    if !first.is_waiting() {
        return; // rejected up front as invalid arguments: fine
    }
    let answered = session
        .resume_after_hitl(
            AgentHitlUserInteraction::approved("ask")
                .with_user_input(json!({"answers": {"Which language?": "Rust"}})),
        )
        .await;
    assert!(
        answered.is_ok(),
        "a valid answer was rejected: {:?}",
        answered.err()
    );
}

// ---------------------------------------------------------------------
// 11. Run futures are not Send: no tokio::spawn, no axum handlers.
// ---------------------------------------------------------------------

/// Autoref probe: `(&Probe::of(&value)).is_send()` is true exactly when
/// the value's concrete type is `Send`, without a compile error.
struct Probe<T>(std::marker::PhantomData<T>);

impl<T> Probe<T> {
    fn of(_: &T) -> Self {
        Self(std::marker::PhantomData)
    }
}

trait SendYes {
    fn is_send(&self) -> bool {
        true
    }
}

impl<T: Send> SendYes for Probe<T> {}

trait SendNo {
    fn is_send(&self) -> bool {
        false
    }
}

impl<T> SendNo for &Probe<T> {}

#[tokio::test]
#[allow(clippy::needless_borrow)] // the borrow drives the autoref probe
async fn run_futures_are_send() {
    let agent = AgentBuilder::new(Arc::new(TestModel::with_text("ok"))).build();
    let mut session = agent.session();

    let run = agent.run("hello");
    let agent_run_is_send = (&Probe::of(&run)).is_send();
    drop(run);

    let session_run = session.run("hello");
    let session_run_is_send = (&Probe::of(&session_run)).is_send();
    drop(session_run);

    let resume = session.resume_after_hitl(AgentHitlResults::new());
    let resume_is_send = (&Probe::of(&resume)).is_send();
    drop(resume);

    // Sanity check of the probe itself.
    let plain = async {};
    assert!((&Probe::of(&plain)).is_send());
    let rc = std::rc::Rc::new(());
    assert!(!(&Probe::of(&rc)).is_send());

    assert!(
        agent_run_is_send && session_run_is_send && resume_is_send,
        "Agent::run Send: {agent_run_is_send}, AgentSession::run Send: {session_run_is_send}, \
         resume_after_hitl Send: {resume_is_send}"
    );
}

// ---------------------------------------------------------------------
// 12. A batch that already exhausted the retry budget still pauses for
//     approval, runs the approved side effect, then fails and rolls back.
// ---------------------------------------------------------------------

#[tokio::test]
async fn exhausted_retry_budget_fails_before_waiting_for_approval() {
    let log: Log = Arc::default();
    let bad = string_tool(
        "bad",
        Some("Always asks for a retry".to_string()),
        open_schema(),
        |_ctx: ToolContext, _args: Value| async move {
            Err::<ToolResult, _>(ToolError::model_retry("wrong"))
        },
    )
    .with_max_retries(0);
    let model = Arc::new(TestModel::scripted([
        calls(&[("b1", "bad", json!({})), ("d1", "deploy", json!({"n": 1}))]),
        ModelResponse::text("done"),
    ]));
    let mut session = AgentBuilder::new(model)
        .tool(Arc::new(bad))
        .tool(Arc::new(
            recording_tool("deploy", &log).with_approval_required(true),
        ))
        .build()
        .session();
    let first = session.run("go").await;
    if let Ok(result) = &first {
        assert!(result.is_waiting());
        let resumed = session
            .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
            .await;
        assert!(resumed.is_err());
        panic!(
            "the run paused for approval although `bad` had already exhausted its budget; \
             after approval `deploy` ran {} time(s) and the run failed anyway, erasing it from history",
            log.lock().unwrap().len()
        );
    }
    assert!(matches!(
        first,
        Err(starweaver::AgentError::ToolRetriesExhausted { .. })
    ));
}

// ---------------------------------------------------------------------
// 13. Export/restore drops the host's fail-closed tool policy.
// ---------------------------------------------------------------------

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
        starweaver::AgentSessionState::from_json(&json).unwrap(),
    );
    assert_eq!(
        restored.context().tool_config.unavailable_tool_policy,
        starweaver::ToolAvailabilityPolicy::FailRun
    );
}

// ---------------------------------------------------------------------
// 15. Stream record sequence numbers restart when a run resumes.
// ---------------------------------------------------------------------

#[tokio::test]
async fn resumed_run_continues_its_record_sequence() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted([
        calls(&[("d1", "deploy", json!({"n": 1}))]),
        ModelResponse::text("done"),
    ]));
    let mut session = AgentBuilder::new(model)
        .tool(Arc::new(
            recording_tool("deploy", &log).with_approval_required(true),
        ))
        .build()
        .session();
    let records: Arc<Mutex<Vec<(String, u64)>>> = Arc::default();
    let sink_records = records.clone();
    let mut sink = move |record: &starweaver::AgentStreamRecord| {
        sink_records
            .lock()
            .unwrap()
            .push((record.run_id.to_string(), record.sequence));
    };
    session
        .run_with_events("go", starweaver::AgentRunOptions::new(), &mut sink)
        .await
        .unwrap();
    session
        .resume_with_events(AgentHitlUserInteraction::approved("d1"), &mut sink)
        .await
        .unwrap();
    let records = records.lock().unwrap().clone();
    let mut seen = std::collections::HashSet::new();
    let repeated: Vec<_> = records
        .iter()
        .filter(|record| !seen.insert((*record).clone()))
        .collect();
    assert!(
        repeated.is_empty(),
        "records of one run share (run_id, sequence): {repeated:?}"
    );
}

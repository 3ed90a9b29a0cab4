//! Clarifying questions through `ask_user_question`: round trips,
//! plain-string answers, unknown questions, limits, the opt-in bundle and
//! export and restore.

use std::sync::Arc;

use serde_json::{json, Value};
use starweaver::agent::{
    Agent, AgentHitlRequestKind, AgentHitlUserInteraction, AgentRunStatus, AgentSessionState,
    AgentStreamRecord,
};
use starweaver::bundles::{
    user_input_tools, ASK_USER_QUESTION_TOOL_NAME, CLARIFYING_QUESTIONS_REQUEST_KIND,
};
use starweaver::model::{ModelResponse, RequestPart};
use starweaver::{AgentBuilder, AgentError, AgentSession, AgentStreamEvent, TestModel};

use crate::common::{
    call_response, calls, last_request_parts, one_question, tool_return, tool_returns,
};

fn language_question() -> Value {
    json!({
        "questions": [{
            "question": "Which language?",
            "header": "Language",
            "options": [
                {"label": "Rust", "description": "Systems language"},
                {"label": "Go", "description": "Simple and fast"}
            ],
            "multiSelect": false
        }]
    })
}

fn ask_agent(model: &Arc<TestModel>) -> Agent {
    AgentBuilder::new(model.clone())
        .toolset(&user_input_tools())
        .build()
}

async fn ask_and_wait(model: &Arc<TestModel>) -> AgentSession {
    let mut session = ask_agent(model).session();
    let waiting = session.run("write a tool").await.unwrap();
    assert_eq!(waiting.status, AgentRunStatus::Waiting);
    assert_eq!(waiting.pending.len(), 1);
    let request = &waiting.pending[0];
    assert_eq!(request.tool_call_id, "q1");
    assert_eq!(request.tool_name, ASK_USER_QUESTION_TOOL_NAME);
    assert_eq!(request.tool_name, "ask_user_question");
    assert_eq!(request.kind, AgentHitlRequestKind::Approval);
    assert_eq!(request.request_kind(), "clarifying_questions");
    assert_eq!(request.request_kind(), CLARIFYING_QUESTIONS_REQUEST_KIND);
    assert_eq!(request.arguments, language_question());
    assert_eq!(
        request.metadata["request"],
        json!({"kind": "clarifying_questions", "tool": "ask_user_question"})
    );
    session
}

fn ask_script() -> Vec<ModelResponse> {
    vec![
        call_response("q1", "ask_user_question", language_question()),
        ModelResponse::text("using the answer"),
    ]
}

#[tokio::test]
async fn clarifying_questions_round_trip_with_structured_answers() {
    let model = Arc::new(TestModel::scripted(ask_script()));
    let mut session = ask_and_wait(&model).await;

    let done = session
        .resume_after_hitl(
            AgentHitlUserInteraction::approved("q1").with_user_input(json!({
                "answers": {"Which language?": "Rust"},
                "response": "thanks"
            })),
        )
        .await
        .unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    assert_eq!(done.output, "using the answer");

    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let parts = last_request_parts(&requests[1]);
    let [RequestPart::ToolReturn(part)] = &parts[..] else {
        panic!("expected one tool return, got {parts:?}");
    };
    assert_eq!(part.tool_call_id, "q1");
    assert_eq!(part.tool_name, "ask_user_question");
    assert!(part.is_success(), "{part:?}");
    assert_eq!(
        part.content,
        json!({
            "answers": [{"question": "Which language?", "header": "Language", "answer": "Rust"}],
            "response": "thanks"
        })
    );
    let approval = &part.metadata["approval"];
    assert_eq!(approval["approved"], json!(true));
    assert_eq!(
        approval["answers"]["answers"]["Which language?"],
        json!("Rust")
    );
    assert_eq!(approval["answers"]["response"], json!("thanks"));
    assert_eq!(approval["questions"], language_question()["questions"]);
    assert_eq!(
        approval["request"]["kind"],
        json!(CLARIFYING_QUESTIONS_REQUEST_KIND)
    );
}

#[tokio::test]
async fn clarifying_questions_accept_a_plain_string_response() {
    let model = Arc::new(TestModel::scripted(ask_script()));
    let mut session = ask_and_wait(&model).await;
    let done = session
        .resume_after_hitl(
            AgentHitlUserInteraction::approved("q1").with_user_input(json!("Rust, please")),
        )
        .await
        .unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    let part = tool_return(&done.messages, "q1");
    assert!(part.is_success(), "{part:?}");
    assert_eq!(
        part.content,
        json!({
            "answers": [{"question": "Which language?", "header": "Language", "answer": null}],
            "response": "Rust, please"
        })
    );
    assert_eq!(
        part.metadata["approval"]["answers"]["response"],
        json!("Rust, please")
    );
}

#[tokio::test]
async fn clarifying_answer_to_an_unknown_question_keeps_the_session_waiting() {
    let model = Arc::new(TestModel::scripted(ask_script()));
    let mut session = ask_and_wait(&model).await;
    let pending_before = session.pending().to_vec();
    let mut records: Vec<AgentStreamRecord> = Vec::new();
    let mut sink = |record: &AgentStreamRecord| records.push(record.clone());
    let error = session
        .resume_with_events(
            AgentHitlUserInteraction::approved("q1")
                .with_user_input(json!({"answers": {"Which framework?": "Axum"}})),
            &mut sink,
        )
        .await
        .unwrap_err();
    match &error {
        AgentError::InvalidHitlInput {
            tool_call_id,
            tool,
            message,
        } => {
            assert_eq!(tool_call_id, "q1");
            assert_eq!(tool, "ask_user_question");
            assert!(message.contains("Which framework?"), "{message}");
        }
        other => panic!("expected InvalidHitlInput, got {other:?}"),
    }
    // Nothing ran, the model was not asked again, and the host can ask the
    // user again.
    assert!(records
        .iter()
        .all(|record| !matches!(record.event, AgentStreamEvent::ToolReturn { .. })));
    assert_eq!(model.requests().len(), 1);
    assert!(session.is_waiting());
    assert_eq!(session.pending(), pending_before.as_slice());

    let done = session
        .resume_after_hitl(
            AgentHitlUserInteraction::approved("q1")
                .with_user_input(json!({"answers": {"Which language?": "Rust"}})),
        )
        .await
        .unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    let parts = last_request_parts(&model.requests()[1]);
    match &parts[0] {
        RequestPart::ToolReturn(part) => {
            assert_eq!(part.tool_call_id, "q1");
            assert_eq!(part.content["answers"][0]["answer"], "Rust");
        }
        other => panic!("unexpected part {other:?}"),
    }
}

fn option(label: &str) -> Value {
    json!({"label": label, "description": ""})
}

fn question(text: &str, options: Vec<Value>) -> Value {
    json!({"question": text, "header": "Q", "options": options, "multiSelect": false})
}

#[tokio::test]
async fn ask_user_question_rejects_too_many_questions_or_too_few_options() {
    let five: Vec<Value> = (1..=5)
        .map(|n| question(&format!("Question {n}?"), vec![option("A"), option("B")]))
        .collect();
    for (arguments, expected) in [
        (json!({"questions": five}), "1 to 4 questions"),
        (
            json!({"questions": [question("Only one?", vec![option("A")])]}),
            "2 to 4 options",
        ),
        (json!({"questions": []}), "1 to 4 questions"),
    ] {
        let model = Arc::new(TestModel::scripted(vec![
            call_response("q1", "ask_user_question", arguments),
            ModelResponse::text("fixed"),
        ]));
        let mut session = ask_agent(&model).session();
        let result = session.run("ask").await.unwrap();
        assert_eq!(result.status, AgentRunStatus::Completed, "{expected}");
        assert!(!session.is_waiting());
        let parts = last_request_parts(&model.requests()[1]);
        let [RequestPart::RetryPrompt(prompt)] = &parts[..] else {
            panic!("expected one retry prompt, got {parts:?}");
        };
        assert_eq!(prompt.tool_call_id.as_deref(), Some("q1"));
        assert_eq!(prompt.tool_name.as_deref(), Some("ask_user_question"));
        assert!(
            prompt.content.contains(expected),
            "{expected}: {}",
            prompt.content
        );
    }
}

#[test]
fn user_input_tools_is_an_opt_in_bundle() {
    let without = AgentBuilder::new(Arc::new(TestModel::with_text("x"))).build();
    assert!(without.tool_registry().get("ask_user_question").is_none());

    let with = ask_agent(&Arc::new(TestModel::with_text("x")));
    assert_eq!(with.tool_registry().names(), vec!["ask_user_question"]);
    let definition = with
        .tool_registry()
        .definition("ask_user_question")
        .unwrap();
    assert!(definition.metadata.contains_key("starweaver_tool_kind"));
    // The runtime-filled answers never appear in the model-facing schema.
    assert!(definition.parameters["properties"]
        .get("user_answers")
        .is_none());
}

#[tokio::test]
async fn clarifying_questions_are_not_callable_without_the_bundle() {
    let model = Arc::new(TestModel::scripted(vec![
        call_response("q1", "ask_user_question", language_question()),
        ModelResponse::text("ok"),
    ]));
    let mut session = AgentBuilder::new(model.clone()).build().session();
    let result = session.run("ask").await.unwrap();
    assert_eq!(result.status, AgentRunStatus::Completed);
    assert!(model.requests()[0].parameters.tools.is_empty());
    let parts = last_request_parts(&model.requests()[1]);
    assert!(
        matches!(&parts[..], [RequestPart::RetryPrompt(prompt)] if prompt.content.contains("unknown tool"))
    );
}

#[tokio::test]
async fn clarifying_questions_survive_export_and_restore() {
    let first_model = Arc::new(TestModel::scripted(ask_script()));
    let session = ask_and_wait(&first_model).await;
    let json = session.export_state().to_json().unwrap();
    drop(session);

    let second_model = Arc::new(TestModel::scripted(vec![ModelResponse::text("Rust it is")]));
    let mut restored = AgentSession::restore(
        ask_agent(&second_model),
        AgentSessionState::from_json(&json).unwrap(),
    );
    assert_eq!(restored.pending()[0].request_kind(), "clarifying_questions");
    let done = restored
        .resume_after_hitl(
            AgentHitlUserInteraction::approved("q1")
                .with_user_input(json!({"answers": {"Which language?": "Rust"}})),
        )
        .await
        .unwrap();
    assert_eq!(done.output, "Rust it is");
    let part = tool_return(&done.messages, "q1");
    assert_eq!(part.content["answers"][0]["answer"], json!("Rust"));
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: ask_user_question trusted model-supplied `user_answers`.
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

// Regression: a denied clarifying question left no request.kind on its record.
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

// Regression: ask_user_question with array arguments panicked in its preprocessor.
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

// Regression: approving clarifying questions without answers did not keep the run waiting.
#[tokio::test]
async fn approving_clarifying_questions_without_answers_keeps_waiting() {
    let model = Arc::new(TestModel::scripted(vec![
        call_response(
            "q1",
            "ask_user_question",
            json!({"questions": one_question()}),
        ),
        ModelResponse::text("ok"),
    ]));
    let mut session = AgentBuilder::new(model.clone())
        .toolset(&user_input_tools())
        .build()
        .session();
    let waiting = session.run("go").await.unwrap();
    assert!(waiting.is_waiting());

    // The host approved but forgot the answers.
    let outcome = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("q1"))
        .await;
    // agent-runtime.md: "a wrong or missing answer leaves the session
    // waiting". Today the tool runs and the model receives a successful
    // return in which every answer is null.
    match outcome {
        Err(AgentError::InvalidHitlInput { .. }) => assert!(session.is_waiting()),
        other => panic!(
            "expected InvalidHitlInput, got {:?}",
            other.map(|result| crate::common::tool_returns(&result.messages))
        ),
    }
    assert_eq!(model.requests().len(), 1, "the model was asked again");
}

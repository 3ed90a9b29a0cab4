//! Human-in-the-loop runs: approvals (approved, denied, with user input),
//! resume errors, clarifying questions through `ask_user_question`, and
//! deferred and approval round trips across export and restore.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use starweaver::model::{ModelResponse, RequestPart, ToolCallPart};
use starweaver::{
    normalize_clarifying_question_answers, resolve_clarifying_question_answers, string_tool,
    typed_tool, user_input_tools, Agent, AgentBuilder, AgentError, AgentHitlRequestKind,
    AgentHitlResults, AgentHitlUserInteraction, AgentRunStatus, AgentSession, AgentSessionState,
    AgentStreamEvent, AgentStreamRecord, ClarifyingQuestion, ClarifyingQuestionAnswers,
    ClarifyingQuestionOption, DeferredToolset, TestModel, ToolContext, ToolError, ToolResult,
    ToolUserInputPreprocessResult, ASK_USER_QUESTION_TOOL_NAME, CLARIFYING_QUESTIONS_REQUEST_KIND,
};

mod common;
use common::{
    call_response, deploy_agent, deploy_script, deploy_tool, last_request_parts, open_schema,
    tool_return, Log,
};

// ---------------------------------------------------------------------
// Approvals
// ---------------------------------------------------------------------

#[tokio::test]
async fn approved_call_runs_after_resume() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted(deploy_script("deployed")));
    let mut session = deploy_agent(&model, &log).session();

    let waiting = session.run("deploy the api").await.unwrap();
    assert_eq!(waiting.status, AgentRunStatus::Waiting);
    assert!(waiting.is_waiting());
    assert_eq!(waiting.output, "");
    assert_eq!(waiting.pending.len(), 1);
    let request = &waiting.pending[0];
    assert_eq!(request.tool_call_id, "d1");
    assert_eq!(request.tool_name, "deploy");
    assert_eq!(request.kind, AgentHitlRequestKind::Approval);
    assert_eq!(request.request_kind(), "tool_approval");
    assert_eq!(request.arguments, json!({"service": "api"}));
    assert!(log.lock().unwrap().is_empty(), "the tool must not run yet");
    assert!(session.is_waiting());
    assert_eq!(session.pending(), waiting.pending.as_slice());
    assert_eq!(model.requests().len(), 1);

    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    assert_eq!(done.output, "deployed");
    assert!(done.pending.is_empty());
    assert!(!session.is_waiting());
    assert_eq!(*log.lock().unwrap(), vec![json!({"service": "api"})]);

    let part = tool_return(&done.messages, "d1");
    assert!(part.is_success(), "{part:?}");
    assert_eq!(part.content, json!({"deployed": "api"}));
    assert_eq!(part.metadata["approval"]["approved"], json!(true));
    // Exactly one return for the call, and the model saw it.
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert!(matches!(
        &last_request_parts(&requests[1])[..],
        [RequestPart::ToolReturn(sent)] if sent.tool_call_id == "d1" && sent.content == part.content
    ));
}

#[tokio::test]
async fn denied_call_never_runs_and_the_model_is_told() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted(deploy_script("not deployed")));
    let mut session = deploy_agent(&model, &log).session();

    let waiting = session.run("deploy the api").await.unwrap();
    assert!(waiting.is_waiting());
    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::denied("d1").with_reason("no"))
        .await
        .unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    assert_eq!(done.output, "not deployed");
    assert!(log.lock().unwrap().is_empty());

    let part = tool_return(&done.messages, "d1");
    assert_eq!(part.metadata["approval"]["approved"], json!(false));
    let message = part.content["message"].as_str().unwrap();
    assert!(message.contains("denied"), "{message}");
    assert!(message.contains("no"), "{message}");
    let requests = model.requests();
    assert!(matches!(
        &last_request_parts(&requests[1])[..],
        [RequestPart::ToolReturn(sent)] if sent.tool_call_id == "d1" && sent.content["message"] == json!(message)
    ));
}

#[tokio::test]
async fn user_input_preprocessor_overrides_arguments() {
    let log: Log = Arc::default();
    let tool = deploy_tool(&log).with_user_input_preprocessor(
        |_ctx: ToolContext, user_input: Value| async move {
            Ok(ToolUserInputPreprocessResult::new()
                .with_override_arguments(user_input)
                .with_approval_metadata("edited", json!(true)))
        },
    );
    let model = Arc::new(TestModel::scripted(deploy_script("deployed")));
    let mut session = AgentBuilder::new(model.clone())
        .tool(Arc::new(tool))
        .build()
        .session();

    session.run("deploy").await.unwrap();
    let done = session
        .resume_after_hitl(
            AgentHitlUserInteraction::approved("d1").with_user_input(json!({"service": "web"})),
        )
        .await
        .unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    assert_eq!(*log.lock().unwrap(), vec![json!({"service": "web"})]);
    let part = tool_return(&done.messages, "d1");
    assert_eq!(part.content, json!({"deployed": "web"}));
    assert_eq!(part.metadata["approval"]["approved"], json!(true));
    assert_eq!(part.metadata["approval"]["edited"], json!(true));
}

#[tokio::test]
async fn user_input_without_preprocessor_is_recorded_on_the_approval() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted(deploy_script("deployed")));
    let mut session = deploy_agent(&model, &log).session();
    session.run("deploy").await.unwrap();
    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1").with_user_input(json!("lgtm")))
        .await
        .unwrap();
    assert_eq!(*log.lock().unwrap(), vec![json!({"service": "api"})]);
    let part = tool_return(&done.messages, "d1");
    assert_eq!(part.metadata["approval"]["user_input"], json!("lgtm"));
}

#[tokio::test]
async fn resume_errors_leave_the_session_waiting() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted(deploy_script("deployed")));
    let mut session = deploy_agent(&model, &log).session();

    // Not waiting yet.
    let error = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap_err();
    assert!(matches!(error, AgentError::NotWaiting), "{error:?}");

    let waiting = session.run("deploy").await.unwrap();
    let pending = waiting.pending.clone();
    let messages = session.messages().to_vec();

    // An answer for a call that is not pending.
    let error = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("nope"))
        .await
        .unwrap_err();
    match &error {
        AgentError::UnknownHitlResult {
            tool_call_id,
            pending,
        } => {
            assert_eq!(tool_call_id, "nope");
            assert!(pending.contains("d1"), "{pending}");
        }
        other => panic!("expected UnknownHitlResult, got {other:?}"),
    }
    assert!(session.is_waiting());
    assert_eq!(session.pending(), pending.as_slice());

    // No answer at all.
    let error = session
        .resume_after_hitl(AgentHitlResults::new())
        .await
        .unwrap_err();
    assert!(
        matches!(&error, AgentError::MissingHitlResult { tool_call_id } if tool_call_id == "d1"),
        "{error:?}"
    );
    assert!(session.is_waiting());
    assert_eq!(session.pending(), pending.as_slice());

    // A deferred result for an approval is not an answer for it either.
    let error = session
        .resume_after_hitl(AgentHitlResults::deferred_result("d1", json!({})))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, AgentError::MissingHitlResult { tool_call_id } if tool_call_id == "d1"),
        "{error:?}"
    );

    // A new prompt while waiting.
    let error = session.run("something else").await.unwrap_err();
    assert!(
        matches!(error, AgentError::SessionWaiting { pending: 1 }),
        "{error:?}"
    );
    assert!(session.is_waiting());
    assert_eq!(session.pending(), pending.as_slice());
    assert_eq!(session.messages(), messages.as_slice());
    assert!(log.lock().unwrap().is_empty());
    assert_eq!(model.requests().len(), 1);

    // The session still resumes normally afterwards.
    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    assert_eq!(log.lock().unwrap().len(), 1);

    // And is not waiting any more.
    let error = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap_err();
    assert!(matches!(error, AgentError::NotWaiting), "{error:?}");
}

#[tokio::test]
async fn approval_and_plain_call_in_one_response() {
    // The plain call runs at once; its return is kept while the run waits
    // and both returns reach the model in model order after the resume.
    let log: Log = Arc::default();
    let plain_log: Log = Arc::default();
    let plain_runs = plain_log.clone();
    let plain = string_tool(
        "status",
        Some("Reads status".to_string()),
        open_schema(),
        move |_ctx: ToolContext, _args: Value| {
            let log = plain_runs.clone();
            async move {
                log.lock().unwrap().push(json!("ran"));
                Ok(ToolResult::new(json!({"status": "green"})))
            }
        },
    );
    let model = Arc::new(TestModel::scripted(vec![
        ModelResponse::tool_calls([
            ToolCallPart::new("d1", "deploy", json!({"service": "api"})),
            ToolCallPart::new("s1", "status", json!({})),
        ]),
        ModelResponse::text("both done"),
    ]));
    let mut session = AgentBuilder::new(model.clone())
        .tool(Arc::new(deploy_tool(&log)))
        .tool(Arc::new(plain))
        .build()
        .session();
    let waiting = session.run("go").await.unwrap();
    assert_eq!(waiting.pending.len(), 1);
    assert_eq!(waiting.pending[0].tool_call_id, "d1");
    assert_eq!(plain_log.lock().unwrap().len(), 1);

    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap();
    assert_eq!(done.output, "both done");
    assert_eq!(plain_log.lock().unwrap().len(), 1, "status must not rerun");
    let parts = last_request_parts(&model.requests()[1]);
    let ids: Vec<&str> = parts
        .iter()
        .map(|part| match part {
            RequestPart::ToolReturn(part) => part.tool_call_id.as_str(),
            other => panic!("unexpected part {other:?}"),
        })
        .collect();
    assert_eq!(ids, ["d1", "s1"]);
}

// ---------------------------------------------------------------------
// Clarifying questions
// ---------------------------------------------------------------------

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

fn clarifying(question: &str, labels: &[&str], multi: bool) -> ClarifyingQuestion {
    ClarifyingQuestion {
        question: question.to_string(),
        header: "H".to_string(),
        options: labels
            .iter()
            .map(|label| ClarifyingQuestionOption {
                label: (*label).to_string(),
                description: String::new(),
            })
            .collect(),
        multi_select: multi,
    }
}

#[test]
fn normalize_and_resolve_clarifying_answers() {
    let questions = vec![
        clarifying("Which languages?", &["Rust", "Go", "Zig"], true),
        clarifying("Which editor?", &["Vim", "Emacs"], false),
    ];

    // Multi-select arrays are joined with ", ".
    let answers = normalize_clarifying_question_answers(
        &questions,
        &json!({"answers": {"Which languages?": ["Rust", "Go"]}, "response": "ok"}),
    )
    .unwrap();
    assert_eq!(
        answers.answers.get("Which languages?").map(String::as_str),
        Some("Rust, Go")
    );
    assert_eq!(answers.response.as_deref(), Some("ok"));

    // An object without `answers` is the answers map itself.
    let bare = normalize_clarifying_question_answers(
        &questions,
        &json!({"Which editor?": "Vim", "response": "fine"}),
    )
    .unwrap();
    assert_eq!(
        bare.answers.get("Which editor?").map(String::as_str),
        Some("Vim")
    );
    assert_eq!(bare.response.as_deref(), Some("fine"));

    // A plain string is a global response.
    let text = normalize_clarifying_question_answers(&questions, &json!("whatever")).unwrap();
    assert!(text.answers.is_empty());
    assert_eq!(text.response.as_deref(), Some("whatever"));

    // Invalid inputs are InvalidArguments.
    for input in [
        json!({"answers": {"Unknown?": "x"}}),
        json!({"answers": {"Which editor?": 3}}),
        json!({"answers": "Vim"}),
        json!({}),
        json!(42),
        json!({"answers": {"Which editor?": "Vim"}, "response": 5}),
    ] {
        let error = normalize_clarifying_question_answers(&questions, &input).unwrap_err();
        assert!(
            matches!(error, ToolError::InvalidArguments { ref tool, .. } if tool == "ask_user_question"),
            "{input}: {error:?}"
        );
    }

    // Resolve: every question in order, unanswered ones as null.
    let resolved = resolve_clarifying_question_answers(&questions, &answers);
    assert_eq!(
        resolved,
        json!({
            "answers": [
                {"question": "Which languages?", "header": "H", "answer": "Rust, Go"},
                {"question": "Which editor?", "header": "H", "answer": null}
            ],
            "response": "ok"
        })
    );
    let empty =
        resolve_clarifying_question_answers(&questions, &ClarifyingQuestionAnswers::default());
    assert_eq!(empty["response"], Value::Null);
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

// ---------------------------------------------------------------------
// Deferred calls and durable sessions
// ---------------------------------------------------------------------

#[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
struct RenderArgs {
    /// Scene to render.
    scene: String,
}

fn jobs_agent(model: &Arc<TestModel>, ran: &Log) -> Agent {
    let ran = ran.clone();
    let render = typed_tool::<RenderArgs, _, _>(
        "render_video",
        Some("Render a video scene".to_string()),
        move |_ctx: ToolContext, args: RenderArgs| {
            let ran = ran.clone();
            async move {
                ran.lock().unwrap().push(json!(args.scene));
                Ok(ToolResult::new(json!({"inline": true})))
            }
        },
    );
    AgentBuilder::new(model.clone())
        .toolset(&Arc::new(
            DeferredToolset::new("jobs").with_tool(Arc::new(render)),
        ))
        .build()
}

#[tokio::test]
async fn deferred_round_trip_across_export_and_restore() {
    let ran: Log = Arc::default();
    let first_model = Arc::new(TestModel::scripted(vec![
        call_response("r1", "render_video", json!({"scene": "intro"})),
        ModelResponse::text("unused by the first process"),
    ]));
    let mut session = jobs_agent(&first_model, &ran).session();
    session.context_mut().notes.set("job_owner", "alice");

    let waiting = session.run("render the intro").await.unwrap();
    assert_eq!(waiting.status, AgentRunStatus::Waiting);
    assert_eq!(waiting.pending.len(), 1);
    let request = &waiting.pending[0];
    assert_eq!(request.tool_call_id, "r1");
    assert_eq!(request.tool_name, "render_video");
    assert_eq!(request.kind, AgentHitlRequestKind::Deferred);
    assert_eq!(request.request_kind(), "deferred_call");
    assert_eq!(request.arguments, json!({"scene": "intro"}));

    let state = session.export_state();
    assert_eq!(state.version, AgentSessionState::VERSION);
    assert_eq!(state.pending(), waiting.pending.as_slice());
    let json = state.to_json().unwrap();
    drop(session);
    drop(first_model);

    // A fresh process: same agent shape, new model whose script starts at
    // the post-resume response.
    let second_model = Arc::new(TestModel::scripted(vec![ModelResponse::text(
        "video ready",
    )]));
    let restored_state = AgentSessionState::from_json(&json).unwrap();
    let mut restored = AgentSession::restore(jobs_agent(&second_model, &ran), restored_state);
    assert!(restored.is_waiting());
    assert_eq!(restored.pending(), waiting.pending.as_slice());
    assert_eq!(restored.context().notes.get("job_owner"), Some("alice"));

    let done = restored
        .resume_after_hitl(AgentHitlResults::deferred_result(
            "r1",
            json!({"url": "https://cdn.example/intro.mp4"}),
        ))
        .await
        .unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    assert_eq!(done.output, "video ready");
    assert!(!restored.is_waiting());
    assert!(
        ran.lock().unwrap().is_empty(),
        "a deferred tool's own body never runs"
    );

    let part = tool_return(&done.messages, "r1");
    assert!(part.is_success(), "{part:?}");
    assert_eq!(part.tool_name, "render_video");
    assert_eq!(
        part.content,
        json!({"url": "https://cdn.example/intro.mp4"})
    );
    let requests = second_model.requests();
    assert_eq!(requests.len(), 1);
    let parts = last_request_parts(&requests[0]);
    assert!(matches!(
        &parts[..],
        [RequestPart::ToolReturn(sent)] if sent.tool_call_id == "r1" && sent.content == part.content
    ));
    // The whole conversation came along: prompt, call, return, answer.
    assert_eq!(done.messages.len(), 4);
    assert_eq!(restored.context().notes.get("job_owner"), Some("alice"));
}

#[tokio::test]
async fn deferred_call_with_invalid_arguments_is_a_retry_not_a_wait() {
    let ran: Log = Arc::default();
    let model = Arc::new(TestModel::scripted(vec![
        call_response("r1", "render_video", json!({"scen": "typo"})),
        ModelResponse::text("fixed"),
    ]));
    let mut session = jobs_agent(&model, &ran).session();
    let result = session.run("render").await.unwrap();
    assert_eq!(result.status, AgentRunStatus::Completed);
    let parts = last_request_parts(&model.requests()[1]);
    assert!(matches!(
        &parts[..],
        [RequestPart::RetryPrompt(prompt)] if prompt.tool_call_id.as_deref() == Some("r1")
    ));
}

#[tokio::test]
async fn approval_round_trip_across_export_and_restore() {
    let first_log: Log = Arc::default();
    let first_model = Arc::new(TestModel::scripted(deploy_script("unused")));
    let mut session = deploy_agent(&first_model, &first_log).session();
    session.context_mut().notes.set("ticket", "OPS-1");
    let waiting = session.run("deploy").await.unwrap();
    assert_eq!(waiting.pending[0].request_kind(), "tool_approval");
    let json = session.export_state().to_json().unwrap();
    drop(session);

    let second_log: Log = Arc::default();
    let second_model = Arc::new(TestModel::scripted(vec![ModelResponse::text("deployed")]));
    let mut restored = AgentSession::restore(
        deploy_agent(&second_model, &second_log),
        AgentSessionState::from_json(&json).unwrap(),
    );
    assert!(restored.is_waiting());
    assert_eq!(restored.pending(), waiting.pending.as_slice());

    // Resume errors behave the same on a restored session.
    assert!(matches!(
        restored
            .resume_after_hitl(AgentHitlUserInteraction::approved("other"))
            .await,
        Err(AgentError::UnknownHitlResult { .. })
    ));
    assert!(restored.is_waiting());

    let done = restored
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    assert_eq!(done.output, "deployed");
    assert!(first_log.lock().unwrap().is_empty());
    assert_eq!(*second_log.lock().unwrap(), vec![json!({"service": "api"})]);
    let part = tool_return(&done.messages, "d1");
    assert_eq!(part.content, json!({"deployed": "api"}));
    assert_eq!(part.metadata["approval"]["approved"], json!(true));
    assert_eq!(restored.context().notes.get("ticket"), Some("OPS-1"));
    assert_eq!(second_model.requests().len(), 1);
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

// ---------------------------------------------------------------------
// More approval shapes
// ---------------------------------------------------------------------

#[tokio::test]
async fn several_approvals_are_answered_together() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted(vec![
        ModelResponse::tool_calls([
            ToolCallPart::new("d1", "deploy", json!({"service": "api"})),
            ToolCallPart::new("d2", "deploy", json!({"service": "db"})),
        ]),
        ModelResponse::text("partly deployed"),
    ]));
    let mut session = deploy_agent(&model, &log).session();
    let waiting = session.run("deploy both").await.unwrap();
    let ids: Vec<&str> = waiting
        .pending
        .iter()
        .map(|request| request.tool_call_id.as_str())
        .collect();
    assert_eq!(ids, ["d1", "d2"]);

    // Answering only one of them is refused.
    let error = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, AgentError::MissingHitlResult { tool_call_id } if tool_call_id == "d2"),
        "{error:?}"
    );
    assert_eq!(session.pending().len(), 2);

    let done = session
        .resume_after_hitl(vec![
            AgentHitlUserInteraction::denied("d2"),
            AgentHitlUserInteraction::approved("d1"),
        ])
        .await
        .unwrap();
    assert_eq!(done.output, "partly deployed");
    assert_eq!(*log.lock().unwrap(), vec![json!({"service": "api"})]);
    let parts = last_request_parts(&model.requests()[1]);
    let summary: Vec<(String, Value)> = parts
        .iter()
        .map(|part| match part {
            RequestPart::ToolReturn(part) => (
                part.tool_call_id.clone(),
                part.metadata["approval"]["approved"].clone(),
            ),
            other => panic!("unexpected part {other:?}"),
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            ("d1".to_string(), json!(true)),
            ("d2".to_string(), json!(false))
        ]
    );
}

#[tokio::test]
async fn run_scoped_approval_tool_and_params_survive_the_wait() {
    let log: Log = Arc::default();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen_in_tool = seen.clone();
    let tool = string_tool(
        "scoped_deploy",
        Some("Run-scoped deploy".to_string()),
        open_schema(),
        move |ctx: ToolContext, _args: Value| {
            let seen = seen_in_tool.clone();
            async move {
                let handle = ctx
                    .dependency::<starweaver::AgentContextHandle>()
                    .ok_or_else(|| ToolError::user_error("no handle"))?;
                seen.lock()
                    .unwrap()
                    .push(handle.read(|context| context.metadata.get("tenant").cloned()));
                Ok(ToolResult::new(json!({"ok": true})))
            }
        },
    )
    .with_approval_required(true);
    let model = Arc::new(TestModel::scripted(vec![
        call_response("s1", "scoped_deploy", json!({})),
        ModelResponse::text("done"),
    ]));
    let mut session = deploy_agent(&model, &log).session();
    let mut params = starweaver::JsonMap::new();
    params.insert("tenant".to_string(), json!("acme"));
    let waiting = session
        .run_with_options(
            "go",
            starweaver::AgentRunOptions::new()
                .tool(Arc::new(tool))
                .params(params),
        )
        .await
        .unwrap();
    assert!(waiting.is_waiting());
    assert!(!session.context().metadata.contains_key("tenant"));

    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("s1"))
        .await
        .unwrap();
    assert_eq!(done.output, "done");
    assert_eq!(*seen.lock().unwrap(), vec![Some(json!("acme"))]);
    assert_eq!(
        tool_return(&done.messages, "s1").content,
        json!({"ok": true})
    );
    assert!(!session.context().metadata.contains_key("tenant"));
    // The resumed request still offered the run-scoped tool.
    let names: Vec<String> = model.requests()[1]
        .parameters
        .tools
        .iter()
        .map(|tool| tool.name.clone())
        .collect();
    assert!(names.contains(&"scoped_deploy".to_string()), "{names:?}");
}

#[tokio::test]
async fn restoring_onto_an_agent_without_the_tool_names_the_missing_tool() {
    let log: Log = Arc::default();
    let first_model = Arc::new(TestModel::scripted(deploy_script("unused")));
    let mut session = deploy_agent(&first_model, &log).session();
    session.run("deploy").await.unwrap();
    let json = session.export_state().to_json().unwrap();

    let second_model = Arc::new(TestModel::scripted(vec![ModelResponse::text("gone")]));
    let mut restored = AgentSession::restore(
        AgentBuilder::new(second_model.clone()).build(),
        AgentSessionState::from_json(&json).unwrap(),
    );
    let error = restored
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, AgentError::MissingTool { tool_call_id, tool } if tool_call_id == "d1" && tool == "deploy"),
        "{error:?}"
    );
    // Nothing ran, the model was not asked, and the session still waits.
    assert!(log.lock().unwrap().is_empty());
    assert!(second_model.requests().is_empty());
    assert!(restored.is_waiting());
}

#[tokio::test]
async fn a_failing_resume_ends_the_paused_run_and_keeps_it_marked_failed() {
    let log: Log = Arc::default();
    // No response scripted after the approval.
    let model = Arc::new(TestModel::scripted(vec![call_response(
        "d1",
        "deploy",
        json!({"service": "api"}),
    )]));
    let mut session = deploy_agent(&model, &log).session();
    session.run("deploy").await.unwrap();
    assert!(session.is_waiting());
    let error = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap_err();
    assert!(matches!(error, AgentError::Model(_)), "{error:?}");
    assert!(!session.is_waiting());
    // The whole paused run stays: prompt, call and the approved return.
    assert_eq!(session.messages().len(), 3);
    assert!(tool_return(session.messages(), "d1").is_success());
    assert_eq!(session.failed_run().unwrap().first_message, 0);
    assert_eq!(log.lock().unwrap().len(), 1);
    assert!(matches!(
        session
            .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
            .await,
        Err(AgentError::NotWaiting)
    ));
}

#[tokio::test]
async fn waiting_run_is_reported_in_the_stream() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted(deploy_script("deployed")));
    let mut session = deploy_agent(&model, &log).session();
    let stream = session.run_stream("deploy").await.unwrap();
    assert!(stream.result().is_waiting());
    let waiting: Vec<_> = stream
        .events()
        .iter()
        .filter_map(|record| match &record.event {
            AgentStreamEvent::Waiting { requests } => Some(requests.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(waiting, vec![stream.result().pending.clone()]);
    assert!(!stream
        .events()
        .iter()
        .any(|record| matches!(record.event, AgentStreamEvent::RunCompleted { .. })));
    assert_eq!(
        waiting[0][0].metadata["request"],
        json!({"kind": "tool_approval", "tool": "deploy"})
    );
}

//! Normalizing and resolving clarifying answers: what a user answered is
//! never dropped, and input that answers nothing or too much is refused.

use serde_json::{json, Value};
use starweaver::bundles::{
    normalize_clarifying_question_answers, resolve_clarifying_question_answers, ClarifyingQuestion,
    ClarifyingQuestionAnswers, ClarifyingQuestionOption,
};
use starweaver::ToolError;

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

/// Two clarifying questions: a multi-select and a single-select one.
fn two_questions() -> Vec<ClarifyingQuestion> {
    serde_json::from_value(json!([
        {
            "question": "Which languages?",
            "header": "Languages",
            "options": [{"label": "Rust"}, {"label": "Go"}, {"label": "Zig"}],
            "multiSelect": true
        },
        {
            "question": "Which editor?",
            "header": "Editor",
            "options": [{"label": "Vim"}, {"label": "Emacs"}],
            "multiSelect": false
        }
    ]))
    .unwrap()
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: answers beside the `answers` map were dropped silently.
#[test]
fn clarifying_input_never_drops_what_the_user_answered() {
    let questions = two_questions();
    // The user answered both questions, one inside `answers` and one at
    // the top level (the bare form the docs also accept).
    let mixed = json!({
        "answers": {"Which editor?": "Vim"},
        "Which languages?": ["Rust", "Go"]
    });
    match normalize_clarifying_question_answers(&questions, &mixed) {
        Err(_) => {}
        Ok(answers) => assert!(
            answers.answers.contains_key("Which languages?"),
            "the answer to `Which languages?` was dropped: {answers:?}"
        ),
    }
    // A misspelt `response`: unknown keys are errors in the bare form,
    // but vanish when `answers` is present.
    let typo = json!({"answers": {"Which editor?": "Vim"}, "respones": "use Vim keybindings"});
    let result = normalize_clarifying_question_answers(&questions, &typo);
    assert!(
        result.is_err(),
        "the user's response under `respones` was dropped: {result:?}"
    );
}

// Regression: clarifying input that answered nothing was accepted.
#[test]
fn clarifying_input_that_answers_nothing_is_rejected() {
    let questions = two_questions();
    // The function's own contract: InvalidArguments for "input that
    // answers nothing".
    for input in [
        json!(""),
        json!("   "),
        json!({"response": ""}),
        json!({"answers": {"Which editor?": ""}}),
        json!({"answers": {"Which languages?": []}}),
        json!({"answers": {}, "response": "  "}),
    ] {
        let result = normalize_clarifying_question_answers(&questions, &input);
        assert!(result.is_err(), "{input} was accepted as {result:?}");
    }
}

// Regression: a single-select question accepted several labels.
#[test]
fn single_select_question_rejects_several_labels() {
    let questions = two_questions();
    let input = json!({"answers": {"Which editor?": ["Vim", "Emacs"]}});
    let result = normalize_clarifying_question_answers(&questions, &input);
    // Arrays are the multi-select form (agent-runtime.md: "multi-select
    // answers may also be arrays of labels"); `Which editor?` is not
    // multi-select.
    assert!(result.is_err(), "accepted as {result:?}");
}

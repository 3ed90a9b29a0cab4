//! Normalising user answers to clarifying questions, shared by the tool
//! and by durable hosts that validate answers themselves.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::ClarifyingQuestion;
use crate::tools::ToolError;

/// Answers keyed by exact question text, plus an optional free-form
/// response for all questions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClarifyingQuestionAnswers {
    /// Answer per question text (multi-select labels joined with ", ").
    #[serde(default)]
    pub answers: BTreeMap<String, String>,
    /// Global free-form response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
}

fn invalid(message: String) -> ToolError {
    ToolError::invalid_arguments("ask_user_question", message)
}

fn answer_text(question: &str, value: &Value) -> Result<String, ToolError> {
    match value {
        Value::String(text) => Ok(text.clone()),
        Value::Array(items) => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| invalid(format!("the answer to `{question}` must be text")))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|labels| labels.join(", ")),
        _ => Err(invalid(format!("the answer to `{question}` must be text"))),
    }
}

/// Validates user input against the questions and returns canonical
/// answers.
///
/// Accepted input: a JSON string (a free-form response to all questions),
/// or an object `{"answers": {"<question>": "<answer>"}, "response": "..."}`;
/// an object without `answers` is read as the answers map itself (with an
/// optional `response` key). Multi-select answers may also be arrays of
/// labels; they are joined with ", ".
///
/// # Errors
/// [`ToolError::InvalidArguments`] for answers to unknown questions,
/// non-text answers, or input that answers nothing.
pub fn normalize_clarifying_question_answers(
    questions: &[ClarifyingQuestion],
    user_input: &Value,
) -> Result<ClarifyingQuestionAnswers, ToolError> {
    let object = match user_input {
        Value::String(text) => {
            return Ok(ClarifyingQuestionAnswers {
                answers: BTreeMap::new(),
                response: Some(text.clone()),
            })
        }
        Value::Object(object) => object,
        _ => {
            return Err(invalid(
                "user input must be a string or an object of answers".to_string(),
            ))
        }
    };
    let response = match object.get("response") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(text.clone()),
        Some(_) => return Err(invalid("`response` must be text".to_string())),
    };
    let answers_value = match object.get("answers") {
        Some(Value::Object(answers)) => answers.clone(),
        Some(_) => {
            return Err(invalid(
                "`answers` must be an object keyed by question text".to_string(),
            ))
        }
        None => object
            .iter()
            .filter(|(key, _)| key.as_str() != "response")
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect(),
    };
    let mut answers = BTreeMap::new();
    for (question, value) in &answers_value {
        if !questions.iter().any(|known| &known.question == question) {
            let known: Vec<&str> = questions
                .iter()
                .map(|known| known.question.as_str())
                .collect();
            return Err(invalid(format!(
                "`{question}` is not one of the questions asked; answer by exact question text: {}",
                known.join(" | ")
            )));
        }
        answers.insert(question.clone(), answer_text(question, value)?);
    }
    if answers.is_empty() && response.is_none() {
        return Err(invalid("the user input answers no question".to_string()));
    }
    Ok(ClarifyingQuestionAnswers { answers, response })
}

/// The model-facing result: each question with its header and answer
/// (`null` when unanswered), and the global response.
#[must_use]
pub fn resolve_clarifying_question_answers(
    questions: &[ClarifyingQuestion],
    answers: &ClarifyingQuestionAnswers,
) -> Value {
    let items: Vec<Value> = questions
        .iter()
        .map(|question| {
            json!({
                "question": question.question,
                "header": question.header,
                "answer": answers.answers.get(&question.question),
            })
        })
        .collect();
    json!({"answers": items, "response": answers.response})
}

//! Normalising user answers to clarifying questions, shared by the tool
//! and by durable hosts that validate answers themselves.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::{ClarifyingQuestion, ASK_USER_QUESTION_TOOL_NAME};
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
    ToolError::invalid_arguments(ASK_USER_QUESTION_TOOL_NAME, message)
}

/// The answer text, or `None` for a blank answer. Arrays of labels are
/// accepted only for multi-select questions (a one-label array always).
fn answer_text(question: &ClarifyingQuestion, value: &Value) -> Result<Option<String>, ToolError> {
    let text = |value: &Value| {
        value
            .as_str()
            .map(str::trim)
            .map(str::to_string)
            .ok_or_else(|| {
                invalid(format!(
                    "the answer to `{}` must be text",
                    question.question
                ))
            })
    };
    let answer = match value {
        Value::Array(items) if items.len() > 1 && !question.multi_select => {
            return Err(invalid(format!(
                "`{}` takes one answer, not {}; send a single label",
                question.question,
                items.len()
            )))
        }
        Value::Array(items) => items
            .iter()
            .map(text)
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .filter(|label| !label.is_empty())
            .collect::<Vec<_>>()
            .join(", "),
        other => text(other)?,
    };
    Ok((!answer.is_empty()).then_some(answer))
}

/// Validates user input against the questions and returns canonical
/// answers.
///
/// Accepted input: a JSON string (a free-form response to all questions),
/// or an object `{"answers": {"<question>": "<answer>"}, "response": "..."}`;
/// an object without `answers` is read as the answers map itself (with an
/// optional `response` key). Multi-select answers may also be arrays of
/// labels; they are joined with ", ". Blank answers count as no answer.
///
/// # Errors
/// [`ToolError::InvalidArguments`] for answers to unknown questions (or
/// unknown keys next to `answers`), non-text answers, several labels for a
/// single-select question, or input that answers nothing.
pub fn normalize_clarifying_question_answers(
    questions: &[ClarifyingQuestion],
    user_input: &Value,
) -> Result<ClarifyingQuestionAnswers, ToolError> {
    let blank = |text: &str| text.trim().is_empty();
    let object = match user_input {
        Value::String(text) if blank(text) => {
            return Err(invalid("the user input answers no question".to_string()))
        }
        Value::String(text) => {
            return Ok(ClarifyingQuestionAnswers {
                answers: BTreeMap::new(),
                response: Some(text.trim().to_string()),
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
        Some(Value::String(text)) if blank(text) => None,
        Some(Value::String(text)) => Some(text.trim().to_string()),
        Some(_) => return Err(invalid("`response` must be text".to_string())),
    };
    let answers_value = match object.get("answers") {
        Some(Value::Object(answers)) => {
            if let Some(extra) = object
                .keys()
                .find(|key| key.as_str() != "answers" && key.as_str() != "response")
            {
                return Err(invalid(format!(
                    "unexpected key `{extra}` next to `answers`; put every answer inside `answers` and use `response` for a general reply"
                )));
            }
            answers.clone()
        }
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
    for (question_text, value) in &answers_value {
        let Some(question) = questions
            .iter()
            .find(|known| &known.question == question_text)
        else {
            let known: Vec<&str> = questions
                .iter()
                .map(|known| known.question.as_str())
                .collect();
            return Err(invalid(format!(
                "`{question_text}` is not one of the questions asked; answer by exact question text: {}",
                known.join(" | ")
            )));
        };
        if let Some(answer) = answer_text(question, value)? {
            answers.insert(question_text.clone(), answer);
        }
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

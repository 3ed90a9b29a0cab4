//! The question format and its limits.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ASK_USER_QUESTION_TOOL_NAME;
use crate::tools::ToolError;

/// One suggested answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClarifyingQuestionOption {
    /// Short answer text the user can pick.
    pub label: String,
    /// What choosing it means.
    #[serde(default)]
    pub description: String,
}

/// One clarifying question.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClarifyingQuestion {
    /// The full question, ending with a question mark.
    pub question: String,
    /// A very short label for the question (at most 12 characters).
    pub header: String,
    /// Two to four suggested answers.
    #[schemars(length(min = 2, max = 4))]
    pub options: Vec<ClarifyingQuestionOption>,
    /// Whether several options may be chosen.
    #[serde(rename = "multiSelect", default)]
    pub multi_select: bool,
}

/// Arguments of `ask_user_question`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AskUserQuestionArgs {
    /// One to four questions to ask the user.
    #[schemars(length(min = 1, max = 4))]
    pub questions: Vec<ClarifyingQuestion>,
    /// The user's normalised answers, filled in by the runtime after the
    /// user answered; never part of the model-facing schema.
    #[schemars(skip)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_answers: Option<super::ClarifyingQuestionAnswers>,
}

/// Longest header accepted.
pub(crate) const MAX_HEADER_CHARS: usize = 12;

impl AskUserQuestionArgs {
    /// Checks the counts and texts the schema describes.
    ///
    /// # Errors
    /// [`ToolError::InvalidArguments`] naming the first problem.
    pub fn validate(&self) -> Result<(), ToolError> {
        let invalid = |message: String| {
            Err(ToolError::invalid_arguments(
                ASK_USER_QUESTION_TOOL_NAME,
                message,
            ))
        };
        if !(1..=4).contains(&self.questions.len()) {
            return invalid(format!(
                "ask 1 to 4 questions, not {}",
                self.questions.len()
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for (index, question) in self.questions.iter().enumerate() {
            let position = index + 1;
            if question.question.trim().is_empty() {
                return invalid(format!("question {position} has no text"));
            }
            if !seen.insert(question.question.as_str()) {
                return invalid(format!("question {position} repeats an earlier question"));
            }
            let header = question.header.trim().chars().count();
            if header == 0 || header > MAX_HEADER_CHARS {
                return invalid(format!(
                    "question {position} needs a header of 1 to {MAX_HEADER_CHARS} characters"
                ));
            }
            if !(2..=4).contains(&question.options.len()) {
                return invalid(format!(
                    "question {position} needs 2 to 4 options, not {}",
                    question.options.len()
                ));
            }
            if question
                .options
                .iter()
                .any(|option| option.label.trim().is_empty())
            {
                return invalid(format!("question {position} has an option without a label"));
            }
        }
        Ok(())
    }
}

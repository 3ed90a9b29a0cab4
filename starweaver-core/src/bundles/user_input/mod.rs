//! The user-input bundle: `ask_user_question` asks one to four structured
//! clarifying questions through the approval-based HITL flow.

mod answers;
mod questions;
mod tool;

pub use answers::{
    normalize_clarifying_question_answers, resolve_clarifying_question_answers,
    ClarifyingQuestionAnswers,
};
pub use questions::{AskUserQuestionArgs, ClarifyingQuestion, ClarifyingQuestionOption};
pub use tool::{user_input_tools, ASK_USER_QUESTION_TOOL_NAME, CLARIFYING_QUESTIONS_REQUEST_KIND};

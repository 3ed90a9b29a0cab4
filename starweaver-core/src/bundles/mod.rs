//! First-party tool bundles.

mod user_input;

pub use user_input::{
    normalize_clarifying_question_answers, resolve_clarifying_question_answers, user_input_tools,
    AskUserQuestionArgs, ClarifyingQuestion, ClarifyingQuestionAnswers, ClarifyingQuestionOption,
    ASK_USER_QUESTION_TOOL_NAME, CLARIFYING_QUESTIONS_REQUEST_KIND,
};

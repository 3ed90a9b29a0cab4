//! First-party tool bundles.

mod environment;
mod filesystem;
mod user_input;

pub use filesystem::{
    filesystem_tools, EditFileArgs, FilesystemOptions, GlobArgs, GrepArgs, LsArgs, ReadFileArgs,
    WriteFileArgs, DEFAULT_MAX_FILE_BYTES, EDIT_FILE_TOOL_NAME, FILESYSTEM_TOOLSET_NAME,
    GLOB_TOOL_NAME, GREP_TOOL_NAME, LS_TOOL_NAME, READ_FILE_TOOL_NAME, WRITE_FILE_TOOL_NAME,
};
pub use user_input::{
    normalize_clarifying_question_answers, resolve_clarifying_question_answers, user_input_tools,
    AskUserQuestionArgs, ClarifyingQuestion, ClarifyingQuestionAnswers, ClarifyingQuestionOption,
    ASK_USER_QUESTION_TOOL_NAME, CLARIFYING_QUESTIONS_REQUEST_KIND,
};

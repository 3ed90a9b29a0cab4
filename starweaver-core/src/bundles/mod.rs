//! First-party tool bundles.

mod core;
mod environment;
mod filesystem;
mod shell;
mod user_input;

pub use self::core::core_toolsets;

pub use filesystem::{
    filesystem_tools, EditFileArgs, FilesystemOptions, GlobArgs, GrepArgs, LsArgs, ReadFileArgs,
    WriteFileArgs, DEFAULT_MAX_FILE_BYTES, EDIT_FILE_TOOL_NAME, FILESYSTEM_TOOLSET_NAME,
    GLOB_TOOL_NAME, GREP_TOOL_NAME, LS_TOOL_NAME, READ_FILE_TOOL_NAME, WRITE_FILE_TOOL_NAME,
};
pub use shell::{
    shell_tools, ShellExecArgs, ShellInputArgs, ShellKillArgs, ShellSignalArgs, ShellStatusArgs,
    ShellWaitArgs, DEFAULT_SHELL_WAIT_MS, MAX_SHELL_WAIT_MS, SHELL_EXEC_TOOL_NAME,
    SHELL_INPUT_TOOL_NAME, SHELL_KILL_TOOL_NAME, SHELL_SIGNAL_TOOL_NAME, SHELL_STATUS_TOOL_NAME,
    SHELL_TOOLSET_NAME, SHELL_WAIT_TOOL_NAME,
};
pub use user_input::{
    normalize_clarifying_question_answers, resolve_clarifying_question_answers, user_input_tools,
    AskUserQuestionArgs, ClarifyingQuestion, ClarifyingQuestionAnswers, ClarifyingQuestionOption,
    ASK_USER_QUESTION_TOOL_NAME, CLARIFYING_QUESTIONS_REQUEST_KIND,
};

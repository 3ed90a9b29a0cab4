//! The `ask_user_question` tool and its bundle.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Value};

use super::{
    normalize_clarifying_question_answers, resolve_clarifying_question_answers, AskUserQuestionArgs,
};
use crate::tools::DynToolset;
use crate::tools::ToolContext;
use crate::tools::HITL_ARGUMENTS_METADATA_KEY;
use crate::tools::{
    typed_tool, DynTool, ToolError, ToolInstruction, ToolKind, ToolResult,
    ToolUserInputPreprocessResult,
};
use crate::toolsets::StaticToolset;

/// Name of the clarifying-question tool.
pub const ASK_USER_QUESTION_TOOL_NAME: &str = "ask_user_question";
/// `request.kind` of its approval records.
pub const CLARIFYING_QUESTIONS_REQUEST_KIND: &str = "clarifying_questions";

/// The user-input bundle: `ask_user_question`. Not part of the core
/// toolsets: install it only where a host can answer HITL requests.
#[must_use]
pub fn user_input_tools() -> DynToolset {
    Arc::new(
        StaticToolset::new("user_input")
            .with_tool(ask_user_question())
            .with_instruction(ToolInstruction::new(
                "user_input",
                "When missing information would materially change the result, call ask_user_question \
                 by itself, before any side-effecting tool.",
            )),
    )
}

fn parse_args(value: &Value) -> Result<AskUserQuestionArgs, ToolError> {
    AskUserQuestionArgs::deserialize(value).map_err(|error| {
        ToolError::invalid_arguments(ASK_USER_QUESTION_TOOL_NAME, error.to_string())
    })
}

fn ask_user_question() -> DynTool {
    let tool = typed_tool::<AskUserQuestionArgs, _, _>(
        ASK_USER_QUESTION_TOOL_NAME,
        Some(
            "Ask the user one to four clarifying questions, each with a short header and two to four \
             suggested options. The run pauses until the user answers."
                .to_string(),
        ),
        |_ctx: ToolContext, args: AskUserQuestionArgs| async move { answered(&args) },
    )
    .with_kind(ToolKind::Unapproved)
    .with_approval_request_kind(CLARIFYING_QUESTIONS_REQUEST_KIND)
    .with_sequential(true)
    .with_argument_validator(|ctx, arguments| {
        if !arguments.is_object() {
            return Err(ToolError::invalid_arguments(
                ASK_USER_QUESTION_TOOL_NAME,
                "arguments must be an object with a `questions` list",
            ));
        }
        // Answers come from the user through the runtime, never from the
        // model's own call.
        if !ctx.is_approved() && arguments.get("user_answers").is_some() {
            return Err(ToolError::invalid_arguments(
                ASK_USER_QUESTION_TOOL_NAME,
                "`user_answers` is filled in by the runtime after the user answers; send only `questions`",
            ));
        }
        parse_args(arguments)?.validate()
    })
    .with_user_input_preprocessor(|ctx: ToolContext, user_input: Value| async move {
        if user_input.is_null() {
            return Err(ToolError::user_error(
                "clarifying questions need the user's answers; resume with \
                 AgentHitlUserInteraction::approved(id).with_user_input(answers)",
            ));
        }
        let arguments = ctx
            .metadata()
            .get(HITL_ARGUMENTS_METADATA_KEY)
            .cloned()
            .ok_or_else(|| {
                ToolError::user_error(
                    "ask_user_question answers must be given through AgentSession::resume_after_hitl",
                )
            })?;
        let args = parse_args(&arguments)?;
        let answers = normalize_clarifying_question_answers(&args.questions, &user_input)?;
        let answers_value = serde_json::to_value(&answers)?;
        let mut replacement = arguments;
        let Some(fields) = replacement.as_object_mut() else {
            return Err(ToolError::invalid_arguments(
                ASK_USER_QUESTION_TOOL_NAME,
                "arguments must be an object with a `questions` list",
            ));
        };
        fields.insert("user_answers".to_string(), answers_value.clone());
        Ok(ToolUserInputPreprocessResult::new()
            .with_override_arguments(replacement)
            .with_approval_metadata("request", json!({"kind": CLARIFYING_QUESTIONS_REQUEST_KIND, "tool": ASK_USER_QUESTION_TOOL_NAME}))
            .with_approval_metadata("questions", serde_json::to_value(&args.questions)?)
            .with_approval_metadata("answers", answers_value))
    });
    Arc::new(tool)
}

/// Runs after approval: returns the questions with the normalised answers
/// the preprocessor stored in the arguments.
fn answered(args: &AskUserQuestionArgs) -> Result<ToolResult, ToolError> {
    let answers = args.user_answers.clone().unwrap_or_default();
    Ok(ToolResult::new(resolve_clarifying_question_answers(
        &args.questions,
        &answers,
    ))
    .with_metadata("answered", Value::Bool(args.user_answers.is_some())))
}

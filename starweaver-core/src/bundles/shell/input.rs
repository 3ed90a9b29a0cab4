//! `shell_input`: write to a background process's standard input.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::errors::{process_shell, shell_error};
use super::output::Report;
use super::settings::HostSettings;
use super::{mutating, requirements};
use crate::tools::ToolContext;
use crate::tools::{typed_tool, DynTool, ToolError, ToolResult};

/// Name of the process-input tool.
pub const SHELL_INPUT_TOOL_NAME: &str = "shell_input";

/// Arguments of `shell_input`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// A misspelled argument is an `invalid_arguments` return naming it,
// not silently dropped.
#[serde(deny_unknown_fields)]
pub struct ShellInputArgs {
    /// The process id `shell_exec` returned.
    pub id: String,
    /// Text to write, as is (add `\n` to end a line).
    pub input: String,
    /// Close the input after writing (end of file), for programs that
    /// read until it ends.
    #[serde(default)]
    pub close: bool,
}

pub(super) fn shell_input_tool() -> DynTool {
    let tool = typed_tool::<ShellInputArgs, _, _>(
        SHELL_INPUT_TOOL_NAME,
        Some(
            "Write text to a background process's standard input (optionally closing it) and \
             return its status and output so far."
                .to_string(),
        ),
        |ctx: ToolContext, args: ShellInputArgs| async move { shell_input(&ctx, args).await },
    )
    .with_dependencies(requirements())
    .with_tags(mutating())
    .with_sequential(true);
    // Not retried internally: input written twice is not the same input.
    Arc::new(tool)
}

async fn shell_input(ctx: &ToolContext, args: ShellInputArgs) -> Result<ToolResult, ToolError> {
    let settings = HostSettings::of(ctx);
    settings.check_acting_on("sending input to", &args.id)?;
    let shell = process_shell(ctx)?;
    let snapshot = shell
        .write_stdin(&args.id, args.input.as_bytes(), args.close)
        .await
        .map_err(shell_error)?;
    Ok(Report::of_snapshot(snapshot, settings.max_output_bytes()).into_result())
}

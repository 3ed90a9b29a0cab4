//! `shell_signal` and `shell_kill`: signal or stop a background process.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::errors::{process_shell, shell_error};
use super::output::Report;
use super::settings::HostSettings;
use super::{mutating, requirements};
use crate::environment::ProcessSignal;
use crate::tools::ToolContext;
use crate::tools::{typed_tool, DynTool, ToolError, ToolResult};

/// Name of the signalling tool.
pub const SHELL_SIGNAL_TOOL_NAME: &str = "shell_signal";
/// Name of the process-stopping tool.
pub const SHELL_KILL_TOOL_NAME: &str = "shell_kill";

/// Arguments of `shell_signal`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// A misspelled argument is an `invalid_arguments` return naming it,
// not silently dropped.
#[serde(deny_unknown_fields)]
pub struct ShellSignalArgs {
    /// The process id `shell_exec` returned.
    pub id: String,
    /// The signal: INT, TERM, KILL, HUP, QUIT, USR1, USR2, STOP or CONT
    /// (a `SIG` prefix and lower case are accepted).
    pub signal: String,
}

/// Arguments of `shell_kill`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// A misspelled argument is an `invalid_arguments` return naming it,
// not silently dropped.
#[serde(deny_unknown_fields)]
pub struct ShellKillArgs {
    /// The process id `shell_exec` returned.
    pub id: String,
}

pub(super) fn shell_signal_tool() -> DynTool {
    let tool = typed_tool::<ShellSignalArgs, _, _>(
        SHELL_SIGNAL_TOOL_NAME,
        Some(
            "Send a signal to a background process (and what it started): INT to interrupt, \
             TERM to ask it to end, HUP, STOP and CONT to pause and resume, ... Returns its \
             status and output so far."
                .to_string(),
        ),
        |ctx: ToolContext, args: ShellSignalArgs| async move { shell_signal(&ctx, args).await },
    )
    .with_dependencies(requirements())
    .with_tags(mutating())
    .with_sequential(true);
    Arc::new(tool)
}

pub(super) fn shell_kill_tool() -> DynTool {
    let tool = typed_tool::<ShellKillArgs, _, _>(
        SHELL_KILL_TOOL_NAME,
        Some(
            "Stop a background process and what it started (TERM, then KILL if it does not \
             end) and return its final status and output."
                .to_string(),
        ),
        |ctx: ToolContext, args: ShellKillArgs| async move { shell_kill(&ctx, args).await },
    )
    .with_dependencies(requirements())
    .with_tags(mutating())
    .with_sequential(true);
    Arc::new(tool)
}

async fn shell_signal(ctx: &ToolContext, args: ShellSignalArgs) -> Result<ToolResult, ToolError> {
    let Some(signal) = ProcessSignal::parse(&args.signal) else {
        let names: Vec<&str> = ProcessSignal::ALL.iter().map(|s| s.name()).collect();
        return Err(ToolError::model_retry(format!(
            "`{}` is not a signal this tool sends; use one of: {}",
            crate::bounds::echo(&args.signal),
            names.join(", ")
        )));
    };
    let settings = HostSettings::of(ctx);
    settings.check_acting_on(&format!("sending {} to", signal.name()), &args.id)?;
    let shell = process_shell(ctx)?;
    let snapshot = shell.signal(&args.id, signal).await.map_err(shell_error)?;
    Ok(Report::of_snapshot(snapshot, settings.max_output_bytes()).into_result())
}

async fn shell_kill(ctx: &ToolContext, args: ShellKillArgs) -> Result<ToolResult, ToolError> {
    let shell = process_shell(ctx)?;
    let snapshot = shell.kill(&args.id).await.map_err(shell_error)?;
    let bound = HostSettings::of(ctx).max_output_bytes();
    Ok(Report::of_snapshot(snapshot, bound).into_result())
}

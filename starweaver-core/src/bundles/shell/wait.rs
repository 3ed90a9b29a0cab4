//! `shell_wait`: wait, within a bound, for a background process to end.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::errors::{process_shell, shell_error};
use super::output::Report;
use super::settings::HostSettings;
use super::{observing, requirements};
use crate::tools::ToolContext;
use crate::tools::{typed_tool, DynTool, ToolError, ToolResult};

/// Name of the waiting tool.
pub const SHELL_WAIT_TOOL_NAME: &str = "shell_wait";
/// How long `shell_wait` waits when the call names no timeout: 30 s.
pub const DEFAULT_SHELL_WAIT_MS: u64 = 30_000;
/// The longest one `shell_wait` call waits: 10 minutes (longer requests
/// wait this long; the model can wait again).
pub const MAX_SHELL_WAIT_MS: u64 = 600_000;

/// Arguments of `shell_wait`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// A misspelled argument is an `invalid_arguments` return naming it,
// not silently dropped.
#[serde(deny_unknown_fields)]
pub struct ShellWaitArgs {
    /// The process id `shell_exec` returned.
    pub id: String,
    /// How long to wait for it to end, in milliseconds (default 30000,
    /// at most 600000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

pub(super) fn shell_wait_tool() -> DynTool {
    let tool = typed_tool::<ShellWaitArgs, _, _>(
        SHELL_WAIT_TOOL_NAME,
        Some(
            "Wait for a background process to end, up to `timeout_ms`, and return its status \
             and output so far (status `running` when it has not ended yet)."
                .to_string(),
        ),
        |ctx: ToolContext, args: ShellWaitArgs| async move { shell_wait(&ctx, args).await },
    )
    .with_dependencies(requirements())
    .with_tags(observing());
    Arc::new(tool)
}

async fn shell_wait(ctx: &ToolContext, args: ShellWaitArgs) -> Result<ToolResult, ToolError> {
    let shell = process_shell(ctx)?;
    let requested = args.timeout_ms.unwrap_or(DEFAULT_SHELL_WAIT_MS);
    let timeout_ms = requested.min(MAX_SHELL_WAIT_MS);
    let snapshot = shell
        .wait(&args.id, timeout_ms)
        .await
        .map_err(shell_error)?;
    let mut report = Report::of_snapshot(snapshot, HostSettings::of(ctx).max_output_bytes());
    if report.is_running() {
        report = report.with_note(format!(
            "still running after waiting {timeout_ms} ms; wait again, check it later with \
             shell_status, or stop it with shell_kill"
        ));
        if requested > MAX_SHELL_WAIT_MS {
            report = report.with_note(format!("one wait lasts at most {MAX_SHELL_WAIT_MS} ms"));
        }
    }
    Ok(report.into_result())
}

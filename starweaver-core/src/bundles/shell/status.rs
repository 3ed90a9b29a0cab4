//! `shell_status`: one background process, or all of them.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::errors::{process_shell, shell_error};
use super::output::Report;
use super::settings::HostSettings;
use super::{observing, requirements};
use crate::environment::ProcessSnapshot;
use crate::tools::ToolContext;
use crate::tools::{typed_tool, DynTool, ToolError, ToolResult};

/// Name of the process-status tool.
pub const SHELL_STATUS_TOOL_NAME: &str = "shell_status";

/// Arguments of `shell_status`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// A misspelled argument is an `invalid_arguments` return naming it,
// not silently dropped.
#[serde(deny_unknown_fields)]
pub struct ShellStatusArgs {
    /// The process id; omit it to list every running process and the
    /// recently completed ones.
    #[serde(default)]
    pub id: Option<String>,
}

pub(super) fn shell_status_tool() -> DynTool {
    let tool = typed_tool::<ShellStatusArgs, _, _>(
        SHELL_STATUS_TOOL_NAME,
        Some(
            "The status and output so far of a background process, without waiting; without \
             `id`, a list of the known processes (ids, commands, status, output sizes)."
                .to_string(),
        ),
        |ctx: ToolContext, args: ShellStatusArgs| async move { shell_status(&ctx, args).await },
    )
    .with_dependencies(requirements())
    .with_tags(observing());
    Arc::new(tool)
}

async fn shell_status(ctx: &ToolContext, args: ShellStatusArgs) -> Result<ToolResult, ToolError> {
    let shell = process_shell(ctx)?;
    if let Some(id) = args.id {
        let snapshot = shell.status(&id).await.map_err(shell_error)?;
        let bound = HostSettings::of(ctx).max_output_bytes();
        return Ok(Report::of_snapshot(snapshot, bound).into_result());
    }
    let processes: Vec<Value> = shell
        .list()
        .await
        .map_err(shell_error)?
        .iter()
        .map(summary)
        .collect();
    Ok(ToolResult::new(
        json!({"count": processes.len(), "processes": processes}),
    ))
}

/// One process in the listing: its state and output sizes, not its
/// output (`shell_status` with its id shows that).
fn summary(snapshot: &ProcessSnapshot) -> Value {
    let output = &snapshot.output;
    json!({
        "id": snapshot.id,
        "command": snapshot.command,
        "status": output.status,
        "exit_code": output.exit_code,
        "signal": output.signal,
        "duration_ms": output.duration_ms,
        "stdout_bytes": output.stdout.bytes,
        "stderr_bytes": output.stderr.bytes,
    })
}

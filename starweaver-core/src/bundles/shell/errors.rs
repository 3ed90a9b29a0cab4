//! How the shell tools report failures: environment errors as feedback,
//! and a missing process shell as the integration mistake it is.

use serde_json::json;

use crate::bundles::environment::environment_error;
use crate::environment::{tool_process_shell, DynProcessShell, EnvironmentError};
use crate::tools::{ToolContext, ToolError};

/// Environment errors as the model sees them. An I/O error is feedback,
/// not an internal retry: the command may have run, and running it
/// again is not harmless.
pub(super) fn shell_error(error: EnvironmentError) -> ToolError {
    match error {
        EnvironmentError::Io { path, source } => ToolError::Feedback {
            message: format!(
                "the command failed with an I/O error on `{}` ({source}); it may or may not \
                 have run: check its effects before running it again",
                crate::bounds::echo(&path)
            ),
            details: Some(json!({"error": "io", "path": path})),
        },
        other => environment_error(other),
    }
}

/// The process-capable shell attached to the run.
///
/// # Errors
/// A user error telling the host to attach one.
pub(super) fn process_shell(ctx: &ToolContext) -> Result<DynProcessShell, ToolError> {
    tool_process_shell(ctx).ok_or_else(|| {
        let tool = match ctx.tool_name() {
            "" => "this tool".to_string(),
            name => format!("tool `{name}`"),
        };
        ToolError::user_error(format!(
            "{tool} needs a process-capable shell for background processes, but none is \
             attached to this run; the host must call `attach_process_shell(&mut context, \
             provider)` with a provider that runs background processes (the local and in-memory \
             providers do)"
        ))
    })
}

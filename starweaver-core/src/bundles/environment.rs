//! How the environment bundles (filesystem, shell) find the active
//! environment and report its errors.

use serde_json::json;

use crate::environment::{
    normalize_path_with, tool_environment, DynEnvironment, EnvironmentError, SearchError,
};
use crate::tools::ToolContext;
use crate::tools::ToolError;

/// The environment attached to the run. Missing is an integration
/// mistake, not something the model can fix.
pub(crate) fn environment(ctx: &ToolContext) -> Result<DynEnvironment, ToolError> {
    tool_environment(ctx).ok_or_else(|| {
        let tool = match ctx.tool_name() {
            "" => "this tool".to_string(),
            name => format!("tool `{name}`"),
        };
        ToolError::user_error(format!(
            "{tool} needs an environment, but none is attached to this run; the host must attach \
             one with `attach_environment(&mut context, provider)` or \
             `AgentSession::with_environment(provider)`"
        ))
    })
}

/// A path argument in its root-relative form, within the provider's
/// path limits.
pub(crate) fn normalized(provider: &DynEnvironment, path: &str) -> Result<String, ToolError> {
    normalize_path_with(path, &provider.path_limits()).map_err(environment_error)
}

/// Expected conditions (missing paths, a directory where a file was
/// meant, binary content, a path outside the root) are feedback the agent
/// can act on: they stay out of the model-retry budget, which
/// ordinary exploration would otherwise exhaust. I/O failures are
/// unexpected and retried.
pub(crate) fn environment_error(error: EnvironmentError) -> ToolError {
    let kind = match &error {
        EnvironmentError::Io { .. } => return ToolError::execution_caused_by(error),
        EnvironmentError::NotFound { .. } => "not_found",
        EnvironmentError::IsADirectory { .. } => "is_a_directory",
        EnvironmentError::NotADirectory { .. } => "not_a_directory",
        EnvironmentError::PathEscape { .. } => "path_escape",
        EnvironmentError::InvalidPath { .. } => "invalid_path",
        EnvironmentError::NotText { .. } => "not_text",
        EnvironmentError::AccessDenied { .. } => "access_denied",
        EnvironmentError::Unsupported { .. } => "unsupported",
        EnvironmentError::UnknownProcess { .. } => "unknown_process",
        EnvironmentError::ProcessLimit { .. } => "process_limit",
        EnvironmentError::Spawn { .. } => "spawn_failed",
        EnvironmentError::SandboxUnavailable { missing } => {
            return ToolError::Feedback {
                message: error.to_string(),
                details: Some(json!({"error": "sandbox_unavailable", "missing": missing})),
            };
        }
        EnvironmentError::PolicyDenied { rule, allowed, .. } => {
            let mut details = json!({"error": "policy_denied", "rule": rule});
            if !allowed.is_empty() {
                details["allowed"] = json!(allowed);
            }
            return ToolError::Feedback {
                message: error.to_string(),
                details: Some(details),
            };
        }
    };
    ToolError::Feedback {
        message: error.to_string(),
        details: Some(json!({"error": kind, "path": error.path()})),
    }
}

/// A file over the bundle's size limit: feedback naming the limit and
/// what to do instead.
pub(crate) fn too_large(path: &str, bytes: u64, max_file_bytes: u64, instead: &str) -> ToolError {
    ToolError::Feedback {
        message: format!(
            "`{path}` would be {bytes} bytes, more than the filesystem tools' limit of \
             {max_file_bytes} bytes per file; {instead}"
        ),
        details: Some(json!({
            "error": "too_large",
            "path": path,
            "bytes": bytes,
            "max_file_bytes": max_file_bytes,
        })),
    }
}

/// Bad patterns are the model's input to correct; a symlink as the
/// search root is feedback naming it (the agent can search the target);
/// environment failures map as above.
pub(crate) fn search_error(error: SearchError) -> ToolError {
    match error {
        SearchError::Environment(error) => environment_error(error),
        SearchError::SymlinkRoot { ref path } => ToolError::Feedback {
            details: Some(json!({"error": "symlink", "path": path})),
            message: error.to_string(),
        },
        invalid @ (SearchError::InvalidGlob { .. }
        | SearchError::InvalidRegex { .. }
        | SearchError::PatternTooLong { .. }) => ToolError::model_retry(invalid.to_string()),
    }
}

/// A failed write of a mutating tool. An I/O error may follow a write
/// that landed (a remote sandbox whose reply timed out), so the call is
/// not retried internally, which could apply an edit twice: the model is
/// told to read the file before trying again. Other errors map as
/// [`environment_error`].
pub(crate) fn write_error(error: EnvironmentError) -> ToolError {
    match error {
        EnvironmentError::Io { path, source } => ToolError::Feedback {
            message: format!(
                "writing `{}` failed ({source}); the file may or may not have changed: read it \
                 before trying again",
                crate::bounds::echo(&path)
            ),
            details: Some(json!({"error": "write_failed", "path": path})),
        },
        other => environment_error(other),
    }
}

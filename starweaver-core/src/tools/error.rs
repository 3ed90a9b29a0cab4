//! Tool errors, one variant per retry and feedback class of the spec.

use serde_json::Value;

use crate::model::ToolReturnKind;
use crate::JsonMap;

/// Why a tool call did not produce a result.
///
/// The variant decides what happens next: internal retry (`Execution`),
/// a retry prompt to the model (`ModelRetry`, `InvalidArguments`,
/// `NotFound`), a plain return the agent can reason about (`Feedback`,
/// `UserError`, `Timeout`, `Cancelled`), or control flow (`ApprovalRequired`,
/// `CallDeferred`).
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The arguments did not validate; the model should correct them.
    #[error("{}", invalid_arguments_text(.tool, .message))]
    InvalidArguments {
        /// Tool name.
        tool: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// The tool asks the model to correct its call.
    #[error("{message}")]
    ModelRetry {
        /// Instructions for the model.
        message: String,
    },
    /// An expected condition the agent can reason about (missing file,
    /// HTTP 404, output limit). Costs no retry budget.
    #[error("{message}")]
    Feedback {
        /// Agent-readable explanation.
        message: String,
        /// Optional structured details shown to the model.
        details: Option<Value>,
    },
    /// A developer or integration mistake (missing dependency, missing
    /// capability). Not retried, costs no budget.
    #[error("{message}")]
    UserError {
        /// What is misconfigured and how to fix it.
        message: String,
    },
    /// An unexpected failure; retried internally within the budget.
    #[error("tool execution failed: {message}")]
    Execution {
        /// Failure description.
        message: String,
        /// The error that caused it, for hosts that log or inspect the
        /// chain ([`std::error::Error::source`]); never shown to the model
        /// beyond `message`.
        #[source]
        source: Option<std::sync::Arc<dyn std::error::Error + Send + Sync>>,
    },
    /// The tool ran past its effective timeout.
    #[error("{}", timeout_text(.tool, *.timeout_ms))]
    Timeout {
        /// Tool name.
        tool: String,
        /// Effective timeout.
        timeout_ms: u64,
    },
    /// The call was cancelled.
    #[error("{}", cancelled_text(.tool))]
    Cancelled {
        /// Tool name.
        tool: String,
    },
    /// No such tool is registered, loaded or available.
    #[error("{message}")]
    NotFound {
        /// Requested tool name.
        tool: String,
        /// Explanation with suggestions.
        message: String,
    },
    /// Control flow: the call needs human approval first.
    #[error("{}", approval_text(.tool))]
    ApprovalRequired {
        /// Tool name.
        tool: String,
        /// Request details for the host (arguments, request kind).
        metadata: JsonMap,
    },
    /// Control flow: the call was handed to an external worker.
    #[error("{}", deferred_text(.tool))]
    CallDeferred {
        /// Tool name.
        tool: String,
        /// Request details for the worker.
        metadata: JsonMap,
    },
    /// Another error with host-only details attached.
    #[error("{error}")]
    WithPrivateMetadata {
        /// The underlying error.
        error: Box<ToolError>,
        /// Host-only details, never shown to the model.
        private_metadata: JsonMap,
    },
    /// The error of a tool that another tool ran on the model's behalf
    /// (the tool proxy's `call_tool`), with how often that tool ran: the
    /// return reports the inner tool's attempts, not the outer one's.
    #[error("{error}")]
    Delegated {
        /// The inner tool's error.
        error: Box<ToolError>,
        /// How many times the inner tool ran.
        attempts: u32,
        /// The inner tool's retry budget.
        max_retries: u32,
    },
}

impl ToolError {
    /// A model-correctable error.
    pub fn model_retry(message: impl Into<String>) -> Self {
        Self::ModelRetry {
            message: message.into(),
        }
    }

    /// Agent-readable feedback, not an error.
    pub fn feedback(message: impl Into<String>) -> Self {
        Self::Feedback {
            message: message.into(),
            details: None,
        }
    }

    /// A developer or integration mistake.
    pub fn user_error(message: impl Into<String>) -> Self {
        Self::UserError {
            message: message.into(),
        }
    }

    /// An unexpected execution failure described in words.
    pub fn execution(message: impl std::fmt::Display) -> Self {
        Self::Execution {
            message: message.to_string(),
            source: None,
        }
    }

    /// An unexpected execution failure caused by `error`, kept as the
    /// source so hosts see the whole chain.
    pub fn execution_caused_by(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Execution {
            message: error.to_string(),
            source: Some(std::sync::Arc::new(error)),
        }
    }

    /// Invalid arguments for a tool.
    pub fn invalid_arguments(tool: impl Into<String>, message: impl Into<String>) -> Self {
        Self::InvalidArguments {
            tool: tool.into(),
            message: message.into(),
        }
    }

    /// Attaches a host-only detail; it lands in
    /// `ToolReturnPart::private_metadata`, never in model-visible content.
    #[must_use]
    pub fn with_private_metadata(self, key: impl Into<String>, value: Value) -> Self {
        match self {
            Self::WithPrivateMetadata {
                error,
                mut private_metadata,
            } => {
                private_metadata.insert(key.into(), value);
                Self::WithPrivateMetadata {
                    error,
                    private_metadata,
                }
            }
            other => {
                let mut private_metadata = JsonMap::new();
                private_metadata.insert(key.into(), value);
                Self::WithPrivateMetadata {
                    error: Box::new(other),
                    private_metadata,
                }
            }
        }
    }

    /// The error without attached private metadata.
    #[must_use]
    pub fn root(&self) -> &Self {
        match self {
            Self::WithPrivateMetadata { error, .. } | Self::Delegated { error, .. } => error.root(),
            other => other,
        }
    }

    /// Host-only details attached with [`Self::with_private_metadata`].
    #[must_use]
    pub fn private_metadata(&self) -> Option<&JsonMap> {
        match self {
            Self::WithPrivateMetadata {
                private_metadata, ..
            } => Some(private_metadata),
            Self::Delegated { error, .. } => error.private_metadata(),
            _ => None,
        }
    }

    /// The return kind this error becomes.
    #[must_use]
    pub fn kind(&self) -> ToolReturnKind {
        match self.root() {
            Self::InvalidArguments { .. } => ToolReturnKind::InvalidArguments,
            Self::ModelRetry { .. } => ToolReturnKind::ModelRetry,
            Self::Feedback { .. } => ToolReturnKind::Feedback,
            Self::UserError { .. } => ToolReturnKind::UserError,
            Self::Execution { .. } | Self::WithPrivateMetadata { .. } | Self::Delegated { .. } => {
                ToolReturnKind::ExecutionFailed
            }
            Self::Timeout { .. } => ToolReturnKind::Timeout,
            Self::Cancelled { .. } => ToolReturnKind::Cancelled,
            Self::NotFound { .. } => ToolReturnKind::NotFound,
            Self::ApprovalRequired { .. } => ToolReturnKind::ApprovalRequired,
            Self::CallDeferred { .. } => ToolReturnKind::Deferred,
        }
    }

    /// The attempts and retry budget of the tool a delegating tool ran,
    /// when this error came from one.
    #[must_use]
    pub(crate) fn delegated_attempts(&self) -> Option<(u32, u32)> {
        match self {
            Self::Delegated {
                attempts,
                max_retries,
                ..
            } => Some((*attempts, *max_retries)),
            Self::WithPrivateMetadata { error, .. } => error.delegated_attempts(),
            _ => None,
        }
    }

    /// True for unexpected failures, which the registry retries
    /// internally.
    #[must_use]
    pub fn is_retryable_execution(&self) -> bool {
        matches!(self.root(), Self::Execution { .. })
    }

    /// The message shown to the model.
    #[must_use]
    pub fn model_message(&self) -> String {
        self.root().to_string()
    }

    /// The message naming `tool` where the error names a tool: the
    /// registry renders errors with the name the model called (a prefixed
    /// tool's outer name), whatever name the tool itself put in the
    /// error. Messages are never rewritten.
    #[must_use]
    pub fn message_naming(&self, tool: &str) -> String {
        match self.root() {
            Self::InvalidArguments { message, .. } => invalid_arguments_text(tool, message),
            Self::Timeout { timeout_ms, .. } => timeout_text(tool, *timeout_ms),
            Self::Cancelled { .. } => cancelled_text(tool),
            Self::ApprovalRequired { .. } => approval_text(tool),
            Self::CallDeferred { .. } => deferred_text(tool),
            other => other.to_string(),
        }
    }
}

fn invalid_arguments_text(tool: &str, message: &str) -> String {
    format!("invalid arguments for tool `{tool}`: {message}")
}

fn timeout_text(tool: &str, timeout_ms: u64) -> String {
    format!("tool `{tool}` timed out after {timeout_ms} ms")
}

fn cancelled_text(tool: &str) -> String {
    format!("tool `{tool}` was cancelled")
}

fn approval_text(tool: &str) -> String {
    format!("tool `{tool}` requires approval")
}

fn deferred_text(tool: &str) -> String {
    format!("tool `{tool}` call was deferred")
}

/// `?` on a JSON error: I/O failures are unexpected (retried); syntax and
/// data errors come from the input, so the model is asked to correct its
/// arguments. The tool's name is not known here (the field stays empty);
/// the registry names the called tool in the return it builds.
impl From<serde_json::Error> for ToolError {
    fn from(error: serde_json::Error) -> Self {
        if error.is_io() {
            Self::execution_caused_by(error)
        } else {
            Self::InvalidArguments {
                tool: String::new(),
                message: error.to_string(),
            }
        }
    }
}

impl From<std::io::Error> for ToolError {
    fn from(error: std::io::Error) -> Self {
        Self::execution_caused_by(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_metadata_wraps_without_changing_kind() {
        let error = ToolError::feedback("missing file")
            .with_private_metadata("path", serde_json::json!("/secret"))
            .with_private_metadata("errno", serde_json::json!(2));
        assert_eq!(error.kind(), ToolReturnKind::Feedback);
        assert_eq!(error.model_message(), "missing file");
        assert_eq!(error.private_metadata().map(serde_json::Map::len), Some(2));
    }
}

//! Turning a call outcome into the tool return the model sees.

use serde_json::{json, Value};

use super::shortening::{bound_content, bound_echoes, bound_message};
use super::ToolCallOutcome;
use crate::bounds::shorten;
use crate::model::{ToolReturnKind, ToolReturnPart};
use crate::tools::{ToolError, ToolLimits};
use crate::JsonMap;

impl ToolCallOutcome {
    /// The return part for this outcome.
    #[must_use]
    /// Everything that goes back to the model is bounded here, by the
    /// dispatching registry's [`crate::tools::ToolLimits`].
    pub fn into_return_part(self, call_id: &str, name: &str) -> ToolReturnPart {
        let limits = self.limits;
        let name = shorten(name, limits.max_echo_bytes);
        let name = name.as_ref();
        let mut part = ToolReturnPart {
            tool_call_id: call_id.to_string(),
            tool_name: name.to_string(),
            content: Value::Null,
            kind: ToolReturnKind::Success,
            metadata: JsonMap::new(),
            private_metadata: JsonMap::new(),
        };
        let exhausted = self
            .result
            .as_ref()
            .err()
            .is_some_and(ToolError::is_retryable_execution);
        // A delegating tool reports the attempts of the tool it ran.
        let (attempts, budget) = self
            .result
            .as_ref()
            .err()
            .and_then(ToolError::delegated_attempts)
            .unwrap_or((self.execution_attempts, self.max_retries));
        if attempts > 1 || (exhausted && attempts > 0) {
            part.metadata.insert(
                "retry".to_string(),
                json!({
                    "class": "execution",
                    "attempts": attempts,
                    "max_retries": budget,
                    "exhausted": exhausted,
                }),
            );
        }
        match self.result {
            Ok(result) => {
                part.content = result.content;
                part.metadata.extend(result.metadata);
                part.private_metadata = result.private_metadata;
            }
            Err(error) => {
                let kind = error.kind();
                part.kind = kind;
                if let Some(private) = error.private_metadata() {
                    part.private_metadata.clone_from(private);
                }
                if kind.is_model_retry() {
                    let used = self.model_retries_used.saturating_add(1);
                    part.metadata.insert(
                        "retry".to_string(),
                        json!({
                            "class": "model",
                            "retry": used,
                            "max_retries": self.max_retries,
                            "exhausted": used > self.max_retries,
                        }),
                    );
                }
                part.content =
                    error_content(name, self.delegated, &error, &mut part.metadata, &limits);
            }
        }
        part.content = bound_content(
            std::mem::take(&mut part.content),
            &mut part.metadata,
            &limits,
        );
        part
    }
}

/// Model-visible content of a failed call.
fn error_content(
    name: &str,
    delegated: bool,
    error: &ToolError,
    metadata: &mut JsonMap,
    limits: &ToolLimits,
) -> Value {
    let kind = error.kind();
    match error.root() {
        ToolError::ApprovalRequired {
            metadata: details, ..
        }
        | ToolError::CallDeferred {
            metadata: details, ..
        } => {
            metadata.extend(details.clone());
            json!({"status": kind.as_str(), "tool": name})
        }
        root => {
            // The registry names the tool the model called; a delegating
            // tool's errors name the tool it ran.
            let message = if delegated {
                root.to_string()
            } else {
                root.message_naming(name)
            };
            let mut content = json!({
                "success": false,
                "is_error": kind.is_error(),
                "error_kind": kind.as_str(),
                "message": bound_message(&message, limits),
            });
            if let ToolError::Feedback {
                details: Some(details),
                ..
            } = root
            {
                let mut details = details.clone();
                bound_echoes(&mut details, limits.max_echo_bytes);
                content["details"] = details;
            }
            content
        }
    }
}

//! Turning a call outcome into the tool return the model sees.

use serde_json::{json, Value};

use super::dispatch::OutcomeFrame;
use super::shortening::{bound_content, bound_echoes, bound_message};
use super::ToolCallOutcome;
use crate::bounds::shorten;
use crate::model::{ToolReturnKind, ToolReturnPart};
use crate::tools::{ToolError, ToolLimits, ToolResult};
use crate::JsonMap;

impl ToolCallOutcome {
    /// The return part for this outcome.
    ///
    /// Everything that goes back to the model is bounded here, by the
    /// dispatching registry's [`crate::tools::ToolLimits`].
    #[must_use]
    pub fn into_return_part(self, call_id: &str, name: &str) -> ToolReturnPart {
        let frame = OutcomeFrame {
            max_retries: self.max_retries,
            model_retries_used: self.model_retries_used,
            delegated: self.delegated,
            limits: &self.limits,
        };
        frame.into_return_part(self.result, self.execution_attempts, call_id, name)
    }
}

impl OutcomeFrame<'_> {
    /// The return part for a call that ended with `result` after
    /// `execution_attempts` runs: what [`ToolCallOutcome::into_return_part`]
    /// does, without gathering the outcome first (the dispatch's own path
    /// from a tool's result to the model's return moves less).
    pub(super) fn into_return_part(
        self,
        result: Result<ToolResult, ToolError>,
        execution_attempts: u32,
        call_id: &str,
        name: &str,
    ) -> ToolReturnPart {
        let limits = self.limits;
        let name = shorten(name, limits.max_echo_bytes);
        let name = name.as_ref();
        let exhausted = result
            .as_ref()
            .err()
            .is_some_and(ToolError::is_retryable_execution);
        // A delegating tool reports the attempts of the tool it ran.
        let (attempts, budget) = result
            .as_ref()
            .err()
            .and_then(ToolError::delegated_attempts)
            .unwrap_or((execution_attempts, self.max_retries));
        let execution_retry = (attempts > 1 || (exhausted && attempts > 0)).then(|| {
            json!({
                "class": "execution",
                "attempts": attempts,
                "max_retries": budget,
                "exhausted": exhausted,
            })
        });
        // The retry record comes first; the tool's own metadata follows
        // it (and wins a clash). Without one, the tool's map is moved, not
        // copied: the common call allocates nothing here.
        let with_retry = |mut metadata: JsonMap, retry: Option<Value>| match retry {
            None => metadata,
            Some(retry) => {
                let mut first = JsonMap::new();
                first.insert("retry".to_string(), retry);
                first.append(&mut metadata);
                first
            }
        };
        let (kind, content, mut metadata, private_metadata) = match result {
            Ok(result) => (
                ToolReturnKind::Success,
                result.content,
                with_retry(result.metadata.into_map(), execution_retry),
                result.private_metadata.into_map(),
            ),
            Err(error) => {
                let kind = error.kind();
                let private = error.private_metadata().cloned().unwrap_or_default();
                let model_retry = kind.is_model_retry().then(|| {
                    let used = self.model_retries_used.saturating_add(1);
                    json!({
                        "class": "model",
                        "retry": used,
                        "max_retries": self.max_retries,
                        "exhausted": used > self.max_retries,
                    })
                });
                let mut metadata = with_retry(JsonMap::new(), execution_retry);
                if let Some(retry) = model_retry {
                    metadata.insert("retry".to_string(), retry);
                }
                let content = error_content(name, self.delegated, &error, &mut metadata, limits);
                (kind, content, metadata, private)
            }
        };
        let content = bound_content(content, &mut metadata, limits);
        // Ids and names of up to 24 bytes are stored inline: no allocation.
        ToolReturnPart {
            tool_call_id: call_id.into(),
            tool_name: name.into(),
            content,
            kind,
            metadata,
            private_metadata,
        }
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::ToolCallOutcome;
    use crate::model::ToolReturnKind;
    use crate::tools::{ToolError, ToolLimits, ToolResult};
    use crate::JsonMap;

    fn outcome(result: Result<ToolResult, ToolError>, attempts: u32) -> ToolCallOutcome {
        ToolCallOutcome {
            result,
            execution_attempts: attempts,
            max_retries: 2,
            model_retries_used: 0,
            delegated: false,
            limits: ToolLimits::default(),
        }
    }

    #[test]
    fn a_success_keeps_the_tools_metadata_after_the_retry_record() {
        let mut metadata = JsonMap::new();
        metadata.insert("source".to_string(), json!("cache"));
        let mut result = ToolResult::new(json!({"sum": 3}));
        result.metadata = metadata.into();
        let part = outcome(Ok(result.clone()), 2).into_return_part("call_1", "add");
        let keys: Vec<&str> = part.metadata.keys().map(String::as_str).collect();
        assert_eq!(keys, ["retry", "source"]);
        assert_eq!(part.metadata["retry"]["attempts"], 2);
        assert_eq!(part.content, json!({"sum": 3}));
        assert_eq!(part.kind, ToolReturnKind::Success);

        // One attempt: the tool's metadata alone, as the tool wrote it.
        let part = outcome(Ok(result), 1).into_return_part("call_1", "add");
        assert_eq!(part.metadata.keys().collect::<Vec<_>>(), ["source"]);
        assert_eq!(
            (part.tool_call_id.as_str(), part.tool_name.as_str()),
            ("call_1", "add")
        );
    }

    #[test]
    fn a_tools_own_retry_key_wins_over_the_registrys() {
        let mut result = ToolResult::new(json!(null));
        result.metadata.insert("retry".to_string(), json!("mine"));
        let part = outcome(Ok(result), 3).into_return_part("c", "t");
        assert_eq!(part.metadata["retry"], "mine");
    }

    #[test]
    fn a_model_retry_replaces_the_execution_record() {
        let error = ToolError::model_retry("try again");
        let part = outcome(Err(error), 2).into_return_part("c", "t");
        assert_eq!(part.metadata["retry"]["class"], "model");
        assert_eq!(part.metadata["retry"]["retry"], 1);
        assert_eq!(part.kind, ToolReturnKind::ModelRetry);
    }
}

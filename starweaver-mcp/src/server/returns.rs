//! A tool return as an MCP call result: the content the model would have seen, as text,
//! with `structuredContent` when the tool publishes an object `outputSchema`, and `isError`
//! for every failure. The registry has already bounded it.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;
use starweaver_core::model::{ToolReturnKind, ToolReturnPart};

/// `part` as the client gets it. `structured` says whether the tool's `outputSchema` was
/// served, so an object result is also its `structuredContent`.
pub(crate) fn call_result(part: ToolReturnPart, structured: bool) -> CallToolResult {
    match part.kind {
        ToolReturnKind::Success | ToolReturnKind::Feedback => {
            let text = text_of(&part.content);
            let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
            if structured && part.kind == ToolReturnKind::Success && part.content.is_object() {
                result.structured_content = Some(part.content);
            }
            result
        }
        ToolReturnKind::Deferred => error(format!(
            "`{}` hands its calls to an outside worker, which an MCP call cannot wait for; \
             call it from an agent run instead",
            part.tool_name
        )),
        _ => error(message_of(&part.content)),
    }
}

/// An error result whose text the client shows.
pub(crate) fn error(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

/// A string as itself, anything else as compact JSON.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// The `message` of an error return (the registry always writes one), else its JSON.
fn message_of(content: &Value) -> String {
    content
        .get("message")
        .and_then(Value::as_str)
        .map_or_else(|| text_of(content), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use starweaver_core::JsonMap;

    fn part(kind: ToolReturnKind, content: Value) -> ToolReturnPart {
        ToolReturnPart {
            tool_call_id: "1".into(),
            tool_name: "t".into(),
            content,
            kind,
            metadata: JsonMap::new(),
            private_metadata: JsonMap::new(),
        }
    }

    fn text(result: &CallToolResult) -> Option<&str> {
        result.content.first().and_then(|block| match block {
            ContentBlock::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
    }

    #[test]
    fn a_success_is_text_and_an_object_is_structured_when_the_schema_is_served() {
        let served = call_result(part(ToolReturnKind::Success, json!({"n": 1})), true);
        assert_eq!(served.structured_content, Some(json!({"n": 1})));
        assert_eq!(text(&served), Some(r#"{"n":1}"#));
        assert_eq!(served.is_error, Some(false));
        let plain = call_result(part(ToolReturnKind::Success, json!("hi")), true);
        assert_eq!(plain.structured_content, None);
        assert_eq!(text(&plain), Some("hi"));
        let unschemed = call_result(part(ToolReturnKind::Success, json!({"n": 1})), false);
        assert_eq!(unschemed.structured_content, None);
    }

    #[test]
    fn failures_are_error_results_with_the_message() {
        let content = json!({"success": false, "message": "boom"});
        let failed = call_result(part(ToolReturnKind::ExecutionFailed, content), true);
        assert_eq!(failed.is_error, Some(true));
        assert_eq!(text(&failed), Some("boom"));
        let deferred = call_result(part(ToolReturnKind::Deferred, json!({})), false);
        assert_eq!(deferred.is_error, Some(true));
    }
}

//! A server's call result as a tool return: `structuredContent` (checked
//! against the tool's `outputSchema`) when present, else its content
//! blocks; `isError` as an error return carrying the server's text.

use serde_json::{json, Map, Value};
use starweaver_core::tools::{schema_problems, ToolError, ToolResult};

/// How the content and error of one call result reach the model.
pub(crate) fn to_tool_result(
    result: &rmcp::model::CallToolResult,
    output_schema: Option<&jsonschema::Validator>,
) -> Result<ToolResult, ToolError> {
    let blocks: Vec<Value> = result
        .content
        .iter()
        .filter_map(|block| serde_json::to_value(block).ok())
        .map(map_block)
        .collect();
    if result.is_error == Some(true) {
        let text = text_of(&blocks);
        let message = if text.is_empty() {
            "the server reported an error without text".to_string()
        } else {
            text
        };
        return Err(ToolError::Feedback {
            message,
            details: result.structured_content.clone(),
        });
    }
    if let Some(structured) = &result.structured_content {
        if let Some(validator) = output_schema {
            let problems = schema_problems(validator, structured);
            if !problems.is_empty() {
                return Err(ToolError::feedback(format!(
                    "the server's structured result does not match its outputSchema: {}",
                    problems.join("; ")
                )));
            }
        }
        return Ok(ToolResult::new(structured.clone()));
    }
    Ok(ToolResult::new(content_of(blocks)))
}

/// One text block is its text; anything else is the list of blocks.
fn content_of(mut blocks: Vec<Value>) -> Value {
    if blocks.len() == 1 && blocks[0]["type"] == "text" {
        if let Some(text) = blocks[0].get_mut("text").map(Value::take) {
            return text;
        }
    }
    Value::Array(blocks)
}

/// The text blocks' text, one per line.
fn text_of(blocks: &[Value]) -> String {
    blocks
        .iter()
        .filter(|block| block["type"] == "text")
        .filter_map(|block| block["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A content block as the model sees it: text, image and audio with
/// their data, embedded resources with their URI and text or data,
/// resource links; annotations and `_meta` left out.
fn map_block(block: Value) -> Value {
    let Value::Object(mut fields) = block else {
        return block;
    };
    fields.remove("annotations");
    fields.remove("_meta");
    match fields.get("type").and_then(Value::as_str) {
        Some("resource") => {
            let resource = fields.remove("resource").unwrap_or(Value::Null);
            let mut mapped = Map::new();
            mapped.insert("type".into(), json!("resource"));
            if let Value::Object(resource) = resource {
                for key in ["uri", "mimeType", "text", "blob"] {
                    if let Some(value) = resource.get(key) {
                        mapped.insert(key.into(), value.clone());
                    }
                }
            }
            Value::Object(mapped)
        }
        _ => Value::Object(fields),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn result(value: Value) -> rmcp::model::CallToolResult {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn one_text_block_is_its_text_and_several_blocks_stay_a_list() {
        let one = to_tool_result(
            &result(json!({"content": [{"type": "text", "text": "hi"}]})),
            None,
        );
        assert_eq!(one.unwrap().content, json!("hi"));
        let many = to_tool_result(
            &result(json!({"content": [
                {"type": "text", "text": "a", "annotations": {"priority": 1}},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///x", "mimeType": "text/plain", "text": "body"}}
            ]})),
            None,
        )
        .unwrap();
        assert_eq!(
            many.content,
            json!([
                {"type": "text", "text": "a"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource", "uri": "file:///x", "mimeType": "text/plain", "text": "body"}
            ])
        );
    }

    #[test]
    fn structured_content_wins_and_is_checked_against_the_output_schema() {
        let schema =
            json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
        let validator = jsonschema::validator_for(&schema).unwrap();
        let good = result(
            json!({"content": [{"type": "text", "text": "{\"n\":1}"}], "structuredContent": {"n": 1}}),
        );
        assert_eq!(
            to_tool_result(&good, Some(&validator)).unwrap().content,
            json!({"n": 1})
        );
        let bad = result(json!({"content": [], "structuredContent": {"n": "x"}}));
        let error = to_tool_result(&bad, Some(&validator)).unwrap_err();
        assert!(error.to_string().contains("outputSchema"), "{error}");
    }

    #[test]
    fn is_error_is_an_error_return_with_the_servers_text() {
        let failed =
            result(json!({"content": [{"type": "text", "text": "no such city"}], "isError": true}));
        let error = to_tool_result(&failed, None).unwrap_err();
        assert_eq!(error.model_message(), "no such city");
        let bare = result(json!({"content": [], "isError": true}));
        assert!(to_tool_result(&bare, None).is_err());
    }
}

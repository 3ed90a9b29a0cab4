//! A Messages answer (whole or streamed) as a provider-neutral response.

use serde::Deserialize;
use serde_json::Value;

use starweaver_core::model::{
    FinishReason, ModelResponse, ResponsePart, TextPart, ToolCallArguments, ToolCallPart, Usage,
};

/// Most content blocks one answer may hold.
pub(super) const MAX_BLOCKS: usize = 512;

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    content: Vec<Value>,
    #[serde(default)]
    stop_reason: Option<String>,
    #[serde(default)]
    usage: Option<WireUsage>,
    /// Set on an error object (`"type": "error"`), which some gateways answer with 200.
    #[serde(default)]
    error: Option<Value>,
}

/// Token counts as the protocol reports them (cache reads and writes are input too).
#[derive(Clone, Copy, Debug, Default, Deserialize)]
pub(super) struct WireUsage {
    #[serde(default, deserialize_with = "crate::http::count")]
    pub input_tokens: u64,
    #[serde(default, deserialize_with = "crate::http::count")]
    pub output_tokens: u64,
    #[serde(default, deserialize_with = "crate::http::count")]
    pub cache_creation_input_tokens: u64,
    #[serde(default, deserialize_with = "crate::http::count")]
    pub cache_read_input_tokens: u64,
}

impl WireUsage {
    pub(super) fn usage(self) -> Usage {
        Usage {
            requests: 1,
            input_tokens: self
                .input_tokens
                .saturating_add(self.cache_creation_input_tokens)
                .saturating_add(self.cache_read_input_tokens),
            output_tokens: self.output_tokens,
            tool_calls: 0,
        }
    }
}

/// A stop reason in the protocol's words.
pub(super) fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "tool_use" => FinishReason::ToolCalls,
        "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "refusal" => FinishReason::ContentFilter,
        _ => FinishReason::Stop,
    }
}

/// One content block as a response part: text and tool use; other kinds (thinking) are not
/// parts of the neutral response.
pub(super) fn block_part(block: &Value) -> Option<ResponsePart> {
    match block.get("type")?.as_str()? {
        "text" => {
            let text = block.get("text")?.as_str()?;
            (!text.is_empty()).then(|| ResponsePart::Text(TextPart::new(text)))
        }
        "tool_use" => Some(ResponsePart::ToolCall(ToolCallPart {
            id: block.get("id")?.as_str()?.to_string(),
            name: block.get("name")?.as_str()?.to_string(),
            arguments: ToolCallArguments::Json(
                block
                    .get("input")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(serde_json::Map::new())),
            ),
        })),
        _ => None,
    }
}

/// Parses a whole answer.
pub(super) fn parse(body: &[u8]) -> Result<ModelResponse, String> {
    let message: Message = serde_json::from_slice(body)
        .map_err(|error| {
            format!(
                "the answer is not a message: {error}; check that `model.base_url` points at a Messages API (the URL before `/messages`)"
            )
        })?;
    if let Some(error) = message.error.filter(|error| !error.is_null()) {
        return Err(format!(
            "the provider reported an error: {}",
            crate::http::error_text(&error)
        ));
    }
    if message.content.len() > MAX_BLOCKS {
        return Err(format!(
            "the answer holds more than {MAX_BLOCKS} content blocks"
        ));
    }
    Ok(ModelResponse {
        parts: message.content.iter().filter_map(block_part).collect(),
        usage: message.usage.unwrap_or_default().usage(),
        finish_reason: message.stop_reason.as_deref().map(finish_reason),
        model_name: message.model,
        id: message.id,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn null_cache_counts_read_as_zero() {
        // Compatible servers send `null` for counts they do not track.
        let body = br#"{"model":"m","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn",
            "usage":{"input_tokens":5,"output_tokens":2,"cache_creation_input_tokens":null,"cache_read_input_tokens":null}}"#;
        let response = parse(body).unwrap();
        assert_eq!(response.text_content(), "hi");
        assert_eq!(response.usage.input_tokens, 5);
        assert_eq!(response.usage.output_tokens, 2);
        let body =
            br#"{"content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":null}"#;
        assert_eq!(parse(body).unwrap().usage.requests, 1);
    }
}

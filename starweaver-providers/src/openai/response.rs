//! A Chat Completions answer (whole or streamed) as a provider-neutral response.

use serde::Deserialize;

use starweaver_core::model::{
    FinishReason, ModelResponse, ResponsePart, TextPart, ToolCallPart, Usage,
};

/// Most tool calls one answer may hold.
pub(super) const MAX_CALLS: usize = 256;

#[derive(Deserialize)]
struct Completion {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<WireUsage>,
    /// An error some gateways put in a 200 answer.
    #[serde(default)]
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Choice {
    message: ChoiceMessage,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct ChoiceMessage {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    refusal: Option<String>,
    #[serde(default)]
    tool_calls: Vec<WireCall>,
}

#[derive(Deserialize)]
struct WireCall {
    /// Some compatible servers send no id (or `null`); the run gives such calls one.
    #[serde(default)]
    id: Option<String>,
    function: WireFunction,
}

#[derive(Deserialize)]
struct WireFunction {
    name: String,
    #[serde(default)]
    arguments: String,
}

/// Token counts as the protocol reports them.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
pub(super) struct WireUsage {
    #[serde(default, deserialize_with = "crate::http::count")]
    pub prompt_tokens: u64,
    #[serde(default, deserialize_with = "crate::http::count")]
    pub completion_tokens: u64,
}

impl WireUsage {
    pub(super) fn usage(self) -> Usage {
        Usage {
            requests: 1,
            input_tokens: self.prompt_tokens,
            output_tokens: self.completion_tokens,
            tool_calls: 0,
        }
    }
}

/// A finish reason in the protocol's words.
pub(super) fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "length" => FinishReason::Length,
        "content_filter" => FinishReason::ContentFilter,
        _ => FinishReason::Stop,
    }
}

/// Assembles the response both paths produce: text first (one part), then the calls.
pub(super) fn assemble(
    text: String,
    calls: Vec<ToolCallPart>,
    usage: Usage,
    finish_reason: Option<FinishReason>,
    model: Option<String>,
    id: Option<String>,
) -> ModelResponse {
    let mut parts = Vec::with_capacity(calls.len() + 1);
    if !text.is_empty() {
        parts.push(ResponsePart::Text(TextPart::new(text)));
    }
    parts.extend(calls.into_iter().map(ResponsePart::ToolCall));
    ModelResponse {
        parts,
        usage,
        finish_reason,
        model_name: model,
        id,
    }
}

/// Parses a whole answer.
pub(super) fn parse(body: &[u8]) -> Result<ModelResponse, String> {
    let completion: Completion = serde_json::from_slice(body)
        .map_err(|error| {
            format!(
                "the answer is not a chat completion: {error}; check that `model.base_url` points at a Chat Completions API (the URL before `/chat/completions`)"
            )
        })?;
    if let Some(error) = completion.error.filter(|error| !error.is_null()) {
        return Err(format!(
            "the provider reported an error: {}",
            crate::http::error_text(&error)
        ));
    }
    let Some(choice) = completion.choices.into_iter().next() else {
        return Err("the answer holds no choices".to_string());
    };
    if choice.message.tool_calls.len() > MAX_CALLS {
        return Err(format!("the answer holds more than {MAX_CALLS} tool calls"));
    }
    let text = choice
        .message
        .content
        .filter(|text| !text.is_empty())
        .or(choice.message.refusal)
        .unwrap_or_default();
    let calls = choice
        .message
        .tool_calls
        .into_iter()
        .map(|call| {
            ToolCallPart::new(
                call.id.unwrap_or_default(),
                call.function.name,
                call.function.arguments,
            )
        })
        .collect();
    Ok(assemble(
        text,
        calls,
        completion.usage.unwrap_or_default().usage(),
        choice.finish_reason.as_deref().map(finish_reason),
        completion.model,
        completion.id,
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn calls_without_an_id_still_parse() {
        // The streamed path already took these; the whole answer refused them.
        let body = br#"{"choices":[{"message":{"content":null,"tool_calls":[
            {"type":"function","function":{"name":"a","arguments":"{}"}},
            {"id":null,"type":"function","function":{"name":"b","arguments":"{}"}}
        ]},"finish_reason":"tool_calls"}]}"#;
        let response = parse(body).unwrap();
        let names: Vec<(&str, &str)> = response
            .calls()
            .map(|call| (call.id.as_str(), call.name.as_str()))
            .collect();
        assert_eq!(names, [("", "a"), ("", "b")]);
    }

    #[test]
    fn null_token_counts_read_as_zero() {
        let body = br#"{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],
            "usage":{"prompt_tokens":4,"completion_tokens":null}}"#;
        let response = parse(body).unwrap();
        assert_eq!(response.usage.input_tokens, 4);
        assert_eq!(response.usage.output_tokens, 0);
    }
}

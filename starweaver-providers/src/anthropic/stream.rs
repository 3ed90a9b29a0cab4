//! Messages stream events assembled into the same response a whole answer gives: each
//! content block built from its start and deltas, usage from `message_start` and
//! `message_delta`, the stop reason from `message_delta`, the end at `message_stop`.

use std::collections::BTreeMap;

use serde_json::Value;

use super::response::{block_part, finish_reason, WireUsage, MAX_BLOCKS};
use crate::http::{Assemble, SseEvent};
use starweaver_core::model::{FinishReason, ModelResponse, ResponsePart, ToolCallArguments};

/// One block being built.
struct Partial {
    block: Value,
    text: String,
    json: String,
}

/// The response so far.
#[derive(Default)]
pub struct Assembler {
    blocks: BTreeMap<u64, Partial>,
    usage: WireUsage,
    finish: Option<FinishReason>,
    model: Option<String>,
    id: Option<String>,
    done: bool,
}

fn field<'a>(value: &'a Value, name: &str) -> Option<&'a Value> {
    value.get(name)
}

impl Assembler {
    fn start(&mut self, data: &Value) -> Result<(), String> {
        let index = field(data, "index").and_then(Value::as_u64).unwrap_or(0);
        if self.blocks.len() >= MAX_BLOCKS && !self.blocks.contains_key(&index) {
            return Err(format!(
                "the answer holds more than {MAX_BLOCKS} content blocks"
            ));
        }
        let block = field(data, "content_block").cloned().unwrap_or(Value::Null);
        let text = field(&block, "text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        self.blocks.insert(
            index,
            Partial {
                block,
                text,
                json: String::new(),
            },
        );
        Ok(())
    }

    fn delta(&mut self, data: &Value) -> Option<String> {
        let index = field(data, "index").and_then(Value::as_u64).unwrap_or(0);
        let delta = field(data, "delta")?;
        let partial = self.blocks.get_mut(&index)?;
        match field(delta, "type").and_then(Value::as_str)? {
            "text_delta" => {
                let text = field(delta, "text").and_then(Value::as_str)?;
                partial.text.push_str(text);
                Some(text.to_string())
            }
            "input_json_delta" => {
                let json = field(delta, "partial_json").and_then(Value::as_str)?;
                partial.json.push_str(json);
                None
            }
            _ => None,
        }
    }
}

impl Assemble for Assembler {
    fn push(&mut self, event: &SseEvent) -> Result<Option<String>, String> {
        if event.data.is_empty() {
            return Ok(None);
        }
        let data: Value = serde_json::from_str(&event.data)
            .map_err(|error| format!("a stream event is not JSON: {error}"))?;
        let kind = if event.event.is_empty() {
            field(&data, "type")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        } else {
            event.event.clone()
        };
        match kind.as_str() {
            "message_start" => {
                let message = field(&data, "message");
                self.model = message
                    .and_then(|message| field(message, "model"))
                    .and_then(Value::as_str)
                    .map(str::to_string);
                self.id = message
                    .and_then(|message| field(message, "id"))
                    .and_then(Value::as_str)
                    .map(str::to_string);
                if let Some(usage) = message.and_then(|message| field(message, "usage")) {
                    self.usage = serde_json::from_value(usage.clone()).unwrap_or_default();
                }
            }
            "content_block_start" => self.start(&data)?,
            "content_block_delta" => return Ok(self.delta(&data)),
            "message_delta" => {
                if let Some(reason) = field(&data, "delta")
                    .and_then(|delta| field(delta, "stop_reason"))
                    .and_then(Value::as_str)
                {
                    self.finish = Some(finish_reason(reason));
                }
                if let Some(output) = field(&data, "usage")
                    .and_then(|usage| field(usage, "output_tokens"))
                    .and_then(Value::as_u64)
                {
                    self.usage.output_tokens = output;
                }
            }
            "message_stop" => self.done = true,
            "error" => {
                let message = field(&data, "error")
                    .and_then(|error| field(error, "message"))
                    .and_then(Value::as_str)
                    .unwrap_or("no message");
                return Err(format!(
                    "the provider reported an error mid-stream: {message}"
                ));
            }
            _ => {}
        }
        Ok(None)
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn finish(self) -> Result<ModelResponse, String> {
        let (Some(finish), true) = (self.finish, self.done) else {
            return Err(format!(
                "the stream ended before the message did ({} content block(s) arrived); the answer is incomplete (not retried: the provider may have billed it); retry the request",
                self.blocks.len()
            ));
        };
        let mut parts = Vec::with_capacity(self.blocks.len());
        for (_, mut partial) in self.blocks {
            let mut cut_off = None;
            if let Value::Object(block) = &mut partial.block {
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        block.insert("text".into(), Value::String(partial.text));
                    }
                    Some("tool_use") => {
                        let input = if partial.json.trim().is_empty() {
                            block
                                .get("input")
                                .cloned()
                                .unwrap_or_else(|| Value::Object(serde_json::Map::new()))
                        } else {
                            match serde_json::from_str(&partial.json) {
                                Ok(input) => input,
                                // Input cut off (at `max_tokens`, say) stays a call whose raw
                                // arguments dispatch answers with a retry prompt; the answer
                                // is not lost.
                                Err(_) => {
                                    cut_off = Some(std::mem::take(&mut partial.json));
                                    Value::Object(serde_json::Map::new())
                                }
                            }
                        };
                        block.insert("input".into(), input);
                    }
                    _ => {}
                }
            }
            let mut part = block_part(&partial.block);
            if let (Some(ResponsePart::ToolCall(call)), Some(raw)) = (&mut part, cut_off) {
                call.arguments = ToolCallArguments::Raw(raw);
            }
            parts.extend(part);
        }
        Ok(ModelResponse {
            parts,
            usage: self.usage.usage(),
            finish_reason: Some(finish),
            model_name: self.model,
            id: self.id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use starweaver_core::model::ToolCallPart;

    fn event(name: &str, data: &str) -> SseEvent {
        SseEvent {
            event: name.to_string(),
            data: data.to_string(),
        }
    }

    #[test]
    fn blocks_build_from_starts_and_deltas() {
        let mut assembler = Assembler::default();
        let events = [
            event(
                "message_start",
                r#"{"type":"message_start","message":{"model":"claude-x","usage":{"input_tokens":10,"output_tokens":1}}}"#,
            ),
            event(
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            ),
            event(
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Look"}}"#,
            ),
            event(
                "content_block_stop",
                r#"{"type":"content_block_stop","index":0}"#,
            ),
            event(
                "content_block_start",
                r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"read","input":{}}}"#,
            ),
            event(
                "content_block_delta",
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"pa"}}"#,
            ),
            event(
                "content_block_delta",
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"th\":\"a\"}"}}"#,
            ),
            event("ping", r#"{"type":"ping"}"#),
            event(
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":12}}"#,
            ),
            event("message_stop", r#"{"type":"message_stop"}"#),
        ];
        let mut text = String::new();
        for event in &events {
            if let Ok(Some(delta)) = assembler.push(event) {
                text.push_str(&delta);
            }
        }
        assert_eq!(text, "Look");
        assert!(assembler.is_done());
        let response = assembler.finish().unwrap_or_default();
        assert_eq!(response.text_content(), "Look");
        assert_eq!(
            response.calls().next(),
            Some(&ToolCallPart::new(
                "t1",
                "read",
                serde_json::json!({"path": "a"})
            ))
        );
        assert_eq!(response.usage.input_tokens, 10);
        assert_eq!(response.usage.output_tokens, 12);
        assert_eq!(response.finish_reason, Some(FinishReason::ToolCalls));
    }

    #[test]
    fn null_cache_counts_in_message_start_keep_the_other_counts() {
        let mut assembler = Assembler::default();
        for event in [
            event(
                "message_start",
                r#"{"type":"message_start","message":{"model":"m","usage":{"input_tokens":10,"output_tokens":1,"cache_creation_input_tokens":null,"cache_read_input_tokens":null}}}"#,
            ),
            event(
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}"#,
            ),
            event("message_stop", r#"{"type":"message_stop"}"#),
        ] {
            assert!(assembler.push(&event).is_ok());
        }
        let response = assembler.finish().unwrap_or_default();
        assert_eq!(response.usage.input_tokens, 10);
        assert_eq!(response.usage.output_tokens, 3);
    }

    // Regression: a tool call whose streamed input was cut off (at `max_tokens`) failed the
    // whole answer, text and other calls included.
    #[test]
    fn a_cut_off_tool_input_stays_a_call_with_its_raw_arguments() {
        let mut assembler = Assembler::default();
        for event in [
            event(
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Reading."}}"#,
            ),
            event(
                "content_block_start",
                r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"read","input":{}}}"#,
            ),
            event(
                "content_block_delta",
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"pa"}}"#,
            ),
            event(
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":9}}"#,
            ),
            event("message_stop", r#"{"type":"message_stop"}"#),
        ] {
            let _ = assembler.push(&event);
        }
        let response = assembler.finish().unwrap_or_default();
        assert_eq!(response.text_content(), "Reading.");
        assert_eq!(
            response.calls().next(),
            Some(&ToolCallPart::new("t1", "read", "{\"pa"))
        );
        assert_eq!(response.finish_reason, Some(FinishReason::Length));
    }

    #[test]
    fn an_error_event_or_a_missing_stop_fails() {
        let mut assembler = Assembler::default();
        let error = assembler
            .push(&event(
                "error",
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            ))
            .err()
            .unwrap_or_default();
        assert!(error.contains("Overloaded"), "{error}");
        let mut assembler = Assembler::default();
        let _ = assembler.push(&event(
            "message_delta",
            r#"{"delta":{"stop_reason":"end_turn"}}"#,
        ));
        assert!(assembler.finish().is_err());
    }
}

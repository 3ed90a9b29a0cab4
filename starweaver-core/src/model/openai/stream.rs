//! Chat Completions chunks assembled into the same response a whole answer gives: text
//! deltas joined, tool-call deltas joined by index, usage from the last chunk.
//!
//! Some compatible servers number every call of a turn `index: 0`, or leave the index out,
//! and send each call whole with its own id: a delta whose id differs from the one its index
//! holds starts a new call instead of being glued onto it.

use std::collections::HashMap;

use serde::Deserialize;

use super::response::{assemble, finish_reason, WireUsage, MAX_CALLS};
use crate::model::http::{Assemble, SseEvent};
use crate::model::{FinishReason, ModelResponse, ToolCallPart};

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    choices: Vec<ChunkChoice>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct ChunkChoice {
    #[serde(default)]
    delta: Option<Delta>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Delta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    refusal: Option<String>,
    #[serde(default)]
    tool_calls: Vec<CallDelta>,
}

#[derive(Deserialize)]
struct CallDelta {
    #[serde(default)]
    index: u32,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<FunctionDelta>,
}

#[derive(Deserialize)]
struct FunctionDelta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}

#[derive(Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// The response so far.
#[derive(Default)]
pub(super) struct Assembler {
    text: String,
    refusal: String,
    /// Calls in the order they started, each with the index it came under.
    calls: Vec<(u32, PartialCall)>,
    /// Where the call an index currently names sits in `calls`.
    slots: HashMap<u32, usize>,
    finish: Option<FinishReason>,
    usage: Option<WireUsage>,
    model: Option<String>,
    done: bool,
}

impl Assembler {
    /// Takes one event's data; returns the text it adds.
    pub(super) fn push(&mut self, data: &str) -> Result<Option<String>, String> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(None);
        }
        let chunk: Chunk = serde_json::from_str(data).map_err(|error| {
            format!("a stream chunk is not JSON of a completion chunk: {error}")
        })?;
        if let Some(error) = chunk.error {
            let message = error
                .get("message")
                .and_then(serde_json::Value::as_str)
                .map_or_else(|| error.to_string(), str::to_string);
            return Err(format!(
                "the provider reported an error mid-stream: {message}"
            ));
        }
        if chunk.model.is_some() {
            self.model = chunk.model;
        }
        if chunk.usage.is_some() {
            self.usage = chunk.usage;
        }
        let mut added = String::new();
        for choice in chunk.choices.into_iter().take(1) {
            if let Some(reason) = choice.finish_reason {
                self.finish = Some(finish_reason(&reason));
            }
            let Some(delta) = choice.delta else { continue };
            if let Some(text) = delta.content {
                self.text.push_str(&text);
                added.push_str(&text);
            }
            if let Some(refusal) = delta.refusal {
                self.refusal.push_str(&refusal);
            }
            for call in delta.tool_calls {
                let id = call.id.filter(|id| !id.is_empty());
                let partial = self.partial(call.index, id.as_deref())?;
                if let Some(id) = id {
                    if partial.id.is_empty() {
                        partial.id = id;
                    }
                }
                if let Some(function) = call.function {
                    if let Some(name) = function.name.filter(|name| !name.is_empty()) {
                        if partial.name.is_empty() {
                            partial.name = name;
                        }
                    }
                    if let Some(arguments) = function.arguments {
                        partial.arguments.push_str(&arguments);
                    }
                }
            }
        }
        Ok((!added.is_empty()).then_some(added))
    }

    /// Whether `[DONE]` arrived.
    /// The call a delta under `index` (carrying `id`, if any) adds to: the one the index
    /// names, unless the delta brings another id, which starts a new call.
    fn partial(&mut self, index: u32, id: Option<&str>) -> Result<&mut PartialCall, String> {
        let current = self.slots.get(&index).copied().filter(|slot| {
            let held = &self.calls[*slot].1.id;
            id.is_none_or(|id| held.is_empty() || held == id)
        });
        let slot = match current {
            Some(slot) => slot,
            None => {
                if self.calls.len() >= MAX_CALLS {
                    return Err(format!("the answer holds more than {MAX_CALLS} tool calls"));
                }
                self.calls.push((index, PartialCall::default()));
                self.slots.insert(index, self.calls.len() - 1);
                self.calls.len() - 1
            }
        };
        Ok(&mut self.calls[slot].1)
    }

    pub(super) fn is_done(&self) -> bool {
        self.done
    }

    /// The finished response; an answer that never said why it stopped is incomplete.
    pub(super) fn finish(self) -> Result<ModelResponse, String> {
        let Some(finish) = self.finish else {
            return Err(format!(
                "the stream ended without a finish reason ({} characters of text and {} tool call(s) arrived); the answer is incomplete (not retried: the provider may have billed it); retry the request",
                self.text.chars().count(),
                self.calls.len()
            ));
        };
        let text = if self.text.is_empty() {
            self.refusal
        } else {
            self.text
        };
        // By index, then in the order they started (a stable sort).
        let mut calls = self.calls;
        calls.sort_by_key(|(index, _)| *index);
        let calls = calls
            .into_iter()
            .map(|(_, call)| ToolCallPart::new(call.id, call.name, call.arguments))
            .collect();
        Ok(assemble(
            text,
            calls,
            self.usage.unwrap_or_default().usage(),
            Some(finish),
            self.model,
        ))
    }
}

impl Assemble for Assembler {
    fn push(&mut self, event: &SseEvent) -> Result<Option<String>, String> {
        if event.data.is_empty() {
            return Ok(None);
        }
        Assembler::push(self, &event.data)
    }

    fn is_done(&self) -> bool {
        Assembler::is_done(self)
    }

    fn finish(self) -> Result<ModelResponse, String> {
        Assembler::finish(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_tool_call_deltas_join_by_index() {
        let mut assembler = Assembler::default();
        for data in [
            r#"{"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"one","arguments":""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"two","arguments":"{\"x\""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":":1}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7}}"#,
            "[DONE]",
        ] {
            assembler.push(data).unwrap_or_default();
        }
        assert!(assembler.is_done());
        let response = assembler.finish().unwrap_or_default();
        let calls: Vec<_> = response.calls().cloned().collect();
        assert_eq!(calls[0], ToolCallPart::new("a", "one", "{}"));
        assert_eq!(calls[1], ToolCallPart::new("b", "two", "{\"x\":1}"));
        assert_eq!(response.usage.output_tokens, 7);
        assert_eq!(response.finish_reason, Some(FinishReason::ToolCalls));
    }

    #[test]
    fn calls_under_one_index_with_their_own_ids_stay_apart() {
        let mut assembler = Assembler::default();
        for data in [
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"one","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"two","arguments":"{\"x\":"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"c","function":{"name":"three","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        ] {
            assembler.push(data).unwrap_or_default();
        }
        let response = assembler.finish().unwrap_or_default();
        let calls: Vec<_> = response.calls().cloned().collect();
        assert_eq!(
            calls,
            [
                ToolCallPart::new("a", "one", "{}"),
                ToolCallPart::new("b", "two", "{\"x\":1}"),
                ToolCallPart::new("c", "three", "{}"),
            ]
        );
    }

    #[test]
    fn a_stream_without_a_finish_reason_is_incomplete() {
        let mut assembler = Assembler::default();
        let _ = assembler.push(r#"{"choices":[{"index":0,"delta":{"content":"Hel"}}]}"#);
        let error = assembler.finish().err().unwrap_or_default();
        assert!(error.contains("without a finish reason"), "{error}");
    }

    #[test]
    fn error_chunks_and_garbage_fail_cleanly() {
        let mut assembler = Assembler::default();
        let error = assembler
            .push(r#"{"error":{"message":"server overloaded"}}"#)
            .err()
            .unwrap_or_default();
        assert!(error.contains("server overloaded"), "{error}");
        assert!(assembler.push("{not json").is_err());
    }
}

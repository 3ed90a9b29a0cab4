//! Chat Completions chunks assembled into the same response a whole answer gives: text
//! deltas joined, tool-call deltas joined by index, usage from the last chunk.

use std::collections::HashMap;

use serde::Deserialize;

use super::response::{assemble, finish_reason, WireUsage, MAX_CALLS};
use crate::http::{Assemble, SseEvent};
use starweaver_core::model::{FinishReason, ModelResponse, ToolCallPart};

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    id: Option<String>,
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
    index: Option<u32>,
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
pub struct Assembler {
    text: String,
    refusal: String,
    /// The calls in the order they opened.
    calls: Vec<PartialCall>,
    /// Which call each protocol index last named.
    by_index: HashMap<u32, usize>,
    finish: Option<FinishReason>,
    usage: Option<WireUsage>,
    model: Option<String>,
    id: Option<String>,
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
        if chunk.id.is_some() {
            self.id = chunk.id;
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
                let slot = self.slot(&call)?;
                let partial = &mut self.calls[slot];
                if let Some(id) = call.id.filter(|id| !id.is_empty()) {
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

    /// The call a delta continues, or a new one: a delta with an id other than its index's
    /// call opens a new call (some servers label every call `index: 0`), one without an
    /// index continues the last call unless its id says it is new, and one without an id
    /// that names a tool when its call already has a name opens a new call.
    fn slot(&mut self, call: &CallDelta) -> Result<usize, String> {
        let id = call.id.as_deref().filter(|id| !id.is_empty());
        let current = match call.index {
            Some(index) => self.by_index.get(&index).copied(),
            None => self.calls.len().checked_sub(1),
        };
        let name = call
            .function
            .as_ref()
            .and_then(|function| function.name.as_deref())
            .filter(|name| !name.is_empty());
        let continues = current.filter(|slot| {
            let known = &self.calls[*slot];
            let same_id = id.is_none_or(|id| known.id.is_empty() || known.id == id);
            // A name arrives once per call: a second one starts the next call.
            let same_call = id.is_some() || name.is_none() || known.name.is_empty();
            same_id && same_call
        });
        if let Some(slot) = continues {
            return Ok(slot);
        }
        if self.calls.len() >= MAX_CALLS {
            return Err(format!("the answer holds more than {MAX_CALLS} tool calls"));
        }
        self.calls.push(PartialCall::default());
        let slot = self.calls.len() - 1;
        if let Some(index) = call.index {
            self.by_index.insert(index, slot);
        }
        Ok(slot)
    }

    /// Whether `[DONE]` arrived.
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
        let calls = self
            .calls
            .into_iter()
            .map(|call| ToolCallPart::new(call.id, call.name, call.arguments))
            .collect();
        Ok(assemble(
            text,
            calls,
            self.usage.unwrap_or_default().usage(),
            Some(finish),
            self.model,
            self.id,
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
    fn calls_that_share_or_omit_an_index_stay_apart() {
        // Some compatible servers label every call `index: 0`, others send no index at all;
        // a new call id, or a second tool name, starts a new call either way.
        for (second_id, chunks) in [
            (
                "b",
                [
                    r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"one","arguments":"{\"p\":1}"}}]}}]}"#,
                    r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"two","arguments":"{}"}}]}}]}"#,
                ],
            ),
            (
                "b",
                [
                    r#"{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"one","arguments":"{\"p\""}}]}}]}"#,
                    r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":":1}"}},{"id":"b","function":{"name":"two","arguments":"{}"}}]}}]}"#,
                ],
            ),
            (
                "",
                [
                    r#"{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"one","arguments":"{\"p\":1}"}}]}}]}"#,
                    r#"{"choices":[{"delta":{"tool_calls":[{"function":{"name":"two","arguments":"{}"}}]}}]}"#,
                ],
            ),
        ] {
            let mut assembler = Assembler::default();
            for data in chunks {
                assert!(assembler.push(data).is_ok(), "{data}");
            }
            assert!(assembler
                .push(r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#)
                .is_ok());
            let response = assembler.finish().unwrap_or_default();
            let calls: Vec<_> = response.calls().cloned().collect();
            assert_eq!(
                calls,
                [
                    ToolCallPart::new("a", "one", "{\"p\":1}"),
                    ToolCallPart::new(second_id, "two", "{}")
                ],
                "{chunks:?}"
            );
        }
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
}

//! What a turn's templates can read, worked out from the conversation alone (no state in the
//! model), so a saved run resumed in another process plays on from the same turn.
//!
//! * `turn`: the 1-based number of the turn being played: one more than the model responses
//!   in the conversation, so a session's second prompt plays the turns after the first answer.
//! * `prompt`: the text of the run's user prompt.
//! * `calls`: every call of the run so far (since its prompt), across turns, in order, each
//!   `{id, tool, args, result, kind}`: `result` is the tool return's content (the tool's JSON
//!   result, or the error object), or the retry request's text when the call was refused;
//!   `kind` is the return's kind (`success`, `feedback`, ..., `retry`); both are `null` while
//!   the call has no return.

use serde::Serialize;
use serde_json::Value;
use starweaver_core::model::{ModelMessage, RequestPart};

/// One call of the run, as a template sees it.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct SeenCall {
    /// The call's id.
    pub id: String,
    /// The tool called.
    pub tool: String,
    /// The arguments sent (`null` when they were not JSON).
    pub args: Value,
    /// The return's content, or the retry request's text.
    pub result: Value,
    /// The return's kind, or `retry`.
    pub kind: Option<String>,
}

/// The conversation as a script reads it.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Seen {
    /// 1-based number of the turn to play.
    pub turn: usize,
    /// The run's prompt.
    pub prompt: String,
    /// The run's calls.
    pub calls: Vec<SeenCall>,
    /// Every call of the conversation, for call ids that never repeat.
    #[serde(skip)]
    pub calls_so_far: usize,
}

impl Seen {
    /// Reads `messages`.
    pub(crate) fn of(messages: &[ModelMessage]) -> Self {
        let responses = messages
            .iter()
            .filter(|message| matches!(message, ModelMessage::Response(_)))
            .count();
        let start = messages
            .iter()
            .rposition(|message| match message {
                ModelMessage::Request(request) => request
                    .parts
                    .iter()
                    .any(|part| matches!(part, RequestPart::UserPrompt(_))),
                ModelMessage::Response(_) => false,
            })
            .unwrap_or(0);
        let mut prompt = String::new();
        let mut calls: Vec<SeenCall> = Vec::new();
        let mut calls_so_far = 0usize;
        for (index, message) in messages.iter().enumerate() {
            match message {
                ModelMessage::Response(response) => {
                    for call in response.calls() {
                        calls_so_far += 1;
                        if index >= start {
                            calls.push(SeenCall {
                                id: call.id.clone(),
                                tool: call.name.clone(),
                                args: call.arguments.to_json().unwrap_or(Value::Null),
                                result: Value::Null,
                                kind: None,
                            });
                        }
                    }
                }
                ModelMessage::Request(request) if index >= start => {
                    for part in &request.parts {
                        match part {
                            RequestPart::UserPrompt(part) => prompt.clone_from(&part.content),
                            RequestPart::ToolReturn(part) => {
                                if let Some(call) = find(&mut calls, &part.tool_call_id) {
                                    call.result = part.content.clone();
                                    call.kind = Some(part.kind.as_str().to_string());
                                }
                            }
                            RequestPart::RetryPrompt(part) => {
                                let call = part
                                    .tool_call_id
                                    .as_deref()
                                    .and_then(|id| find(&mut calls, id));
                                if let Some(call) = call {
                                    call.result = Value::String(part.content.clone());
                                    call.kind = Some("retry".to_string());
                                }
                            }
                            RequestPart::Instructions(_) => {}
                        }
                    }
                }
                ModelMessage::Request(_) => {}
            }
        }
        Self {
            turn: responses + 1,
            prompt,
            calls,
            calls_so_far,
        }
    }
}

/// The run's call with `id`, the latest when a provider reused one.
fn find<'a>(calls: &'a mut [SeenCall], id: &str) -> Option<&'a mut SeenCall> {
    calls.iter_mut().rev().find(|call| call.id == id)
}

//! The conversation so far, as the test model plans from it: the prompt,
//! and every call it made with what came back.

use serde_json::Value;

use super::kind::{kind, Kind};
use crate::model::{ModelMessage, RequestPart, ToolReturnKind};

/// What came back for one call.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Outcome {
    /// A tool return.
    Returned {
        /// How the call ended.
        kind: ToolReturnKind,
        /// What the tool returned (or the error text).
        content: Value,
    },
    /// The runtime asked for a retry (invalid arguments, unknown tool, a
    /// tool's retry request).
    Retry(String),
}

/// One call of an earlier response.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Call {
    pub(super) id: String,
    pub(super) tool: String,
    pub(super) arguments: Value,
    /// The tool a proxy's `call_tool` named.
    pub(super) inner: Option<String>,
    pub(super) outcome: Option<Outcome>,
}

impl Call {
    /// The tool that did the work: the named one for `call_tool`.
    pub(super) fn target(&self) -> &str {
        self.inner.as_deref().unwrap_or(&self.tool)
    }

    /// The arguments the target got.
    pub(super) fn target_arguments(&self) -> &Value {
        match self.inner {
            Some(_) => self.arguments.get("arguments").unwrap_or(&Value::Null),
            None => &self.arguments,
        }
    }

    /// The content of a successful return.
    pub(super) fn success(&self) -> Option<&Value> {
        match &self.outcome {
            Some(Outcome::Returned {
                kind: ToolReturnKind::Success,
                content,
            }) => Some(content),
            _ => None,
        }
    }
}

/// The prompt and the calls so far.
#[derive(Debug, Clone, Default)]
pub(super) struct History {
    /// The last user prompt.
    pub(super) prompt: String,
    /// Every call, in order.
    pub(super) calls: Vec<Call>,
    /// Responses that made calls.
    pub(super) steps: usize,
}

impl History {
    pub(super) fn of(messages: &[ModelMessage]) -> Self {
        let mut history = Self::default();
        for message in messages {
            match message {
                ModelMessage::Response(response) => {
                    let before = history.calls.len();
                    for call in response.calls() {
                        let arguments = call.arguments.to_json().unwrap_or(Value::Null);
                        let inner = (kind(&call.name) == Kind::ProxyCall)
                            .then(|| arguments.get("name").and_then(Value::as_str))
                            .flatten()
                            .map(str::to_string);
                        history.calls.push(Call {
                            id: call.id.clone(),
                            tool: call.name.clone(),
                            arguments,
                            inner,
                            outcome: None,
                        });
                    }
                    if history.calls.len() > before {
                        history.steps += 1;
                    }
                }
                ModelMessage::Request(request) => {
                    for part in &request.parts {
                        match part {
                            RequestPart::UserPrompt(prompt) => {
                                history.prompt.clone_from(&prompt.content);
                            }
                            RequestPart::ToolReturn(part) => history.record(
                                &part.tool_call_id,
                                Outcome::Returned {
                                    kind: part.kind,
                                    content: part.content.clone(),
                                },
                            ),
                            RequestPart::RetryPrompt(part) => {
                                if let Some(id) = &part.tool_call_id {
                                    history.record(id, Outcome::Retry(part.content.clone()));
                                }
                            }
                            RequestPart::Instructions(_) => {}
                        }
                    }
                }
            }
        }
        history
    }

    /// Keeps the latest outcome of a call (a resumed approval replaces
    /// its pending return).
    fn record(&mut self, id: &str, outcome: Outcome) {
        if let Some(call) = self.calls.iter_mut().rev().find(|call| call.id == id) {
            call.outcome = Some(outcome);
        }
    }

    /// Whether `tool` was called directly.
    pub(super) fn called(&self, tool: &str) -> bool {
        self.calls.iter().any(|call| call.tool == tool)
    }
}

//! Conversation messages: requests sent to a model and its responses.

use serde::{Deserialize, Serialize};

use super::{FinishReason, ToolCallPart, ToolReturnPart, Usage};

/// One message of a conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ModelMessage {
    /// What the runtime sent.
    Request(ModelRequest),
    /// What the model answered.
    Response(ModelResponse),
}

/// Parts sent to the model in one request.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelRequest {
    /// The parts, in order.
    pub parts: Vec<RequestPart>,
}

impl ModelRequest {
    /// A request holding one user prompt.
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            parts: vec![RequestPart::UserPrompt(UserPromptPart::new(text))],
        }
    }
}

/// One part of a request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "part_kind", rename_all = "snake_case")]
pub enum RequestPart {
    /// System-level instructions.
    Instructions(InstructionsPart),
    /// Text from the user.
    UserPrompt(UserPromptPart),
    /// The result of a tool call.
    ToolReturn(ToolReturnPart),
    /// A request to correct a tool call (or the final answer).
    RetryPrompt(RetryPromptPart),
}

/// System-level instructions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstructionsPart {
    /// Instruction text.
    pub content: String,
}

/// Text from the user.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserPromptPart {
    /// Prompt text.
    pub content: String,
}

impl UserPromptPart {
    /// A user prompt.
    pub fn new(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
        }
    }
}

/// Asks the model to correct a tool call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetryPromptPart {
    /// The call being corrected.
    pub tool_call_id: Option<String>,
    /// The tool being corrected.
    pub tool_name: Option<String>,
    /// What to fix.
    pub content: String,
}

/// Parts of one model response.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelResponse {
    /// Text and tool calls, in the model's order.
    pub parts: Vec<ResponsePart>,
    /// Tokens and requests this response cost.
    #[serde(default)]
    pub usage: Usage,
    /// Why the model stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<FinishReason>,
    /// Model that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_name: Option<String>,
    /// The provider's id of the response (`chatcmpl-…`, `msg_…`), when it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

impl ModelResponse {
    /// A response with one text part.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            parts: vec![ResponsePart::Text(TextPart::new(text))],
            finish_reason: Some(FinishReason::Stop),
            ..Self::default()
        }
    }

    /// A response with these tool calls.
    #[must_use]
    pub fn tool_calls(calls: impl IntoIterator<Item = ToolCallPart>) -> Self {
        Self {
            parts: calls.into_iter().map(ResponsePart::ToolCall).collect(),
            finish_reason: Some(FinishReason::ToolCalls),
            ..Self::default()
        }
    }

    /// The tool calls, in order.
    pub fn calls(&self) -> impl Iterator<Item = &ToolCallPart> {
        self.parts.iter().filter_map(|part| match part {
            ResponsePart::ToolCall(call) => Some(call),
            ResponsePart::Text(_) => None,
        })
    }

    /// All text parts joined.
    #[must_use]
    pub fn text_content(&self) -> String {
        self.parts
            .iter()
            .filter_map(|part| match part {
                ResponsePart::Text(text) => Some(text.content.as_str()),
                ResponsePart::ToolCall(_) => None,
            })
            .collect::<Vec<_>>()
            .join("")
    }
}

/// One part of a response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "part_kind", rename_all = "snake_case")]
pub enum ResponsePart {
    /// Text for the user.
    Text(TextPart),
    /// A tool call.
    ToolCall(ToolCallPart),
}

/// Text for the user.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextPart {
    /// The text.
    pub content: String,
}

impl TextPart {
    /// A text part.
    pub fn new(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
        }
    }
}

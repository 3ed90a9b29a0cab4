//! The Messages request body: instructions as `system`, the history as alternating user and
//! assistant turns of content blocks (tool results in the user turn), the tools and settings.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::http::{return_text, PlannedTool};
use starweaver_core::model::{
    ModelMessage, ModelRequestParameters, RequestPart, ResponsePart, ToolCallArguments,
};

#[derive(Serialize)]
pub(super) struct Body<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<String>,
    messages: Vec<Turn<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<ToolChoice>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
    #[serde(flatten)]
    settings: Map<String, Value>,
}

#[derive(Serialize)]
struct ToolChoice {
    #[serde(rename = "type")]
    kind: &'static str,
    disable_parallel_tool_use: bool,
}

#[derive(Serialize)]
struct Turn<'a> {
    role: &'static str,
    content: Vec<Block<'a>>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Text {
        text: &'a str,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: Cow<'a, Value>,
    },
    ToolResult {
        tool_use_id: &'a str,
        content: Cow<'a, str>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

#[derive(Serialize)]
struct Tool<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    input_schema: &'a serde_json::value::RawValue,
}

/// The body for `model`.
pub(super) fn body<'a>(
    model: &'a str,
    messages: &'a [ModelMessage],
    parameters: &'a ModelRequestParameters,
    tools: &'a [PlannedTool<'a>],
    settings: Map<String, Value>,
    parallel_tool_calls: Option<bool>,
    stream: bool,
) -> Body<'a> {
    let mut system: Vec<&str> = parameters.instructions.iter().map(String::as_str).collect();
    let mut turns: Vec<Turn<'a>> = Vec::with_capacity(messages.len());
    let mut push = |role: &'static str, block: Block<'a>| {
        // The protocol refuses text blocks that are empty or only whitespace; they say nothing.
        if matches!(&block, Block::Text { text } if text.trim().is_empty()) {
            return;
        }
        match turns.last_mut() {
            // The protocol wants turns to alternate: consecutive blocks of one role share a turn.
            Some(turn) if turn.role == role => turn.content.push(block),
            _ => turns.push(Turn {
                role,
                content: vec![block],
            }),
        }
    };
    for message in messages {
        match message {
            ModelMessage::Request(request) => {
                for part in &request.parts {
                    match part {
                        RequestPart::Instructions(part) => system.push(&part.content),
                        RequestPart::UserPrompt(prompt) => push(
                            "user",
                            Block::Text {
                                text: &prompt.content,
                            },
                        ),
                        RequestPart::ToolReturn(part) => push(
                            "user",
                            Block::ToolResult {
                                tool_use_id: &part.tool_call_id,
                                content: return_text(part),
                                is_error: part.is_error(),
                            },
                        ),
                        RequestPart::RetryPrompt(retry) => match &retry.tool_call_id {
                            Some(id) => push(
                                "user",
                                Block::ToolResult {
                                    tool_use_id: id,
                                    content: Cow::Borrowed(&retry.content),
                                    is_error: true,
                                },
                            ),
                            None => push(
                                "user",
                                Block::Text {
                                    text: &retry.content,
                                },
                            ),
                        },
                    }
                }
            }
            ModelMessage::Response(response) => {
                for part in &response.parts {
                    match part {
                        ResponsePart::Text(part) => push(
                            "assistant",
                            Block::Text {
                                text: &part.content,
                            },
                        ),
                        ResponsePart::ToolCall(call) => push(
                            "assistant",
                            Block::ToolUse {
                                id: &call.id,
                                name: &call.name,
                                input: input(&call.arguments),
                            },
                        ),
                    }
                }
            }
        }
    }
    let system: Vec<&str> = system.into_iter().filter(|text| !text.is_empty()).collect();
    let tools: Vec<Tool<'a>> = tools
        .iter()
        .filter_map(|(definition, planned)| {
            let wire = planned.wire.as_ref()?;
            Some(Tool {
                name: &definition.name,
                description: definition.description.as_deref(),
                input_schema: &wire.schema,
            })
        })
        .collect();
    let tool_choice =
        (parallel_tool_calls == Some(false) && !tools.is_empty()).then_some(ToolChoice {
            kind: "auto",
            disable_parallel_tool_use: true,
        });
    Body {
        model,
        system: (!system.is_empty()).then(|| system.join("\n\n")),
        messages: turns,
        tools,
        tool_choice,
        stream,
        settings,
    }
}

/// Call arguments as the object the protocol carries (arguments that were never valid JSON
/// objects are sent as `{}`; their call already got a retry prompt).
fn input(arguments: &ToolCallArguments) -> Cow<'_, Value> {
    match arguments {
        ToolCallArguments::Json(value @ Value::Object(_)) => Cow::Borrowed(value),
        ToolCallArguments::Raw(text) => match serde_json::from_str::<Value>(text) {
            Ok(value @ Value::Object(_)) => Cow::Owned(value),
            _ => Cow::Owned(Value::Object(Map::new())),
        },
        ToolCallArguments::Json(_) => Cow::Owned(Value::Object(Map::new())),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use starweaver_core::model::{
        ModelRequest, ModelResponse, ResponsePart, TextPart, ToolCallPart,
    };

    #[test]
    fn blank_text_is_never_sent_as_a_block() {
        // The protocol refuses text blocks that are empty or only whitespace; models often
        // answer "\n\n" before a tool call, and that answer goes back in the history.
        let mut response = ModelResponse::tool_calls([ToolCallPart::new("t1", "read", "{}")]);
        response
            .parts
            .insert(0, ResponsePart::Text(TextPart::new("\n\n")));
        let messages = vec![
            ModelMessage::Request(ModelRequest::user("hi")),
            ModelMessage::Response(response),
            ModelMessage::Request(ModelRequest::user(" \n")),
        ];
        let parameters = ModelRequestParameters::default();
        let body = body("m", &messages, &parameters, &[], Map::new(), None, false);
        let sent = serde_json::to_value(&body).unwrap();
        let texts: Vec<&str> = sent["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|turn| turn["content"].as_array().unwrap())
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect();
        assert_eq!(texts, ["hi"], "{sent}");
        assert_eq!(sent["messages"][1]["content"][0]["type"], "tool_use");
    }
}

//! The Chat Completions request body: instructions as one system (or developer) message, the
//! history as user, assistant and tool messages, the tools and the settings.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{Map, Value};

use super::capabilities;
use crate::http::{compact, return_text, PlannedTool};
use starweaver_core::model::{
    ModelMessage, ModelRequestParameters, RequestPart, ResponsePart, ToolCallArguments,
};

/// The body, borrowed from the history where it can be.
#[derive(Serialize)]
pub(super) struct Body<'a> {
    model: &'a str,
    messages: Vec<Message<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
    #[serde(flatten)]
    settings: Map<String, Value>,
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
enum Message<'a> {
    System {
        content: Cow<'a, str>,
    },
    Developer {
        content: Cow<'a, str>,
    },
    User {
        content: &'a str,
    },
    Assistant {
        content: Option<Cow<'a, str>>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<Call<'a>>,
    },
    Tool {
        tool_call_id: &'a str,
        content: Cow<'a, str>,
    },
}

#[derive(Serialize)]
struct Call<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: CallFunction<'a>,
}

#[derive(Serialize)]
struct CallFunction<'a> {
    name: &'a str,
    arguments: Cow<'a, str>,
}

#[derive(Serialize)]
struct Tool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: Function<'a>,
}

#[derive(Serialize)]
struct Function<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    parameters: &'a serde_json::value::RawValue,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    strict: bool,
}

/// The body for `model`; `settings` comes from [`capabilities::settings`].
pub(super) fn body<'a>(
    model: &'a str,
    messages: &'a [ModelMessage],
    parameters: &'a ModelRequestParameters,
    tools: &'a [PlannedTool<'a>],
    settings: Map<String, Value>,
    stream: bool,
) -> Body<'a> {
    let mut out = Vec::with_capacity(messages.len() + 1);
    let mut system: Vec<&str> = parameters.instructions.iter().map(String::as_str).collect();
    for message in messages {
        if let ModelMessage::Request(request) = message {
            for part in &request.parts {
                if let RequestPart::Instructions(part) = part {
                    system.push(&part.content);
                }
            }
        }
    }
    let system: Vec<&str> = system.into_iter().filter(|text| !text.is_empty()).collect();
    if !system.is_empty() {
        let content = Cow::Owned(system.join("\n\n"));
        out.push(match capabilities::instructions_role(model) {
            "developer" => Message::Developer { content },
            _ => Message::System { content },
        });
    }
    for message in messages {
        match message {
            ModelMessage::Request(request) => {
                for part in &request.parts {
                    match part {
                        RequestPart::Instructions(_) => {}
                        RequestPart::UserPrompt(prompt) => out.push(Message::User {
                            content: &prompt.content,
                        }),
                        RequestPart::ToolReturn(part) => out.push(Message::Tool {
                            tool_call_id: &part.tool_call_id,
                            content: return_text(part),
                        }),
                        RequestPart::RetryPrompt(retry) => match &retry.tool_call_id {
                            Some(id) => out.push(Message::Tool {
                                tool_call_id: id,
                                content: Cow::Borrowed(&retry.content),
                            }),
                            None => out.push(Message::User {
                                content: &retry.content,
                            }),
                        },
                    }
                }
            }
            ModelMessage::Response(response) => {
                let mut text = String::new();
                let mut calls = Vec::new();
                for part in &response.parts {
                    match part {
                        ResponsePart::Text(part) => text.push_str(&part.content),
                        ResponsePart::ToolCall(call) => calls.push(Call {
                            id: &call.id,
                            kind: "function",
                            function: CallFunction {
                                name: &call.name,
                                arguments: arguments_text(&call.arguments),
                            },
                        }),
                    }
                }
                let content = if text.is_empty() && !calls.is_empty() {
                    None
                } else {
                    Some(Cow::Owned(text))
                };
                out.push(Message::Assistant {
                    content,
                    tool_calls: calls,
                });
            }
        }
    }
    let tools = tools
        .iter()
        .filter_map(|(definition, planned)| {
            let wire = planned.wire.as_ref()?;
            Some(Tool {
                kind: "function",
                function: Function {
                    name: &definition.name,
                    description: definition.description.as_deref(),
                    parameters: &wire.schema,
                    strict: wire.strict,
                },
            })
        })
        .collect();
    Body {
        model,
        messages: out,
        tools,
        stream,
        stream_options: stream.then_some(StreamOptions {
            include_usage: true,
        }),
        settings,
    }
}

/// Call arguments as the text the protocol carries.
fn arguments_text(arguments: &ToolCallArguments) -> Cow<'_, str> {
    match arguments {
        ToolCallArguments::Raw(text) => Cow::Borrowed(text),
        ToolCallArguments::Json(value) => Cow::Owned(compact(value)),
    }
}

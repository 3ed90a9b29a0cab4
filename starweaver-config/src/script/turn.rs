//! One turn of a model script: the tool calls the model makes, or its final answer.

use serde_json::Value;

/// One turn: what the scripted model answers to one request.
#[derive(Clone, Debug, PartialEq)]
pub enum ScriptTurn {
    /// Call these tools (in this order, in one response). String arguments are templates.
    Calls(Vec<ScriptCall>),
    /// Answer with this text, a template; the run ends here.
    Answer(String),
}

impl ScriptTurn {
    /// A turn that calls `calls`.
    pub fn calls(calls: impl IntoIterator<Item = ScriptCall>) -> Self {
        Self::Calls(calls.into_iter().collect())
    }

    /// A turn that answers `text`.
    pub fn answer(text: impl Into<String>) -> Self {
        Self::Answer(text.into())
    }
}

/// One tool call of a turn.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptCall {
    /// The tool's name, as the model sees it (a prefixed name with its prefix; `call_tool`
    /// for a tool behind a proxy).
    pub tool: String,
    /// The arguments object. Every string in it is a template, rendered when the turn is
    /// played; a string that is exactly one `{{ expression }}` takes the expression's value.
    pub args: Value,
}

impl ScriptCall {
    /// A call of `tool` with `args` (an object).
    pub fn new(tool: impl Into<String>, args: Value) -> Self {
        Self {
            tool: tool.into(),
            args,
        }
    }
}

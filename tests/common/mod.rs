//! Helpers shared by the integration tests.
//!
//! Every file in `tests/` is its own crate and pulls this module in with
//! `mod common;`; a file uses only some of the helpers, hence the
//! `dead_code` allowance.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod environment;

use std::sync::atomic::AtomicU32;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use starweaver::model::{
    ModelMessage, ModelResponse, RecordedRequest, RequestPart, ToolCallPart, ToolReturnPart,
};
use starweaver::{
    string_tool, AgentContext, AgentContextHandle, DynTool, FunctionTool, ToolContext, ToolResult,
};

/// A shared log of JSON values that tools append to.
pub type Log = Arc<Mutex<Vec<Value>>>;

// ---------------------------------------------------------------------------
// Schemas, counters and contexts
// ---------------------------------------------------------------------------

/// An open object schema: any object, no declared properties.
pub fn open_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

/// A fresh counter (of tool runs, for instance) starting at zero.
pub fn counter() -> Arc<AtomicU32> {
    Arc::new(AtomicU32::new(0))
}

/// A tool context whose ambient agent context is `context`.
pub fn ambient(context: AgentContext) -> ToolContext {
    ToolContext::default().with_agent_context(AgentContextHandle::new(context))
}

// ---------------------------------------------------------------------------
// Tool calls and model responses
// ---------------------------------------------------------------------------

/// The tool call `id` of `name` with `arguments`.
pub fn call(id: &str, name: &str, arguments: Value) -> ToolCallPart {
    ToolCallPart::new(id, name, arguments)
}

/// A model response that makes the single tool call `id` of `name`.
pub fn call_response(id: &str, name: &str, arguments: Value) -> ModelResponse {
    ModelResponse::tool_calls([call(id, name, arguments)])
}

/// The `ask_user_question` payload of one single-choice question
/// ("Which language?": Rust or Go).
pub fn one_question() -> Value {
    json!([{
        "question": "Which language?",
        "header": "Language",
        "options": [{"label": "Rust"}, {"label": "Go"}],
        "multiSelect": false
    }])
}

// ---------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------

/// A string tool with an open schema that returns its arguments as content.
pub fn echo_tool(name: &str, description: &str) -> FunctionTool {
    string_tool(
        name,
        Some(description.to_string()),
        open_schema(),
        |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
    )
}

/// [`echo_tool`] as a `DynTool`.
pub fn echo(name: &str, description: &str) -> DynTool {
    Arc::new(echo_tool(name, description))
}

/// A tool described as "The `<name>` tool" taking an optional integer `n`;
/// it appends `{"tool": name, "args": args}` to `log` and returns the same
/// value.
pub fn recording_tool(name: &str, log: &Log) -> FunctionTool {
    let log = log.clone();
    let tool_name = name.to_string();
    string_tool(
        name,
        Some(format!("The {name} tool")),
        json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
        move |_ctx: ToolContext, args: Value| {
            let log = log.clone();
            let tool_name = tool_name.clone();
            async move {
                log.lock()
                    .unwrap()
                    .push(json!({"tool": tool_name, "args": args}));
                Ok(ToolResult::new(json!({"tool": tool_name, "args": args})))
            }
        },
    )
}

// ---------------------------------------------------------------------------
// Conversation inspection
// ---------------------------------------------------------------------------

/// Parts of the last request message a recorded request carried; panics
/// when the conversation does not end with a request.
pub fn last_request_parts(request: &RecordedRequest) -> Vec<RequestPart> {
    match request.messages.last() {
        Some(ModelMessage::Request(request)) => request.parts.clone(),
        other => panic!("expected the conversation to end with a request, got {other:?}"),
    }
}

/// How many model responses `messages` holds.
pub fn responses_so_far(messages: &[ModelMessage]) -> usize {
    messages
        .iter()
        .filter(|message| matches!(message, ModelMessage::Response(_)))
        .count()
}

/// Every tool return in the requests of `messages`, in order.
pub fn tool_returns(messages: &[ModelMessage]) -> Vec<ToolReturnPart> {
    messages
        .iter()
        .filter_map(|message| match message {
            ModelMessage::Request(request) => Some(request.parts.iter()),
            ModelMessage::Response(_) => None,
        })
        .flatten()
        .filter_map(|part| match part {
            RequestPart::ToolReturn(part) => Some(part.clone()),
            _ => None,
        })
        .collect()
}

/// A resource-backed toolset that counts its lifecycle calls.
#[derive(Clone)]
pub struct CountingLifecycle {
    pub name: String,
    pub tools: Vec<DynTool>,
    pub enters: Arc<AtomicU32>,
    pub exits: Arc<AtomicU32>,
}

impl CountingLifecycle {
    pub fn new(name: &str, tools: Vec<DynTool>) -> Self {
        Self {
            name: name.to_string(),
            tools,
            enters: counter(),
            exits: counter(),
        }
    }
}

impl starweaver::Toolset for CountingLifecycle {
    fn name(&self) -> &str {
        &self.name
    }

    fn get_tools(&self) -> Vec<DynTool> {
        self.tools.clone()
    }

    fn lifecycle_policy(&self) -> starweaver::ToolsetLifecyclePolicy {
        starweaver::ToolsetLifecyclePolicy::managed()
    }

    fn enter_with_context<'a>(
        &'a self,
        _context: &'a mut starweaver::AgentContext,
    ) -> starweaver::BoxFuture<'a, Result<(), starweaver::ToolError>> {
        self.enters
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Box::pin(async { Ok(()) })
    }

    fn exit_with_context<'a>(
        &'a self,
        _context: &'a mut starweaver::AgentContext,
    ) -> starweaver::BoxFuture<'a, Result<(), starweaver::ToolError>> {
        self.exits.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Box::pin(async { Ok(()) })
    }
}

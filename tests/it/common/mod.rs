//! Helpers shared by the modules of the integration binary, imported as
//! `crate::common`: schemas, counters and contexts, tool calls and model
//! responses, tools, agents that wait for approval, JSON helpers and
//! conversation inspection. `environment` holds the environment
//! fixtures and the configurable [`environment::TestEnvironment`];
//! `toolsets` the tools and lookups of the toolset tests; `loopback` the
//! scripted HTTP server and response fixtures of the provider tests;
//! `cargo` the workspace's `cargo metadata`; `interop` whether the MCP packages are here.

pub mod cargo;
pub mod environment;
pub mod examples;
pub mod hostile;
pub mod interop;
pub mod loopback;
pub mod sources;
pub mod toolsets;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use starweaver::agent::{Agent, AgentSessionState, AgentStreamRecord};
use starweaver::model::{
    FunctionModel, Model, ModelMessage, ModelResponse, RecordedRequest, RequestPart, ToolCallPart,
    ToolReturnPart,
};
use starweaver::tools::{DynTool, FunctionTool};
use starweaver::{
    string_tool, AgentBuilder, AgentContext, AgentContextHandle, AgentSession, AgentStreamEvent,
    DynToolset, StaticToolset, TestModel, ToolContext, ToolError, ToolResult,
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

/// A model response that makes every `(id, name, arguments)` call, in order.
pub fn calls(list: &[(&str, &str, Value)]) -> ModelResponse {
    ModelResponse::tool_calls(
        list.iter()
            .map(|(id, name, args)| ToolCallPart::new(*id, *name, args.clone())),
    )
}

/// The call `id` of the proxy's `call_tool` that runs `name` with
/// `arguments`.
pub fn proxied(id: &str, name: &str, arguments: Value) -> ToolCallPart {
    call(
        id,
        "call_tool",
        json!({"name": name, "arguments": arguments}),
    )
}

/// A model that sends `batches` one response each, then answers "done".
pub fn batch_model(batches: Vec<Vec<ToolCallPart>>) -> Arc<FunctionModel> {
    Arc::new(FunctionModel::new(move |messages: &[ModelMessage], _| {
        let step = responses_so_far(messages);
        Ok(match batches.get(step) {
            Some(calls) => ModelResponse::tool_calls(calls.clone()),
            None => ModelResponse::text("done"),
        })
    }))
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

/// [`echo`] described as "The `<name>` tool".
pub fn described_echo(name: &str) -> DynTool {
    echo(name, &format!("The {name} tool"))
}

/// Arguments of a typed echo tool.
#[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
pub struct EchoArgs {
    /// Text to echo.
    pub value: String,
}

/// A named dependency (`db`) a host may attach for tools to request.
#[derive(Debug)]
pub struct NamedDb;

/// A `stubborn` tool that always asks the model for a retry and counts
/// its runs.
pub fn always_retry(runs: &Arc<AtomicU32>) -> FunctionTool {
    let runs = runs.clone();
    string_tool(
        "stubborn",
        Some("Always asks for a retry".to_string()),
        open_schema(),
        move |_ctx: ToolContext, _args: Value| {
            let runs = runs.clone();
            async move {
                runs.fetch_add(1, Ordering::SeqCst);
                Err(ToolError::model_retry("still wrong"))
            }
        },
    )
}

/// A record lookup whose availability callback panics.
pub fn flaky_lookup() -> DynTool {
    Arc::new(
        echo_tool("flaky_lookup", "Looks up customer records")
            .with_availability(|_context| panic!("availability check exploded")),
    )
}

/// A toolset with [`flaky_lookup`] and a well-behaved lookup.
pub fn records_toolset() -> DynToolset {
    Arc::new(
        StaticToolset::new("records")
            .with_tool(flaky_lookup())
            .with_tool(echo("steady_lookup", "Looks up customer records")),
    )
}

// ---------------------------------------------------------------------------
// Agents that wait for approval
// ---------------------------------------------------------------------------

/// A `deploy` tool that needs approval and records the arguments it ran
/// with.
pub fn deploy_tool(log: &Log) -> FunctionTool {
    let log = log.clone();
    string_tool(
        "deploy",
        Some("Deploys a service".to_string()),
        json!({
            "type": "object",
            "properties": {"service": {"type": "string"}},
            "required": ["service"]
        }),
        move |_ctx: ToolContext, args: Value| {
            let log = log.clone();
            async move {
                log.lock().unwrap().push(args.clone());
                Ok(ToolResult::new(json!({"deployed": args["service"]})))
            }
        },
    )
    .with_approval_required(true)
}

/// An agent with [`deploy_tool`].
pub fn deploy_agent(model: &Arc<TestModel>, log: &Log) -> Agent {
    AgentBuilder::new(model.clone())
        .tool(Arc::new(deploy_tool(log)))
        .build()
}

/// A `deploy` call (`d1`, service `api`), then `final_text`.
pub fn deploy_script(final_text: &str) -> Vec<ModelResponse> {
    vec![
        call_response("d1", "deploy", json!({"service": "api"})),
        ModelResponse::text(final_text),
    ]
}

/// An agent whose `deploy` tool (an echo tool) needs approval.
pub fn echo_deploy_agent(model: Arc<dyn Model>) -> Agent {
    AgentBuilder::new(model)
        .tool(Arc::new(
            echo_tool("deploy", "Deploy the service").with_approval_required(true),
        ))
        .build()
}

/// Exports a session to JSON and restores it on `agent`.
pub fn round_trip(session: &AgentSession, agent: Agent) -> AgentSession {
    let json = session.export_state().to_json().unwrap();
    AgentSession::restore(agent, AgentSessionState::from_json(&json).unwrap())
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

/// The tool return for `id` anywhere in `messages`.
pub fn tool_return(messages: &[ModelMessage], id: &str) -> ToolReturnPart {
    tool_returns(messages)
        .into_iter()
        .find(|part| part.tool_call_id == id)
        .unwrap_or_else(|| panic!("no tool return for {id} in {messages:#?}"))
}

/// A short label for a run record.
pub fn record_label(record: &AgentStreamRecord) -> String {
    match &record.event {
        AgentStreamEvent::ToolReturn { part } => format!("return:{}", part.tool_name),
        AgentStreamEvent::Custom { event } => format!(
            "event:{}:{}",
            event.kind,
            event.payload["tool"].as_str().unwrap_or_default()
        ),
        AgentStreamEvent::ToolBatch { mode, reason, .. } => {
            format!("batch:{mode}:{}", reason.as_deref().unwrap_or("-"))
        }
        other => format!("{other:?}")
            .split([' ', '{'])
            .next()
            .unwrap()
            .to_string(),
    }
}

// ---------------------------------------------------------------------------
// JSON values and schemas
// ---------------------------------------------------------------------------

/// The items of a JSON array of strings; panics on anything else.
pub fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("expected an array, got {value}"))
        .iter()
        .map(|item| item.as_str().expect("string item").to_string())
        .collect()
}

/// The strings of a JSON array (`key` empty) or the `key` field of each
/// of its objects.
pub fn json_names(values: &Value, key: &str) -> Vec<String> {
    values
        .as_array()
        .unwrap_or_else(|| panic!("no array in {values}"))
        .iter()
        .map(|value| match key {
            "" => value.as_str().unwrap().to_string(),
            key => value[key].as_str().unwrap().to_string(),
        })
        .collect()
}

/// Asserts `instance` validates against `schema`, listing the errors.
pub fn assert_valid(schema: &Value, instance: &Value) {
    let validator = jsonschema::validator_for(schema).expect("tool schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|error| error.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "{instance} does not validate against {schema}: {errors:?}"
    );
}

/// A small deterministic generator for the fuzz tests.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    pub fn below(&mut self, bound: usize) -> usize {
        usize::try_from(self.next() % u64::try_from(bound).unwrap()).unwrap()
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
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

    fn lifecycle_policy(&self) -> starweaver::tools::ToolsetLifecyclePolicy {
        starweaver::tools::ToolsetLifecyclePolicy::managed()
    }

    fn enter_with_context<'a>(
        &'a self,
        _context: &'a mut starweaver::AgentContext,
    ) -> starweaver::tools::BoxFuture<'a, Result<(), starweaver::ToolError>> {
        self.enters
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Box::pin(async { Ok(()) })
    }

    fn exit_with_context<'a>(
        &'a self,
        _context: &'a mut starweaver::AgentContext,
    ) -> starweaver::tools::BoxFuture<'a, Result<(), starweaver::ToolError>> {
        self.exits.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Box::pin(async { Ok(()) })
    }
}

/// The `starweaver` binary, ready to spawn. Every test starts it through here: its model
/// clients may reach loopback addresses only, so a manifest that forgot its `base_url` fails
/// at once instead of calling a real provider (a test checks no other spawn exists).
#[must_use]
pub fn starweaver_binary() -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_starweaver"));
    command.env(starweaver::model::http::MODEL_HOSTS_VARIABLE, "loopback");
    command
}

// ---------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------

/// Whether a process whose command line holds `label` is running: how the tests that start
/// MCP servers through the binary check that none outlives its command.
pub fn running(label: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().any(|entry| {
        let path = entry.unwrap().path().join("cmdline");
        std::fs::read(path).is_ok_and(|cmdline| String::from_utf8_lossy(&cmdline).contains(label))
    })
}

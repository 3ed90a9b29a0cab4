//! `ToolRegistry`: how `execute_call` dispatches a call (retries,
//! timeouts, panics, cancellation, arguments, hooks) and what the registry
//! exposes and hands to tools (availability, definitions, dependency
//! profiles).
//!
//! Tools count their executions with an `Arc<AtomicU32>`; timing is made
//! deterministic with paused Tokio time, never with real sleeps.

mod arguments;
mod availability;
mod definitions;
mod dependencies;
mod facts;
mod hooks;
mod outcomes;
mod retries;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use starweaver::model::{ToolCallPart, ToolDefinition, ToolReturnPart};
use starweaver::tools::FunctionTool;
use starweaver::{string_tool, ToolContext, ToolError, ToolRegistry, ToolResult};

use crate::common::{echo_tool, open_schema};

/// How many times a counted tool ran.
fn runs(counter: &AtomicU32) -> u32 {
    counter.load(Ordering::SeqCst)
}

/// A manual-schema tool that counts its executions and answers with
/// `script(ctx, n, args)`, where `n` is the 0-based execution number.
fn scripted<F>(name: &str, executions: &Arc<AtomicU32>, script: F) -> FunctionTool
where
    F: Fn(&ToolContext, u32, Value) -> Result<ToolResult, ToolError> + Send + Sync + 'static,
{
    let executions = executions.clone();
    string_tool(
        name,
        Some(format!("{name} test tool")),
        open_schema(),
        move |ctx: ToolContext, args: Value| {
            let n = executions.fetch_add(1, Ordering::SeqCst);
            let result = script(&ctx, n, args);
            async move { result }
        },
    )
}

/// A tool that echoes its arguments and counts executions.
fn counting_echo(name: &str, executions: &Arc<AtomicU32>) -> FunctionTool {
    scripted(name, executions, |_ctx, _n, args| Ok(ToolResult::new(args)))
}

/// Runs the call `name` with `arguments` in a default tool context.
async fn execute(registry: &ToolRegistry, name: &str, arguments: Value) -> ToolReturnPart {
    execute_with(registry, ToolContext::default(), name, arguments).await
}

async fn execute_with(
    registry: &ToolRegistry,
    ctx: ToolContext,
    name: &str,
    arguments: Value,
) -> ToolReturnPart {
    registry
        .execute_call(ctx, &ToolCallPart::new("call-1", name, arguments))
        .await
}

/// The message of an error return.
fn message(part: &ToolReturnPart) -> &str {
    part.content["message"].as_str().unwrap_or_default()
}

/// A tool that sleeps `ms` of (paused) Tokio time and then succeeds.
fn sleeper(name: &str, ms: u64, executions: &Arc<AtomicU32>) -> FunctionTool {
    let executions = executions.clone();
    string_tool(
        name,
        Some("Sleeps".to_string()),
        open_schema(),
        move |_ctx: ToolContext, _args: Value| {
            executions.fetch_add(1, Ordering::SeqCst);
            async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(ToolResult::new(json!({"slept_ms": ms})))
            }
        },
    )
}

/// What hooks and tools logged, in order.
type Log = Arc<Mutex<Vec<String>>>;

fn entries(log: &Log) -> Vec<String> {
    log.lock().unwrap().clone()
}

/// An echo tool described as "`<name>` tool".
fn named_echo(name: &str) -> FunctionTool {
    echo_tool(name, &format!("{name} tool"))
}

/// Only available when `metadata.enable_<name>` is true.
fn gated(name: &str) -> FunctionTool {
    let key = format!("enable_{name}");
    named_echo(name).with_availability(move |context| {
        context
            .metadata
            .get(&key)
            .and_then(Value::as_bool)
            .unwrap_or(false)
    })
}

/// The names of `definitions`.
fn names<D: std::borrow::Borrow<ToolDefinition>>(definitions: &[D]) -> Vec<String> {
    definitions
        .iter()
        .map(|definition| definition.borrow().name.clone())
        .collect()
}

/// Runs `name` without arguments in `ctx`.
async fn call_in(registry: &ToolRegistry, ctx: ToolContext, name: &str) -> ToolReturnPart {
    registry
        .execute_call(ctx, &ToolCallPart::new("call-1", name, json!({})))
        .await
}

//! Agent runs with scripted models: retry prompts and budgets, tools,
//! the test model, run options and usage, cancellation and the event
//! stream.

mod cancellation;
mod model_notices;
mod options;
mod retries;
mod streaming;
mod test_model;
mod test_model_tools;
mod tools;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use serde_json::json;
use starweaver::model::{RecordedRequest, RequestPart, RetryPromptPart};
use starweaver::{typed_tool, ToolContext, ToolResult};

use crate::common::{last_request_parts, EchoArgs};

/// Typed `echo` tool counting its executions.
fn typed_echo(runs: &Arc<AtomicU32>) -> starweaver::tools::TypedFunctionTool<EchoArgs> {
    let runs = runs.clone();
    typed_tool::<EchoArgs, _, _>(
        "echo",
        Some("Echo input".to_string()),
        move |_ctx: ToolContext, args: EchoArgs| {
            let runs = runs.clone();
            async move {
                runs.fetch_add(1, Ordering::SeqCst);
                Ok(ToolResult::new(json!({"value": args.value})))
            }
        },
    )
}

fn retry_prompts(request: &RecordedRequest) -> Vec<RetryPromptPart> {
    last_request_parts(request)
        .into_iter()
        .filter_map(|part| match part {
            RequestPart::RetryPrompt(part) => Some(part),
            _ => None,
        })
        .collect()
}

fn tool_names(request: &RecordedRequest) -> Vec<String> {
    request
        .parameters
        .tools
        .iter()
        .map(|tool| tool.name.clone())
        .collect()
}

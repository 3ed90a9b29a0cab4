//! Hostile tool calls cost bounded memory, time and answer size: sizes
//! of reads, writes and edits, echoed values in errors, argument depth
//! and shape, what every first-party tool returns, and paths too long or
//! too deep.

mod argument_shape;
mod echoed_values;
mod every_first_party_tool;
mod file_sizes;
mod paths;

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use starweaver::bundles::FilesystemOptions;
use starweaver::environment::{
    EnvironmentProvider, VirtualEnvironmentProvider, MAX_SEARCH_PATTERN_BYTES,
};
use starweaver::model::{ToolCallPart, ToolReturnKind, ToolReturnPart};
use starweaver::tools::{ToolLimits, DEFAULT_MAX_MESSAGE_BYTES};
use starweaver::{
    attach_environment, typed_tool, AgentContext, ToolContext, ToolRegistry, ToolResult,
};

use crate::common::ambient;
use crate::common::environment::call_on;

/// Room for an error return's fixed fields besides its message.
const ENVELOPE: usize = 1_024;

fn size(part: &ToolReturnPart) -> usize {
    serde_json::to_string(&part.content).map_or(usize::MAX, |text| text.len())
}

/// Asserts an error return stays within the default message limit.
fn assert_bounded_error(part: &ToolReturnPart) {
    assert!(
        part.is_error() || part.kind == ToolReturnKind::Feedback,
        "{part:?}"
    );
    assert!(
        size(part) <= DEFAULT_MAX_MESSAGE_BYTES + ENVELOPE,
        "{} bytes: {}",
        size(part),
        part.kind.as_str()
    );
}

/// Takes a deep value apart without recursion (the test must not
/// overflow its own stack dropping what it built).
fn dismantle(value: Value) {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Array(items) => pending.extend(items),
            Value::Object(map) => pending.extend(map.into_iter().map(|(_, child)| child)),
            _ => {}
        }
    }
}

fn nested_arrays(depth: usize) -> Value {
    let mut value = Value::Null;
    for _ in 0..depth {
        value = Value::Array(vec![value]);
    }
    value
}

/// Runs one call of the filesystem bundle built with `options`.
async fn call_with(
    options: FilesystemOptions,
    provider: Arc<VirtualEnvironmentProvider>,
    name: &str,
    arguments: Value,
) -> ToolReturnPart {
    crate::common::environment::call_through(&options.into_toolset(), provider, name, arguments)
        .await
}

//! Whether the calls of one response run concurrently or in model order,
//! and running them.

use std::collections::HashSet;

use futures::stream::{FuturesUnordered, StreamExt};

use super::{AgentRuntimePolicy, ToolExecutionPolicy};
use crate::model::{ToolCallPart, ToolReturnPart};
use crate::tools::ToolContext;
use crate::tools::{ToolDependencyProfile, ToolRegistry};

/// Why a batch runs sequentially, or `None` for concurrent execution.
pub(crate) fn sequential_reason(
    policy: &AgentRuntimePolicy,
    registry: &ToolRegistry,
    calls: &[&ToolCallPart],
) -> Option<&'static str> {
    if policy.tool_execution == ToolExecutionPolicy::Sequential {
        return Some("policy");
    }
    if calls.len() < 2 {
        return None;
    }
    if calls
        .iter()
        .filter_map(|call| registry.definition(&call.name))
        .any(crate::model::ToolDefinition::is_sequential)
    {
        return Some("sequential_tool");
    }
    // A proxy's `call_tool` may run any tool: its needs are unknown here.
    if calls.iter().any(|call| {
        registry
            .get(&call.name)
            .is_some_and(|tool| tool.delegates_execution())
    }) {
        return Some("delegating_tool");
    }
    let mut names = HashSet::new();
    if !calls.iter().all(|call| names.insert(call.name.as_str())) {
        return Some("repeated_tool");
    }
    let requirements: Vec<_> = calls
        .iter()
        .filter_map(|call| registry.dependency_requirements(&call.name))
        .collect();
    let legacy = requirements
        .iter()
        .any(|requirement| requirement.profile == ToolDependencyProfile::Legacy);
    let narrowed = requirements
        .iter()
        .any(|requirement| requirement.profile != ToolDependencyProfile::Legacy);
    if legacy && narrowed {
        return Some("mixed_dependency_profiles");
    }
    if requirements
        .iter()
        .any(|requirement| requirement.requests_mutable_context())
    {
        return Some("mutable_context");
    }
    None
}

/// Runs the calls. `on_return` hears about each call as it finishes (in
/// completion order, with the call's position); the result is in model
/// order either way.
pub(crate) async fn execute_batch(
    registry: &ToolRegistry,
    calls: &[&ToolCallPart],
    contexts: Vec<ToolContext>,
    sequential: bool,
    mut on_return: impl FnMut(usize, &ToolReturnPart),
) -> Vec<ToolReturnPart> {
    let mut slots: Vec<Option<ToolReturnPart>> = vec![None; calls.len()];
    if sequential {
        for (index, (call, ctx)) in calls.iter().zip(contexts).enumerate() {
            let part = registry.execute_call(ctx, call).await;
            on_return(index, &part);
            slots[index] = Some(part);
        }
    } else {
        let mut running: FuturesUnordered<_> =
            calls
                .iter()
                .zip(contexts)
                .enumerate()
                .map(|(index, (call, ctx))| async move {
                    (index, registry.execute_call(ctx, call).await)
                })
                .collect();
        while let Some((index, part)) = running.next().await {
            on_return(index, &part);
            slots[index] = Some(part);
        }
    }
    slots.into_iter().flatten().collect()
}

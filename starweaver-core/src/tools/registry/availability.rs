//! Context-aware exposure: which tools a model may see for one request.

use std::collections::HashSet;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::ToolRegistry;
use crate::context::{AgentContext, ContextEventKind, ToolAvailabilityPolicy};
use crate::model::ToolDefinition;
use crate::tools::ToolFacts;

/// Which tools were exposed for a context and why others were not.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AvailabilityReport {
    /// Tools exposed to the model.
    pub available: Vec<String>,
    /// Tools whose availability check failed, or whose toolset is
    /// unavailable.
    pub unavailable: Vec<String>,
    /// Tools hidden on purpose: `prepare_definition` returned `None`, or
    /// another available tool carries one of their `hidden_by_tags`.
    pub hidden: Vec<String>,
    /// Tools waiting for tool search to load them.
    pub not_loaded: Vec<String>,
}

/// The run was configured to fail when tools are unavailable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{}; the run fails because the unavailable-tool policy is FailRun \
     (enable them, or use ToolAvailabilityPolicy::SkipAndReport)",
    what(tools, toolsets)
)]
pub struct ToolsUnavailableError {
    /// The unavailable tools.
    pub tools: Vec<String>,
    /// The toolsets that could not be set up (or said they are unavailable), whose tools are
    /// hidden; for one that lists its tools only once set up (an MCP server that did not
    /// start), the only sign of what is missing.
    pub toolsets: Vec<String>,
}

/// What is unavailable, in words.
fn what(tools: &[String], toolsets: &[String]) -> String {
    match (tools.is_empty(), toolsets.is_empty()) {
        (false, true) => format!("tools unavailable in this context: {}", tools.join(", ")),
        (true, _) => format!(
            "toolsets unavailable in this context: {} (`toolset_failed` says why)",
            toolsets.join(", ")
        ),
        (false, false) => format!(
            "tools unavailable in this context: {} (toolsets: {})",
            tools.join(", "),
            toolsets.join(", ")
        ),
    }
}

impl ToolRegistry {
    /// Definitions the model may see in this context, in name order.
    #[must_use]
    pub fn definitions_for_context(&self, context: &AgentContext) -> Vec<ToolDefinition> {
        self.prepare(context, false)
            .0
            .into_iter()
            .map(Arc::unwrap_or_clone)
            .collect()
    }

    /// What [`Self::definitions_for_context`] exposed and left out.
    #[must_use]
    pub fn availability_report(&self, context: &AgentContext) -> AvailabilityReport {
        self.prepare(context, true).1
    }

    /// Prepares a model request: filters definitions, publishes
    /// `tools_unavailable` when tools were skipped, and applies the
    /// context's unavailable-tool policy.
    ///
    /// # Errors
    /// [`ToolsUnavailableError`] under [`ToolAvailabilityPolicy::FailRun`]
    /// when any tool is unavailable (the event is published first).
    pub fn prepare_definitions(
        &self,
        context: &mut AgentContext,
    ) -> Result<Vec<Arc<ToolDefinition>>, ToolsUnavailableError> {
        let (definitions, report) = self.prepare(context, false);
        let toolsets_down = self.toolsets_down(context);
        if report.unavailable.is_empty() && toolsets_down.is_empty() {
            return Ok(definitions);
        }
        if report.unavailable.is_empty() {
            // Nothing registered is hidden (a toolset that lists its tools once set up, and
            // was not): `toolset_failed` was published when it was set up.
            return match context.tool_config.unavailable_tool_policy {
                ToolAvailabilityPolicy::SkipAndReport => Ok(definitions),
                ToolAvailabilityPolicy::FailRun => Err(ToolsUnavailableError {
                    tools: Vec::new(),
                    toolsets: toolsets_down,
                }),
            };
        }
        let policy = context.tool_config.unavailable_tool_policy;
        context.emit(
            ContextEventKind::ToolsUnavailable,
            serde_json::json!({
                "tools": report.unavailable,
                "policy": match policy {
                    ToolAvailabilityPolicy::SkipAndReport => "skip_and_report",
                    ToolAvailabilityPolicy::FailRun => "fail_run",
                },
            }),
        );
        match policy {
            ToolAvailabilityPolicy::SkipAndReport => Ok(definitions),
            ToolAvailabilityPolicy::FailRun => Err(ToolsUnavailableError {
                tools: report.unavailable,
                toolsets: toolsets_down,
            }),
        }
    }

    /// The toolsets of this registry (those registered and those they wrap) that `context`
    /// marks unavailable, in name order.
    fn toolsets_down(&self, context: &AgentContext) -> Vec<String> {
        if context.unavailable_toolsets.is_empty() {
            return Vec::new();
        }
        let mut down = std::collections::BTreeSet::new();
        let mut pending: Vec<crate::tools::DynToolset> = self.toolsets().to_vec();
        while let Some(toolset) = pending.pop() {
            if context.unavailable_toolsets.contains(toolset.name()) {
                down.insert(toolset.name().to_string());
            }
            pending.extend(toolset.wrapped_toolsets());
        }
        down.into_iter().collect()
    }

    /// Filters the tools for a context. Without `full_report`, only the
    /// unavailable names are collected: the per-request path stays cheap
    /// with thousands of search-gated tools.
    fn prepare(
        &self,
        context: &AgentContext,
        full_report: bool,
    ) -> (Vec<Arc<ToolDefinition>>, AvailabilityReport) {
        let mut report = AvailabilityReport::default();
        let mut prepared = Vec::with_capacity(self.entries.len());
        for (name, entry) in &self.entries {
            let toolset_down = entry
                .toolset
                .as_ref()
                .is_some_and(|toolset| context.unavailable_toolsets.contains(&toolset.name));
            if toolset_down {
                report.unavailable.push(name.clone());
            } else if !super::is_loaded_in(&*entry.tool, context) {
                if full_report {
                    report.not_loaded.push(name.clone());
                }
            } else if !super::is_available_in(&*entry.tool, context) {
                report.unavailable.push(name.clone());
            } else if let Some(definition) =
                super::prepare_definition_in(&*entry.tool, context, &entry.definition)
            {
                prepared.push((definition, &entry.facts));
            } else {
                report.hidden.push(name.clone());
            }
        }
        let definitions = hide_covered_by_tags(prepared, &mut report.hidden);
        if full_report {
            report.available = definitions
                .iter()
                .map(|definition| definition.name.clone())
                .collect();
            report.hidden.sort();
        }
        (definitions, report)
    }
}

/// Drops tools whose `hidden_by_tags` names a tag carried by another
/// *exposed* tool: that tool covers the same workflow. Tools hidden this
/// way hide nothing. Each tool is decided after the tools that could hide
/// it; inside a cycle (which no choice satisfies) the tool with the later
/// name is kept first, so the result never depends on unrelated tools.
/// Tags are the tools' typed facts, not what a prepared definition's
/// metadata shows.
fn hide_covered_by_tags(
    prepared: Vec<(Arc<ToolDefinition>, &ToolFacts)>,
    hidden: &mut Vec<String>,
) -> Vec<Arc<ToolDefinition>> {
    if prepared
        .iter()
        .all(|(_, facts)| facts.hidden_by_tags.is_empty())
    {
        return prepared
            .into_iter()
            .map(|(definition, _)| definition)
            .collect();
    }
    let hidden_by: Vec<&[String]> = prepared
        .iter()
        .map(|(_, facts)| facts.hidden_by_tags.as_slice())
        .collect();
    let tags: Vec<HashSet<&str>> = prepared
        .iter()
        .map(|(_, facts)| facts.tags.iter().map(String::as_str).collect())
        .collect();
    let definitions: Vec<Arc<ToolDefinition>> = prepared
        .into_iter()
        .map(|(definition, _)| definition)
        .collect();
    let count = definitions.len();
    // coverers[t]: tools carrying one of t's hidden_by tags.
    let coverers: Vec<Vec<usize>> = (0..count)
        .map(|index| {
            (0..count)
                .filter(|&other| {
                    other != index
                        && hidden_by[index]
                            .iter()
                            .any(|tag| tags[other].contains(tag.as_str()))
                })
                .collect()
        })
        .collect();
    let mut decided: Vec<Option<bool>> = vec![None; count];
    let mut forced = Vec::new();
    while decided.iter().any(Option::is_none) {
        let ready = (0..count).find(|&index| {
            decided[index].is_none()
                && coverers[index]
                    .iter()
                    .all(|&other| decided[other].is_some())
        });
        match ready {
            Some(index) => {
                let covered = coverers[index]
                    .iter()
                    .any(|&other| decided[other] == Some(true));
                decided[index] = Some(!covered);
            }
            None => {
                // A cycle: keep the undecided tool with the greatest name
                // (definitions are in name order).
                if let Some(index) = (0..count).rev().find(|&index| decided[index].is_none()) {
                    decided[index] = Some(true);
                    forced.push(index);
                }
            }
        }
    }
    // A tool kept to break a cycle yields if an exposed tool covers it after
    // all: two exposed tools never cover one another.
    for index in forced {
        if coverers[index]
            .iter()
            .any(|&other| decided[other] == Some(true))
        {
            decided[index] = Some(false);
        }
    }
    let mut kept = Vec::with_capacity(count);
    for (definition, visible) in definitions.into_iter().zip(decided) {
        if visible == Some(true) {
            kept.push(definition);
        } else {
            hidden.push(definition.name.clone());
        }
    }
    kept
}

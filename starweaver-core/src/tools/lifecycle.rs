//! Run lifecycle of context-aware toolsets: setup before the inventory is
//! read, teardown before the run exits, each reported as a context event.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::panic_guard::{catch_panics, panic_text, survives};
use super::DynToolset;
use super::{ToolError, ToolRegistry};
use crate::context::{AgentContext, ContextEventKind};
use crate::BoxFuture;

/// When the runtime calls a toolset's lifecycle hooks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolsetLifecyclePolicy {
    /// Call `enter_with_context` before the inventory is prepared.
    pub enter_before_prepare: bool,
    /// Call `exit_with_context` before the run exits.
    pub exit_after_run: bool,
}

impl ToolsetLifecyclePolicy {
    /// Enter before prepare and exit after the run.
    #[must_use]
    pub const fn managed() -> Self {
        Self {
            enter_before_prepare: true,
            exit_after_run: true,
        }
    }
}

/// What happened to one toolset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolsetLifecycleStatus {
    /// Setup succeeded.
    Initialized,
    /// Setup failed.
    Failed,
    /// The toolset reported itself unavailable.
    Unavailable,
    /// Teardown ran.
    Closed,
}

/// One lifecycle step of one toolset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolsetLifecycleReport {
    /// Toolset name.
    pub toolset: String,
    /// Outcome.
    pub status: ToolsetLifecycleStatus,
    /// Error text for failures.
    pub error: Option<String>,
}

impl ToolsetLifecycleReport {
    fn publish(self, context: &mut AgentContext) -> Self {
        let kind = match self.status {
            ToolsetLifecycleStatus::Initialized => ContextEventKind::ToolsetInitialized,
            ToolsetLifecycleStatus::Failed => ContextEventKind::ToolsetFailed,
            ToolsetLifecycleStatus::Unavailable => ContextEventKind::ToolsetUnavailable,
            ToolsetLifecycleStatus::Closed => ContextEventKind::ToolsetClosed,
        };
        context.emit(kind, json!({"toolset": self.toolset, "error": self.error}));
        self
    }
}

impl ToolRegistry {
    /// Checks availability and runs setup for toolsets that ask for it.
    /// Unavailable or failed toolsets are recorded in
    /// [`AgentContext::unavailable_toolsets`], which hides their tools.
    pub async fn enter_toolsets(&self, context: &mut AgentContext) -> Vec<ToolsetLifecycleReport> {
        enter_all(self.toolsets(), context).await
    }

    /// Enters the toolsets as a run does before its first request, then
    /// reads again the tools of those that list them only once set up
    /// (an MCP server lists its tools when it has started).
    pub async fn set_up_toolsets(
        &mut self,
        context: &mut AgentContext,
    ) -> Vec<ToolsetLifecycleReport> {
        let mut reports = self.enter_toolsets(context).await;
        let managed: Vec<DynToolset> = self
            .toolsets()
            .iter()
            .filter(|toolset| lists_after_setup(toolset.as_ref()))
            .cloned()
            .collect();
        for toolset in &managed {
            // Two toolsets offering one name would leave one of them unreachable without a
            // word: the later one is refused, naming both (`check` does this where the names
            // are known before the toolsets start).
            if let Some(clash) = self.name_clash(toolset) {
                context
                    .unavailable_toolsets
                    .insert(toolset.name().to_string());
                reports.push(
                    ToolsetLifecycleReport {
                        toolset: toolset.name().to_string(),
                        status: ToolsetLifecycleStatus::Failed,
                        error: Some(clash),
                    }
                    .publish(context),
                );
                continue;
            }
            self.insert_toolset(toolset);
        }
        reports
    }

    /// True when some toolset lists its tools only once set up, so its
    /// tools are known only after [`Self::set_up_toolsets`].
    #[must_use]
    pub fn lists_tools_after_setup(&self) -> bool {
        self.toolsets()
            .iter()
            .any(|toolset| lists_after_setup(toolset.as_ref()))
    }

    /// Runs teardown for toolsets whose policy asks for it and that were
    /// not left unavailable by [`Self::enter_toolsets`].
    pub async fn exit_toolsets(&self, context: &mut AgentContext) -> Vec<ToolsetLifecycleReport> {
        exit_all(self.toolsets(), context).await
    }
}

/// Whether a toolset, or one it wraps, sets up before its tools are read.
fn lists_after_setup(toolset: &dyn crate::tools::Toolset) -> bool {
    toolset.lifecycle_policy().enter_before_prepare
        || toolset
            .wrapped_toolsets()
            .iter()
            .any(|wrapped| lists_after_setup(wrapped.as_ref()))
}

/// Availability checks and setup for `toolsets` and the toolsets they
/// wrap, with their events. Boxed because it recurses.
pub(crate) fn enter_all<'a>(
    toolsets: &'a [DynToolset],
    context: &'a mut AgentContext,
) -> BoxFuture<'a, Vec<ToolsetLifecycleReport>> {
    Box::pin(async move {
        let mut reports = Vec::new();
        for toolset in toolsets {
            let name = toolset.name().to_string();
            // Toolset code runs behind the panic guards: a panicking
            // check counts as unavailable, a panicking setup or teardown
            // as failed, and the run goes on.
            let available = {
                let context = &*context;
                survives(|| toolset.is_available(context))
            };
            if !available {
                context.unavailable_toolsets.insert(name.clone());
                reports.push(
                    ToolsetLifecycleReport {
                        toolset: name,
                        status: ToolsetLifecycleStatus::Unavailable,
                        error: None,
                    }
                    .publish(context),
                );
                continue;
            }
            if !toolset.lifecycle_policy().enter_before_prepare {
                // Available again after an earlier segment found it down.
                context.unavailable_toolsets.remove(&name);
                let wrapped = toolset.wrapped_toolsets();
                reports.extend(enter_all(&wrapped, context).await);
                continue;
            }
            let entered = guarded(&name, || toolset.enter_with_context(context)).await;
            let report = match entered {
                Ok(()) => {
                    context.unavailable_toolsets.remove(&name);
                    ToolsetLifecycleReport {
                        toolset: name,
                        status: ToolsetLifecycleStatus::Initialized,
                        error: None,
                    }
                }
                Err(error) => {
                    context.unavailable_toolsets.insert(name.clone());
                    ToolsetLifecycleReport {
                        toolset: name,
                        status: ToolsetLifecycleStatus::Failed,
                        error: Some(error.to_string()),
                    }
                }
            };
            let entered = report.status == ToolsetLifecycleStatus::Initialized;
            reports.push(report.publish(context));
            if entered {
                let wrapped = toolset.wrapped_toolsets();
                reports.extend(enter_all(&wrapped, context).await);
            }
        }
        reports
    })
}

/// Teardown for `toolsets` (wrapped ones first) that asked for it and are
/// not unavailable.
pub(crate) fn exit_all<'a>(
    toolsets: &'a [DynToolset],
    context: &'a mut AgentContext,
) -> BoxFuture<'a, Vec<ToolsetLifecycleReport>> {
    Box::pin(async move {
        let mut reports = Vec::new();
        for toolset in toolsets {
            let name = toolset.name().to_string();
            if context.unavailable_toolsets.contains(&name) {
                continue;
            }
            let wrapped = toolset.wrapped_toolsets();
            reports.extend(exit_all(&wrapped, context).await);
            if !toolset.lifecycle_policy().exit_after_run {
                continue;
            }
            let error = guarded(&name, || toolset.exit_with_context(context))
                .await
                .err()
                .map(|error| error.to_string());
            reports.push(
                ToolsetLifecycleReport {
                    toolset: name,
                    status: ToolsetLifecycleStatus::Closed,
                    error,
                }
                .publish(context),
            );
        }
        reports
    })
}

/// Runs a toolset's setup or teardown behind the panic guard: a panic is
/// the error its report carries.
async fn guarded<'a>(
    name: &str,
    start: impl FnOnce() -> BoxFuture<'a, Result<(), ToolError>>,
) -> Result<(), ToolError> {
    catch_panics(start).await.unwrap_or_else(|panic| {
        Err(ToolError::execution(format!(
            "toolset `{name}` panicked: {}",
            panic_text(&*panic)
        )))
    })
}

//! Tool lists that change during a run: before each model request the registry re-reads
//! every toolset whose list changed since it was registered (an MCP server that announced a
//! new list), so the request carries the tools the source offers now: added ones join,
//! removed ones are gone, and the toolset's own rules (bounds, name mapping) judge the new
//! list. A server serving the registry waits on the same signals to tell its clients.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::ToolRegistry;
use crate::context::{AgentContext, ContextEventKind};
use crate::tools::panic_guard::{catch_panics, panic_text};
use crate::tools::{DynToolset, ToolError, ToolListChanges};

/// A registered toolset whose list can change: the toolsets in it (itself or ones it wraps)
/// that raise change signals, and the revisions its registered tools were read at.
#[derive(Clone)]
pub(crate) struct Watched {
    /// The registered (top-level) toolset's name.
    pub(crate) toolset: String,
    /// Each changing toolset in it, with its signal.
    sources: Vec<(DynToolset, ToolListChanges)>,
    /// The sum of the sources' revisions when the tools were read.
    seen: u64,
}

impl Watched {
    /// The watch of `toolset`, or `None` when no list in it can change.
    pub(crate) fn of(toolset: &DynToolset) -> Option<Self> {
        let mut sources = Vec::new();
        collect(toolset, &mut sources);
        if sources.is_empty() {
            return None;
        }
        let mut watched = Self {
            toolset: toolset.name().to_string(),
            sources,
            seen: 0,
        };
        watched.seen = watched.revisions();
        Some(watched)
    }

    fn revisions(&self) -> u64 {
        self.sources.iter().fold(0u64, |sum, (_, changes)| {
            sum.wrapping_add(changes.revision())
        })
    }

    /// Whether a source announced a change not read yet, or re-read since registration.
    fn is_behind(&self) -> bool {
        self.sources.iter().any(|(_, changes)| changes.is_stale()) || self.revisions() != self.seen
    }
}

/// The changing toolsets in `toolset`: itself, and those it wraps (a proxy's, a search's).
fn collect(toolset: &DynToolset, sources: &mut Vec<(DynToolset, ToolListChanges)>) {
    if let Some(changes) = toolset.tool_list_changes() {
        sources.push((toolset.clone(), changes));
    }
    for wrapped in toolset.wrapped_toolsets() {
        collect(&wrapped, sources);
    }
}

/// One toolset re-read because its list changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolsetRefreshReport {
    /// The registered toolset's name.
    pub toolset: String,
    /// Tools it offers now and did not before, by the names the model sees.
    pub added: Vec<String>,
    /// Tools it offered before and no longer does.
    pub removed: Vec<String>,
    /// Why the new list could not be read or offered; its tools are then hidden.
    pub error: Option<String>,
}

impl ToolsetRefreshReport {
    /// Publishes the report: `toolset_refreshed`, or `toolset_failed` (with `refresh: true`)
    /// when the list could not be read.
    pub fn publish(&self, context: &mut AgentContext) {
        match &self.error {
            None => context.emit(
                ContextEventKind::ToolsetRefreshed,
                json!({"toolset": self.toolset, "added": self.added, "removed": self.removed}),
            ),
            Some(error) => context.emit(
                ContextEventKind::ToolsetFailed,
                json!({"toolset": self.toolset, "error": error, "refresh": true}),
            ),
        }
    }
}

impl ToolRegistry {
    /// Whether some toolset's tool list changed since it was registered: what
    /// [`Self::refresh_toolsets`] would re-read. Cheap: no allocation, no toolset code.
    #[must_use]
    pub fn tool_lists_changed(&self) -> bool {
        self.watched.iter().any(Watched::is_behind)
    }

    /// Re-reads every toolset whose tool list changed since it was registered and registers
    /// it again, so the next definitions are the new list; one report per toolset re-read
    /// (none when nothing changed). A toolset whose list cannot be read keeps its place (it
    /// still exits with the run) but offers no tools until its list changes again.
    pub async fn refresh_toolsets(&mut self) -> Vec<ToolsetRefreshReport> {
        if !self.tool_lists_changed() {
            return Vec::new();
        }
        let behind: Vec<Watched> = self
            .watched
            .iter()
            .filter(|watched| watched.is_behind())
            .cloned()
            .collect();
        let mut reports = Vec::with_capacity(behind.len());
        for watched in behind {
            let before = self.tool_names_of(&watched.toolset);
            let mut error = None;
            for (source, changes) in &watched.sources {
                if !changes.is_stale() {
                    continue;
                }
                if let Err(problem) = refreshed(source).await {
                    error.get_or_insert(problem.to_string());
                }
            }
            let Some(toolset) = self
                .toolsets
                .iter()
                .find(|toolset| toolset.name() == watched.toolset)
                .cloned()
            else {
                continue;
            };
            if error.is_none() {
                // A new list may bring a name another toolset has: refused as at setup.
                error = self.name_clash(&toolset);
            }
            if error.is_some() {
                self.entries.retain(|_, entry| {
                    entry
                        .toolset
                        .as_ref()
                        .is_none_or(|defaults| defaults.name != watched.toolset)
                });
                if let Some(kept) = self
                    .watched
                    .iter_mut()
                    .find(|kept| kept.toolset == watched.toolset)
                {
                    kept.seen = kept.revisions();
                }
            } else {
                self.insert_toolset(&toolset);
            }
            let after = self.tool_names_of(&watched.toolset);
            reports.push(ToolsetRefreshReport {
                toolset: watched.toolset,
                added: after
                    .iter()
                    .filter(|name| !before.contains(name))
                    .cloned()
                    .collect(),
                removed: before
                    .iter()
                    .filter(|name| !after.contains(name))
                    .cloned()
                    .collect(),
                error,
            });
        }
        reports
    }

    /// Completes once [`Self::tool_lists_changed`] is true (at once when it already is);
    /// never for a registry whose toolsets' lists cannot change. A server serving this
    /// registry waits on it to tell its clients that the list changed.
    pub async fn tool_list_change(&self) {
        let mut receivers: Vec<_> = self
            .watched
            .iter()
            .flat_map(|watched| watched.sources.iter())
            .map(|(_, changes)| changes.subscribe())
            .collect();
        loop {
            // Subscribed before the check: a change in between still wakes a receiver.
            if self.tool_lists_changed() {
                return;
            }
            if receivers.is_empty() {
                return std::future::pending().await;
            }
            let waits = receivers
                .iter_mut()
                .map(|receiver| Box::pin(receiver.changed()));
            let (woken, index, rest) = futures::future::select_all(waits).await;
            drop(rest);
            if woken.is_err() {
                // That signal's toolset is gone: it will not change again.
                receivers.swap_remove(index);
            }
        }
    }

    /// The registered tools that came from the toolset `name`, in name order.
    fn tool_names_of(&self, name: &str) -> Vec<String> {
        self.entries
            .iter()
            .filter(|(_, entry)| {
                entry
                    .toolset
                    .as_ref()
                    .is_some_and(|defaults| defaults.name == name)
            })
            .map(|(tool, _)| tool.clone())
            .collect()
    }
}

/// [`crate::tools::Toolset::refresh_tools`] behind the panic guard: a panic is its error.
async fn refreshed(source: &DynToolset) -> Result<(), ToolError> {
    catch_panics(|| source.refresh_tools())
        .await
        .unwrap_or_else(|panic| {
            Err(ToolError::execution(format!(
                "toolset `{}` panicked while re-reading its tools: {}",
                source.name(),
                panic_text(&*panic)
            )))
        })
}

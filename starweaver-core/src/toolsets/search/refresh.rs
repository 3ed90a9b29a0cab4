//! Deterministic refresh scheduling for hosts that own inventory versions,
//! file watchers or remote catalog polling.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::{ToolSearchRefreshReport, ToolSearchToolset, TOOL_SEARCH_REFRESHED_EVENT_KIND};
use crate::AgentContext;

/// Why a refresh is due.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolSearchRefreshReason {
    /// The host reported a new inventory version.
    InventoryChanged,
    /// A file watcher or catalog event arrived.
    WatchEvent,
    /// The host asked for a refresh.
    Requested,
    /// The refresh interval elapsed.
    Interval,
}

impl ToolSearchRefreshReason {
    /// Stable snake_case name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::InventoryChanged => "inventory_changed",
            Self::WatchEvent => "watch_event",
            Self::Requested => "requested",
            Self::Interval => "interval",
        }
    }
}

/// Whether a refresh should run now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolSearchRefreshDecision {
    /// True when a refresh should run now.
    pub due: bool,
    /// Why (also set while a change waits out its debounce).
    pub reason: Option<ToolSearchRefreshReason>,
    /// Milliseconds until the debounce or interval expires, when not due.
    pub wait_ms: Option<u64>,
}

/// Decides when to refresh from host-supplied clock readings, so hosts
/// and tests get the same answer for the same inputs. Changes are
/// debounced: a burst of events refreshes once, `debounce_ms` after the
/// last one. Without changes, a refresh runs every `interval_ms` (if set).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolSearchRefreshBinding {
    interval_ms: Option<u64>,
    debounce_ms: u64,
    last_refresh_ms: Option<u64>,
    inventory_version: Option<String>,
    pending: Option<(ToolSearchRefreshReason, u64)>,
}

impl ToolSearchRefreshBinding {
    /// A binding with no interval and no debounce.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Refresh at least this often.
    #[must_use]
    pub fn with_interval_ms(mut self, interval_ms: u64) -> Self {
        self.interval_ms = Some(interval_ms);
        self
    }

    /// Wait this long after the last change before refreshing.
    #[must_use]
    pub fn with_debounce_ms(mut self, debounce_ms: u64) -> Self {
        self.debounce_ms = debounce_ms;
        self
    }

    /// The last inventory version seen.
    #[must_use]
    pub fn inventory_version(&self) -> Option<&str> {
        self.inventory_version.as_deref()
    }

    /// Records the host's inventory version; a different version than the
    /// last one schedules a refresh. Returns true when it changed.
    pub fn observe_inventory_version(&mut self, version: impl Into<String>, now_ms: u64) -> bool {
        let version = version.into();
        if self.inventory_version.as_deref() == Some(version.as_str()) {
            return false;
        }
        let first = self.inventory_version.is_none() && self.last_refresh_ms.is_none();
        self.inventory_version = Some(version);
        if !first {
            self.mark(ToolSearchRefreshReason::InventoryChanged, now_ms);
        }
        true
    }

    /// Records a watcher or catalog event.
    pub fn observe_watch_event(&mut self, now_ms: u64) {
        self.mark(ToolSearchRefreshReason::WatchEvent, now_ms);
    }

    /// Asks for a refresh (still debounced).
    pub fn request_refresh(&mut self, now_ms: u64) {
        self.mark(ToolSearchRefreshReason::Requested, now_ms);
    }

    fn mark(&mut self, reason: ToolSearchRefreshReason, now_ms: u64) {
        let reason = match self.pending {
            // An inventory change outranks the events that follow it.
            Some((ToolSearchRefreshReason::InventoryChanged, _)) => {
                ToolSearchRefreshReason::InventoryChanged
            }
            _ => reason,
        };
        self.pending = Some((reason, now_ms));
    }

    /// Whether a refresh is due at `now_ms`.
    #[must_use]
    pub fn decision(&self, now_ms: u64) -> ToolSearchRefreshDecision {
        if let Some((reason, last_change_ms)) = self.pending {
            let ready_at = last_change_ms.saturating_add(self.debounce_ms);
            return ToolSearchRefreshDecision {
                due: now_ms >= ready_at,
                reason: Some(reason),
                wait_ms: (now_ms < ready_at).then(|| ready_at - now_ms),
            };
        }
        match (self.interval_ms, self.last_refresh_ms) {
            (Some(_), None) => ToolSearchRefreshDecision {
                due: true,
                reason: Some(ToolSearchRefreshReason::Interval),
                wait_ms: None,
            },
            (Some(interval_ms), Some(last_ms)) => {
                let ready_at = last_ms.saturating_add(interval_ms);
                ToolSearchRefreshDecision {
                    due: now_ms >= ready_at,
                    reason: (now_ms >= ready_at).then_some(ToolSearchRefreshReason::Interval),
                    wait_ms: (now_ms < ready_at).then(|| ready_at - now_ms),
                }
            }
            (None, _) => ToolSearchRefreshDecision {
                due: false,
                reason: None,
                wait_ms: None,
            },
        }
    }

    /// Refreshes the toolset's loaded state when due, publishing
    /// `tool_search_refreshed` with `refresh_scheduled`, `refresh_reason`,
    /// `refresh_ms` and `inventory_version`. `None` when not due.
    pub fn refresh_loaded_state_if_due(
        &mut self,
        toolset: &ToolSearchToolset,
        context: &mut AgentContext,
        now_ms: u64,
    ) -> Option<ToolSearchRefreshReport> {
        let decision = self.decision(now_ms);
        if !decision.due {
            return None;
        }
        let started = Instant::now();
        let mut report = toolset.refresh_without_event(context);
        report.refresh_scheduled = true;
        report.refresh_reason = decision.reason.map(|reason| reason.as_str().to_string());
        report.refresh_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        report.inventory_version.clone_from(&self.inventory_version);
        context.emit(
            TOOL_SEARCH_REFRESHED_EVENT_KIND,
            serde_json::to_value(&report).unwrap_or(serde_json::Value::Null),
        );
        self.pending = None;
        self.last_refresh_ms = Some(now_ms);
        Some(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debounce_collapses_bursts() {
        let mut binding = ToolSearchRefreshBinding::new().with_debounce_ms(100);
        assert!(!binding.decision(0).due);
        binding.observe_watch_event(10);
        binding.observe_watch_event(50);
        let waiting = binding.decision(100);
        assert!(!waiting.due);
        assert_eq!(waiting.wait_ms, Some(50));
        assert_eq!(waiting.reason, Some(ToolSearchRefreshReason::WatchEvent));
        assert!(binding.decision(150).due);
    }

    #[test]
    fn version_change_outranks_later_events_and_interval_applies() {
        let mut binding = ToolSearchRefreshBinding::new().with_interval_ms(1_000);
        assert!(binding.observe_inventory_version("v1", 0));
        assert_eq!(
            binding.decision(0).reason,
            Some(ToolSearchRefreshReason::Interval)
        );
        assert!(!binding.observe_inventory_version("v1", 5));
        assert!(binding.observe_inventory_version("v2", 10));
        binding.observe_watch_event(20);
        assert_eq!(
            binding.decision(20).reason,
            Some(ToolSearchRefreshReason::InventoryChanged)
        );
    }
}

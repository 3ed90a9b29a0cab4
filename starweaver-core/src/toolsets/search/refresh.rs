//! Deterministic refresh scheduling for hosts that own inventory versions,
//! file watchers or remote catalog polling.

use std::time::Instant;

use super::toolset::to_json;
use super::{ToolSearchRefreshReport, ToolSearchToolset};
use crate::context::{AgentContext, ContextEventKind};
use crate::schedule::{RefreshDecision, RefreshSchedule};

/// Decides when to refresh from host-supplied clock readings, so hosts
/// and tests get the same answer for the same inputs. Changes are
/// debounced: a burst of events refreshes once, `debounce_ms` after the
/// last one. Without changes, a refresh runs every `interval_ms` (if set).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolSearchRefreshBinding {
    schedule: RefreshSchedule,
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
        self.schedule = self.schedule.with_interval_ms(interval_ms);
        self
    }

    /// Wait this long after the last change before refreshing.
    #[must_use]
    pub fn with_debounce_ms(mut self, debounce_ms: u64) -> Self {
        self.schedule = self.schedule.with_debounce_ms(debounce_ms);
        self
    }

    /// The last inventory version seen.
    #[must_use]
    pub fn inventory_version(&self) -> Option<&str> {
        self.schedule.inventory_version()
    }

    /// Records the host's inventory version; a different version than the
    /// last one schedules a refresh (the first one is the baseline).
    /// Returns true when it changed.
    pub fn observe_inventory_version(&mut self, version: impl Into<String>, now_ms: u64) -> bool {
        self.schedule.observe_inventory_version(version, now_ms)
    }

    /// Records a watcher or catalog event.
    pub fn observe_watch_event(&mut self, now_ms: u64) {
        self.schedule.observe_watch_event(now_ms);
    }

    /// Asks for a refresh (still debounced).
    pub fn request_refresh(&mut self, now_ms: u64) {
        self.schedule.request(now_ms);
    }

    /// Whether a refresh is due at `now_ms`.
    #[must_use]
    pub fn decision(&self, now_ms: u64) -> RefreshDecision {
        self.schedule.decision(now_ms)
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
        report.inventory_version = self.schedule.inventory_version().map(str::to_string);
        context.emit(ContextEventKind::ToolSearchRefreshed, to_json(&report));
        self.schedule.record_refresh(now_ms);
        Some(report)
    }
}

//! Host-clocked refresh scheduling, shared by tool-search refreshes and
//! skill reloads: the host reports inventory versions, watcher events and
//! requests with its own clock readings, and asks whether a refresh is due.
//! Nothing sleeps, so hosts and tests get the same answer for the same
//! inputs.

use serde::{Deserialize, Serialize};

/// Why a refresh is due.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefreshReason {
    /// The host reported a new inventory version.
    InventoryChanged,
    /// A file watcher or catalog event arrived.
    WatchEvent,
    /// The host asked for a refresh.
    Requested,
    /// The refresh interval elapsed.
    Interval,
}

impl RefreshReason {
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
pub struct RefreshDecision {
    /// True when a refresh should run now.
    pub due: bool,
    /// Why (also set while a change waits out its debounce).
    pub reason: Option<RefreshReason>,
    /// Milliseconds until the debounce or interval expires, when not due.
    pub wait_ms: Option<u64>,
}

/// The scheduling state behind the refresh bindings. Changes are
/// debounced: a burst of events refreshes once, `debounce_ms` after the
/// last one. With `interval_ms` set, a refresh runs at least that often:
/// without changes, and also while changes keep arriving faster than the
/// debounce. The first inventory version ever seen is the baseline: it
/// describes what the host already loaded, so it schedules nothing.
///
/// ```
/// use starweaver_core::schedule::{RefreshReason, RefreshSchedule};
///
/// let mut schedule = RefreshSchedule::new().with_debounce_ms(200);
/// schedule.observe_watch_event(1_000);
/// schedule.observe_watch_event(1_150);
/// assert!(!schedule.decision(1_300).due); // 50 ms left
/// let decision = schedule.decision(1_350);
/// assert!(decision.due);
/// assert_eq!(decision.reason, Some(RefreshReason::WatchEvent));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RefreshSchedule {
    interval_ms: Option<u64>,
    debounce_ms: u64,
    last_refresh_ms: Option<u64>,
    inventory_version: Option<String>,
    pending: Option<(RefreshReason, u64)>,
}

impl RefreshSchedule {
    /// No interval, no debounce.
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

    /// When the last refresh happened.
    #[must_use]
    pub fn last_refresh_ms(&self) -> Option<u64> {
        self.last_refresh_ms
    }

    /// Records the host's inventory version; a version different from the
    /// last one schedules a refresh (the first one is the baseline).
    /// Returns true when it changed.
    pub fn observe_inventory_version(&mut self, version: impl Into<String>, now_ms: u64) -> bool {
        let version = version.into();
        if self.inventory_version.as_deref() == Some(version.as_str()) {
            return false;
        }
        let baseline = self.inventory_version.is_none();
        self.inventory_version = Some(version);
        if !baseline {
            self.mark(RefreshReason::InventoryChanged, now_ms);
        }
        true
    }

    /// Records a watcher or catalog event.
    pub fn observe_watch_event(&mut self, now_ms: u64) {
        self.mark(RefreshReason::WatchEvent, now_ms);
    }

    /// Asks for a refresh (still debounced).
    pub fn request(&mut self, now_ms: u64) {
        self.mark(RefreshReason::Requested, now_ms);
    }

    /// Records a refresh at `now_ms`: pending changes are settled and the
    /// interval counts from here.
    pub fn record_refresh(&mut self, now_ms: u64) {
        self.pending = None;
        self.last_refresh_ms = Some(now_ms);
    }

    fn mark(&mut self, reason: RefreshReason, now_ms: u64) {
        let reason = match self.pending {
            // An inventory change outranks the events that follow it.
            Some((RefreshReason::InventoryChanged, _)) => RefreshReason::InventoryChanged,
            _ => reason,
        };
        self.pending = Some((reason, now_ms));
    }

    /// Whether a refresh is due at `now_ms`.
    #[must_use]
    pub fn decision(&self, now_ms: u64) -> RefreshDecision {
        if let Some((reason, last_change_ms)) = self.pending {
            let mut ready_at = last_change_ms.saturating_add(self.debounce_ms);
            // The interval bounds the wait: a stream of changes faster than
            // the debounce must not postpone the refresh forever.
            if let Some(interval_ms) = self.interval_ms {
                let deadline = self
                    .last_refresh_ms
                    .map_or(0, |last_ms| last_ms.saturating_add(interval_ms));
                ready_at = ready_at.min(deadline);
            }
            return RefreshDecision {
                due: now_ms >= ready_at,
                reason: Some(reason),
                wait_ms: (now_ms < ready_at).then(|| ready_at - now_ms),
            };
        }
        match (self.interval_ms, self.last_refresh_ms) {
            (Some(_), None) => RefreshDecision {
                due: true,
                reason: Some(RefreshReason::Interval),
                wait_ms: None,
            },
            (Some(interval_ms), Some(last_ms)) => {
                let ready_at = last_ms.saturating_add(interval_ms);
                RefreshDecision {
                    due: now_ms >= ready_at,
                    reason: (now_ms >= ready_at).then_some(RefreshReason::Interval),
                    wait_ms: (now_ms < ready_at).then(|| ready_at - now_ms),
                }
            }
            (None, _) => RefreshDecision {
                due: false,
                reason: None,
                wait_ms: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debounce_collapses_bursts() {
        let mut schedule = RefreshSchedule::new().with_debounce_ms(100);
        assert!(!schedule.decision(0).due);
        schedule.observe_watch_event(10);
        schedule.observe_watch_event(50);
        let waiting = schedule.decision(100);
        assert!(!waiting.due);
        assert_eq!(waiting.wait_ms, Some(50));
        assert_eq!(waiting.reason, Some(RefreshReason::WatchEvent));
        assert!(schedule.decision(150).due);
    }

    #[test]
    fn version_change_outranks_later_events() {
        let mut schedule = RefreshSchedule::new();
        assert!(schedule.observe_inventory_version("v1", 0));
        assert!(
            !schedule.decision(0).due,
            "the first version is the baseline"
        );
        assert!(!schedule.observe_inventory_version("v1", 5));
        assert!(schedule.observe_inventory_version("v2", 10));
        schedule.request(20);
        let decision = schedule.decision(20);
        assert!(decision.due);
        assert_eq!(decision.reason, Some(RefreshReason::InventoryChanged));
    }

    #[test]
    fn the_interval_bounds_the_debounce() {
        let mut schedule = RefreshSchedule::new()
            .with_interval_ms(1_000)
            .with_debounce_ms(100);
        schedule.record_refresh(0);
        for now in (0..1_000).step_by(50) {
            schedule.observe_watch_event(now);
            assert!(!schedule.decision(now).due, "debounced at {now}");
        }
        schedule.observe_watch_event(1_000);
        let decision = schedule.decision(1_000);
        assert!(decision.due);
        assert_eq!(decision.reason, Some(RefreshReason::WatchEvent));
    }

    #[test]
    fn interval_counts_from_the_last_refresh() {
        let mut schedule = RefreshSchedule::new().with_interval_ms(1_000);
        assert_eq!(
            schedule.decision(0).reason,
            Some(RefreshReason::Interval),
            "never refreshed: due at once"
        );
        schedule.record_refresh(500);
        let waiting = schedule.decision(1_000);
        assert!(!waiting.due);
        assert_eq!(waiting.wait_ms, Some(500));
        assert!(schedule.decision(1_500).due);
    }
}

//! Deterministic reload scheduling for hosts that own skill-directory
//! versions or file-watcher events. Mirrors
//! [`crate::ToolSearchRefreshBinding`]: the host supplies clock readings,
//! the binding never sleeps.

use serde::{Deserialize, Serialize};

use super::{SkillError, SkillRegistry, SkillReloadReport, SkillSourceScope};
use crate::environment::DynEnvironment;
use crate::AgentContext;

/// Why a reload is due.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkillReloadReason {
    /// The host reported a new skill-directory version.
    InventoryChanged,
    /// A file watcher event arrived.
    WatchEvent,
    /// The host asked for a reload.
    Requested,
    /// The reload interval elapsed.
    Interval,
}

impl SkillReloadReason {
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

/// Whether a reload should run now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkillReloadDecision {
    /// True when a reload should run now.
    pub due: bool,
    /// Why (also set while a change waits out its debounce).
    pub reason: Option<SkillReloadReason>,
    /// Milliseconds until the debounce or interval expires, when not due.
    pub wait_ms: Option<u64>,
}

/// Decides when to reload skills from host-supplied clock readings (any
/// monotonic milliseconds), so hosts and tests get the same answer for
/// the same inputs. Changes are debounced: a burst of watcher events
/// reloads once, `debounce_ms` after the last one. Without changes, a
/// reload runs every `interval_ms` (if set).
///
/// ```
/// use starweaver_core::skills::{SkillReloadBinding, SkillReloadReason};
///
/// let mut binding = SkillReloadBinding::new().with_debounce_ms(200);
/// binding.observe_watch_event(1_000);
/// binding.observe_watch_event(1_150);
/// assert!(!binding.decision(1_300).due); // 50 ms left
/// let decision = binding.decision(1_350);
/// assert!(decision.due);
/// assert_eq!(decision.reason, Some(SkillReloadReason::WatchEvent));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkillReloadBinding {
    interval_ms: Option<u64>,
    debounce_ms: u64,
    last_reload_ms: Option<u64>,
    inventory_version: Option<String>,
    pending: Option<(SkillReloadReason, u64)>,
}

impl SkillReloadBinding {
    /// A binding with no interval and no debounce.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Reload at least this often.
    #[must_use]
    pub fn with_interval_ms(mut self, interval_ms: u64) -> Self {
        self.interval_ms = Some(interval_ms);
        self
    }

    /// Wait this long after the last change before reloading.
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

    /// When the last reload (or recorded scan) happened.
    #[must_use]
    pub fn last_reload_ms(&self) -> Option<u64> {
        self.last_reload_ms
    }

    /// Records that the registry was (re)scanned at `now_ms` outside the
    /// binding (for example the initial scan), so the interval counts
    /// from there and pending changes are settled.
    pub fn record_reload(&mut self, now_ms: u64) {
        self.pending = None;
        self.last_reload_ms = Some(now_ms);
    }

    /// Records the host's skill-directory version; a version different
    /// from the last one schedules a reload. The first version ever seen
    /// is the baseline (it describes the registry the host already
    /// scanned) and schedules nothing. Returns true when it changed.
    pub fn observe_inventory_version(&mut self, version: impl Into<String>, now_ms: u64) -> bool {
        let version = version.into();
        if self.inventory_version.as_deref() == Some(version.as_str()) {
            return false;
        }
        let first = self.inventory_version.is_none();
        self.inventory_version = Some(version);
        if !first {
            self.mark(SkillReloadReason::InventoryChanged, now_ms);
        }
        true
    }

    /// Records a file watcher event.
    pub fn observe_watch_event(&mut self, now_ms: u64) {
        self.mark(SkillReloadReason::WatchEvent, now_ms);
    }

    /// Asks for a reload (still debounced).
    pub fn request_reload(&mut self, now_ms: u64) {
        self.mark(SkillReloadReason::Requested, now_ms);
    }

    fn mark(&mut self, reason: SkillReloadReason, now_ms: u64) {
        let reason = match self.pending {
            // An inventory change outranks the events that follow it.
            Some((SkillReloadReason::InventoryChanged, _)) => SkillReloadReason::InventoryChanged,
            _ => reason,
        };
        self.pending = Some((reason, now_ms));
    }

    /// Whether a reload is due at `now_ms`.
    #[must_use]
    pub fn decision(&self, now_ms: u64) -> SkillReloadDecision {
        if let Some((reason, last_change_ms)) = self.pending {
            let ready_at = last_change_ms.saturating_add(self.debounce_ms);
            return SkillReloadDecision {
                due: now_ms >= ready_at,
                reason: Some(reason),
                wait_ms: (now_ms < ready_at).then(|| ready_at - now_ms),
            };
        }
        match (self.interval_ms, self.last_reload_ms) {
            (Some(_), None) => SkillReloadDecision {
                due: true,
                reason: Some(SkillReloadReason::Interval),
                wait_ms: None,
            },
            (Some(interval_ms), Some(last_ms)) => {
                let ready_at = last_ms.saturating_add(interval_ms);
                SkillReloadDecision {
                    due: now_ms >= ready_at,
                    reason: (now_ms >= ready_at).then_some(SkillReloadReason::Interval),
                    wait_ms: (now_ms < ready_at).then(|| ready_at - now_ms),
                }
            }
            (None, _) => SkillReloadDecision {
                due: false,
                reason: None,
                wait_ms: None,
            },
        }
    }

    /// Reloads `registry` when due, publishing `skills_reloaded` with
    /// `reload_scheduled`, `reload_reason`, `reload_ms` and
    /// `inventory_version`. `Ok(None)` when not due; a failed reload keeps
    /// its pending change so the next call retries.
    ///
    /// # Errors
    /// As [`SkillRegistry::reload_with_report`].
    pub async fn reload_with_context_if_due(
        &mut self,
        registry: &SkillRegistry,
        provider: DynEnvironment,
        scopes: &[SkillSourceScope],
        context: &mut AgentContext,
        now_ms: u64,
    ) -> Result<Option<SkillReloadReport>, SkillError> {
        let decision = self.decision(now_ms);
        if !decision.due {
            return Ok(None);
        }
        let mut report = registry.reload_with_report(provider, scopes).await?;
        report.reload_scheduled = true;
        report.reload_reason = decision.reason;
        report.inventory_version.clone_from(&self.inventory_version);
        context.events.publish(report.to_event());
        self.record_reload(now_ms);
        Ok(Some(report))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debounce_collapses_bursts() {
        let mut binding = SkillReloadBinding::new().with_debounce_ms(100);
        assert!(!binding.decision(0).due);
        binding.observe_watch_event(10);
        binding.observe_watch_event(50);
        let waiting = binding.decision(100);
        assert!(!waiting.due);
        assert_eq!(waiting.wait_ms, Some(50));
        assert_eq!(waiting.reason, Some(SkillReloadReason::WatchEvent));
        assert!(binding.decision(150).due);
    }

    #[test]
    fn version_change_outranks_later_events() {
        let mut binding = SkillReloadBinding::new();
        assert!(binding.observe_inventory_version("v1", 0));
        assert!(
            !binding.decision(0).due,
            "the first version is the baseline"
        );
        assert!(!binding.observe_inventory_version("v1", 5));
        assert!(binding.observe_inventory_version("v2", 10));
        binding.request_reload(20);
        let decision = binding.decision(20);
        assert!(decision.due);
        assert_eq!(decision.reason, Some(SkillReloadReason::InventoryChanged));
    }

    #[test]
    fn interval_counts_from_the_recorded_scan() {
        let mut binding = SkillReloadBinding::new().with_interval_ms(1_000);
        assert_eq!(
            binding.decision(0).reason,
            Some(SkillReloadReason::Interval),
            "never reloaded: due at once"
        );
        binding.record_reload(500);
        let waiting = binding.decision(1_000);
        assert!(!waiting.due);
        assert_eq!(waiting.wait_ms, Some(500));
        assert!(binding.decision(1_500).due);
    }
}

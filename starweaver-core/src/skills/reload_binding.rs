//! Deterministic reload scheduling for hosts that own skill-directory
//! versions or file-watcher events, on the same [`RefreshSchedule`] as
//! [`crate::toolsets::ToolSearchRefreshBinding`]: the host supplies clock readings,
//! the binding never sleeps.

use super::{SkillError, SkillRegistry, SkillReloadReport, SkillSourceScope};
use crate::context::AgentContext;
use crate::environment::DynEnvironment;
use crate::schedule::{RefreshDecision, RefreshSchedule};

/// Decides when to reload skills from host-supplied clock readings (any
/// monotonic milliseconds), so hosts and tests get the same answer for
/// the same inputs. Changes are debounced: a burst of watcher events
/// reloads once, `debounce_ms` after the last one. Without changes, a
/// reload runs every `interval_ms` (if set).
///
/// ```
/// use starweaver_core::schedule::RefreshReason;
/// use starweaver_core::skills::SkillReloadBinding;
///
/// let mut binding = SkillReloadBinding::new().with_debounce_ms(200);
/// binding.observe_watch_event(1_000);
/// binding.observe_watch_event(1_150);
/// assert!(!binding.decision(1_300).due); // 50 ms left
/// let decision = binding.decision(1_350);
/// assert!(decision.due);
/// assert_eq!(decision.reason, Some(RefreshReason::WatchEvent));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkillReloadBinding {
    schedule: RefreshSchedule,
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
        self.schedule = self.schedule.with_interval_ms(interval_ms);
        self
    }

    /// Wait this long after the last change before reloading.
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

    /// When the last reload (or recorded scan) happened.
    #[must_use]
    pub fn last_reload_ms(&self) -> Option<u64> {
        self.schedule.last_refresh_ms()
    }

    /// Records that the registry was (re)scanned at `now_ms` outside the
    /// binding (for example the initial scan), so the interval counts
    /// from there and pending changes are settled.
    pub fn record_reload(&mut self, now_ms: u64) {
        self.schedule.record_refresh(now_ms);
    }

    /// Records the host's skill-directory version; a version different
    /// from the last one schedules a reload. The first version ever seen
    /// is the baseline (it describes the registry the host already
    /// scanned) and schedules nothing. Returns true when it changed.
    pub fn observe_inventory_version(&mut self, version: impl Into<String>, now_ms: u64) -> bool {
        self.schedule.observe_inventory_version(version, now_ms)
    }

    /// Records a file watcher event.
    pub fn observe_watch_event(&mut self, now_ms: u64) {
        self.schedule.observe_watch_event(now_ms);
    }

    /// Asks for a reload (still debounced).
    pub fn request_reload(&mut self, now_ms: u64) {
        self.schedule.request(now_ms);
    }

    /// Whether a reload is due at `now_ms`.
    #[must_use]
    pub fn decision(&self, now_ms: u64) -> RefreshDecision {
        self.schedule.decision(now_ms)
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
        report.inventory_version = self.schedule.inventory_version().map(str::to_string);
        context.events.publish(report.to_event());
        self.record_reload(now_ms);
        Ok(Some(report))
    }
}

//! Kinds of the context events the skills layer publishes. Payloads
//! carry names, paths and diagnostics, never skill bodies.

/// A lenient scan finished: skill names and diagnostics.
pub const SKILL_SCAN_EVENT_KIND: &str = "skills_scanned";

/// A skill was activated (its full markdown loaded).
pub const SKILL_ACTIVATED_EVENT_KIND: &str = "skill_activated";

/// A registry was reloaded: added, removed and modified skills.
pub const SKILL_RELOAD_EVENT_KIND: &str = "skills_reloaded";

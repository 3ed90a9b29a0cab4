//! The names the skills layer's context events go by. Payloads carry
//! names, paths and diagnostics, never skill bodies.

use crate::context::ContextEventKind;

/// A lenient scan finished: skill names and diagnostics
/// ([`ContextEventKind::SkillsScanned`], `skills_scanned` on the wire).
pub const SKILL_SCAN_EVENT_KIND: ContextEventKind = ContextEventKind::SkillsScanned;

/// A registry was reloaded: added, removed and modified skills
/// ([`ContextEventKind::SkillsReloaded`], `skills_reloaded` on the wire).
pub const SKILL_RELOAD_EVENT_KIND: ContextEventKind = ContextEventKind::SkillsReloaded;

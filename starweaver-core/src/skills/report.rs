//! The outcome of a lenient scan: the registry plus diagnostics.

use serde_json::{json, Value};

use super::{SkillDiagnosticSeverity, SkillRegistry, SkillScanDiagnostic};
use crate::context::{ContextEvent, ContextEventKind};

/// What [`SkillRegistry::scan_with_report`] found: the skills that
/// loaded, and a diagnostic for every skipped file, override and
/// warning, in scan order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkillScanReport {
    registry: SkillRegistry,
    diagnostics: Vec<SkillScanDiagnostic>,
}

impl SkillScanReport {
    /// A report of a registry and its diagnostics.
    #[must_use]
    pub fn new(registry: SkillRegistry, diagnostics: Vec<SkillScanDiagnostic>) -> Self {
        Self {
            registry,
            diagnostics,
        }
    }

    /// The skills that loaded.
    #[must_use]
    pub fn registry(&self) -> &SkillRegistry {
        &self.registry
    }

    /// The registry, consuming the report.
    #[must_use]
    pub fn into_registry(self) -> SkillRegistry {
        self.registry
    }

    /// Every diagnostic, in scan order.
    #[must_use]
    pub fn diagnostics(&self) -> &[SkillScanDiagnostic] {
        &self.diagnostics
    }

    /// True when a skill file was skipped.
    #[must_use]
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(SkillScanDiagnostic::is_error)
    }

    /// The `skills_scanned` event: skill names, counts and diagnostics
    /// (no skill bodies). Pass the report to
    /// `AgentBuilder::skills_report` to publish it at run start.
    #[must_use]
    pub fn to_event(&self) -> ContextEvent {
        ContextEvent::new(ContextEventKind::SkillsScanned, self.payload())
    }

    fn payload(&self) -> Value {
        let count = |severity| {
            self.diagnostics
                .iter()
                .filter(|diagnostic| diagnostic.severity == severity)
                .count()
        };
        json!({
            "skills": self.registry.names(),
            "skill_count": self.registry.len(),
            "diagnostics": diagnostics_json(&self.diagnostics),
            "error_count": count(SkillDiagnosticSeverity::Error),
            "warning_count": count(SkillDiagnosticSeverity::Warning),
        })
    }
}

pub(crate) fn diagnostics_json(diagnostics: &[SkillScanDiagnostic]) -> Value {
    serde_json::to_value(diagnostics).unwrap_or(Value::Null)
}

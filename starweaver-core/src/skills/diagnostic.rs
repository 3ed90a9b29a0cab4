//! What a lenient scan found wrong (or worth knowing) about skill files.

use serde::{Deserialize, Serialize};

use super::SkillError;

/// How serious a scan diagnostic is. [`super::SkillRegistry::scan`]
/// fails on the first [`Self::Error`]; warnings and notes never fail a
/// scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkillDiagnosticSeverity {
    /// Expected behaviour worth surfacing (a skill overridden by
    /// precedence).
    Info,
    /// The skill loaded, but something about it is off.
    Warning,
    /// The skill file was skipped.
    Error,
}

/// What a scan diagnostic is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SkillScanDiagnosticKind {
    /// No frontmatter, unclosed frontmatter, invalid YAML, or a field of
    /// the wrong shape. The skill was skipped.
    Malformed,
    /// The frontmatter has no `name`. The skill was skipped.
    MissingName,
    /// The frontmatter has no `description`. The skill was skipped.
    MissingDescription,
    /// The `name` is not a usable skill name. The skill was skipped.
    InvalidName,
    /// The file or directory could not be read (not UTF-8, I/O error,
    /// `SKILL.md` is a directory). The skill was skipped.
    Unreadable,
    /// A skill of the same name at higher precedence replaced this one.
    DuplicateOverridden,
    /// Two skills of one skills directory share a name; the first by
    /// folder name is kept and this one was skipped.
    DuplicateConflict,
    /// The `name` differs from the skill's folder name. The skill loaded
    /// under its `name`.
    NameMismatch,
    /// The description was longer than
    /// [`super::MAX_SKILL_DESCRIPTION_CHARS`] and was shortened.
    DescriptionTruncated,
    /// A folder in a skills directory has no `SKILL.md`.
    MissingEntrypoint,
}

impl SkillScanDiagnosticKind {
    /// How serious this kind is.
    #[must_use]
    pub const fn severity(self) -> SkillDiagnosticSeverity {
        match self {
            Self::Malformed
            | Self::MissingName
            | Self::MissingDescription
            | Self::InvalidName
            | Self::Unreadable
            | Self::DuplicateConflict => SkillDiagnosticSeverity::Error,
            Self::NameMismatch | Self::DescriptionTruncated | Self::MissingEntrypoint => {
                SkillDiagnosticSeverity::Warning
            }
            Self::DuplicateOverridden => SkillDiagnosticSeverity::Info,
        }
    }

    /// Stable snake_case name, as used in events.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Malformed => "malformed",
            Self::MissingName => "missing_name",
            Self::MissingDescription => "missing_description",
            Self::InvalidName => "invalid_name",
            Self::Unreadable => "unreadable",
            Self::DuplicateOverridden => "duplicate_overridden",
            Self::DuplicateConflict => "duplicate_conflict",
            Self::NameMismatch => "name_mismatch",
            Self::DescriptionTruncated => "description_truncated",
            Self::MissingEntrypoint => "missing_entrypoint",
        }
    }
}

/// One finding of a scan: what, where, and for which skill.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillScanDiagnostic {
    /// What the finding is about.
    pub kind: SkillScanDiagnosticKind,
    /// How serious it is (follows from `kind`).
    pub severity: SkillDiagnosticSeverity,
    /// The file or directory concerned (for an override, the skill that
    /// lost).
    pub path: String,
    /// The skill's name, when known.
    pub name: Option<String>,
    /// The other file involved: the skill that won an override or a
    /// conflict.
    pub related_path: Option<String>,
    /// A sentence for humans: what, where, how to fix.
    pub message: String,
}

impl SkillScanDiagnostic {
    /// A diagnostic of `kind` about `path`.
    #[must_use]
    pub fn new(
        kind: SkillScanDiagnosticKind,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            kind,
            severity: kind.severity(),
            path: path.into(),
            name: None,
            related_path: None,
            message: message.into(),
        }
    }

    /// Sets the skill name.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Sets the other file involved.
    #[must_use]
    pub fn with_related_path(mut self, path: impl Into<String>) -> Self {
        self.related_path = Some(path.into());
        self
    }

    /// True for diagnostics of [`SkillDiagnosticSeverity::Error`].
    #[must_use]
    pub fn is_error(&self) -> bool {
        self.severity == SkillDiagnosticSeverity::Error
    }

    /// The diagnostic for a skill file that failed to load.
    pub(crate) fn from_error(error: &SkillError, fallback_path: &str) -> Self {
        let kind = match error {
            SkillError::MissingFrontmatter { .. }
            | SkillError::UnclosedFrontmatter { .. }
            | SkillError::InvalidFrontmatter { .. }
            | SkillError::InvalidScope { .. }
            | SkillError::UnknownSkill { .. } => SkillScanDiagnosticKind::Malformed,
            SkillError::MissingField { field, .. } if *field == "name" => {
                SkillScanDiagnosticKind::MissingName
            }
            SkillError::MissingField { .. } => SkillScanDiagnosticKind::MissingDescription,
            SkillError::InvalidName { .. } => SkillScanDiagnosticKind::InvalidName,
            SkillError::DuplicateSkill { .. } => SkillScanDiagnosticKind::DuplicateConflict,
            SkillError::NotFound { .. }
            | SkillError::NotText { .. }
            | SkillError::Unreadable { .. }
            | SkillError::Environment(_) => SkillScanDiagnosticKind::Unreadable,
        };
        let mut diagnostic = Self::new(
            kind,
            error.path().unwrap_or(fallback_path),
            error.to_string(),
        );
        match error {
            SkillError::DuplicateSkill { name, kept, .. } => {
                diagnostic = diagnostic.with_name(name).with_related_path(kept);
            }
            SkillError::InvalidName { name, .. } => diagnostic = diagnostic.with_name(name),
            _ => {}
        }
        diagnostic
    }
}

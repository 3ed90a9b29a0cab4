//! Counting errors and warnings, shared by the summary lines and the exit status.

use std::fmt;

use super::FileReport;
use starweaver_config::diagnostics::{Diagnostic, Severity};

/// How many errors and warnings were found in how many files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Error-level diagnostics.
    pub errors: usize,
    /// Warning-level diagnostics.
    pub warnings: usize,
    /// Files checked.
    pub files: usize,
}

impl Summary {
    /// Counts one file's diagnostics.
    #[must_use]
    pub fn of_diagnostics(diagnostics: &[Diagnostic]) -> Self {
        let errors = diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        Self {
            errors,
            warnings: diagnostics.len() - errors,
            files: 1,
        }
    }

    /// Counts every file's diagnostics.
    #[must_use]
    pub fn of_reports(reports: &[FileReport]) -> Self {
        reports.iter().fold(Self::default(), |total, report| {
            let one = Self::of_diagnostics(&report.diagnostics);
            Self {
                errors: total.errors + one.errors,
                warnings: total.warnings + one.warnings,
                files: total.files + 1,
            }
        })
    }

    /// `N errors, M warnings`, without the file count, for per-file lines.
    #[must_use]
    pub fn counts(&self) -> String {
        format!(
            "{}, {}",
            plural(self.errors, "error"),
            plural(self.warnings, "warning")
        )
    }
}

impl fmt::Display for Summary {
    /// `N errors, M warnings in K files`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} in {}", self.counts(), plural(self.files, "file"))
    }
}

fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use starweaver_config::diagnostics::Rule;
    use starweaver_config::yaml::{Position, Span};

    #[test]
    fn counts_pluralise() {
        let span = Span::point(Position::START);
        let found = [
            Diagnostic::error(Rule::Syntax, span, "a"),
            Diagnostic::warning(Rule::ShellPolicy, span, "b"),
            Diagnostic::warning(Rule::ShellPolicy, span, "c"),
        ];
        let one = Summary::of_diagnostics(&found);
        assert_eq!(one.to_string(), "1 error, 2 warnings in 1 file");
        assert_eq!(
            Summary::default().to_string(),
            "0 errors, 0 warnings in 0 files"
        );
    }
}

//! The exit status of a check, kept apart from printing so the rules are testable alone.

use std::process::ExitCode;

use crate::report::{FileReport, Summary};

/// How a check ended: what the exit code tells a script or CI job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckStatus {
    /// Nothing wrong (warnings allowed unless they are denied): exit 0.
    Clean,
    /// At least one error, or a warning under `--deny-warnings`: exit 1.
    Failed,
    /// Bad usage, or a file or catalog that could not be read: exit 2.
    Usage,
}

impl CheckStatus {
    /// The process exit code for this status.
    #[must_use]
    pub const fn code(self) -> u8 {
        match self {
            Self::Clean => 0,
            Self::Failed => 1,
            Self::Usage => 2,
        }
    }
}

impl From<CheckStatus> for ExitCode {
    fn from(status: CheckStatus) -> Self {
        Self::from(status.code())
    }
}

/// The status for `reports`: failed when any error is found, or any warning when
/// `deny_warnings` is set; clean otherwise.
#[must_use]
pub fn status_of(reports: &[FileReport], deny_warnings: bool) -> CheckStatus {
    let summary = Summary::of_reports(reports);
    if summary.errors > 0 || (deny_warnings && summary.warnings > 0) {
        CheckStatus::Failed
    } else {
        CheckStatus::Clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use starweaver_config::diagnostics::{Diagnostic, Rule};
    use starweaver_config::yaml::{Position, Span};

    #[test]
    fn warnings_fail_only_when_denied() {
        let span = Span::point(Position::START);
        let warned = [FileReport::new(
            "a.yaml",
            Vec::new(),
            vec![Diagnostic::warning(Rule::ShellPolicy, span, "w")],
        )];
        assert_eq!(status_of(&warned, false), CheckStatus::Clean);
        assert_eq!(status_of(&warned, true), CheckStatus::Failed);
        let errored = [FileReport::new(
            "a.yaml",
            Vec::new(),
            vec![Diagnostic::error(Rule::Syntax, span, "e")],
        )];
        assert_eq!(status_of(&errored, false), CheckStatus::Failed);
        assert_eq!(status_of(&[], true), CheckStatus::Clean);
        assert_eq!(CheckStatus::Usage.code(), 2);
    }
}

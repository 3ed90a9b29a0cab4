//! How check results are printed: one renderer per output format, all over the same
//! [`FileReport`] list, so every format carries the same problems in the same order.
//!
//! [`human`] is for people at a terminal, [`json`] for scripts, [`github`] for workflow
//! annotations and [`sarif`] for code-scanning dashboards; a host that reports checks its own
//! way calls one renderer directly.

pub mod github;
pub mod human;
pub mod json;
pub mod sarif;
mod summary;

pub use summary::Summary;

use starweaver_config::diagnostics::Diagnostic;
use starweaver_config::validate::Checked;

/// One checked file: the name to print, its bytes (for source snippets), what was found, and
/// the checked manifest when nothing found is an error (so `--explain` and `tools` load what
/// was checked, without reading the file again).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileReport {
    /// The path as the user gave or the walk found it, printed as is.
    pub path: String,
    /// The file's bytes, so renderers can quote the offending line.
    pub source: Vec<u8>,
    /// Every problem in the file, in source order.
    pub diagnostics: Vec<Diagnostic>,
    /// The manifest as checked, ready to load; `None` when the file has an error.
    pub checked: Option<Checked>,
}

impl FileReport {
    /// Bundles a file's name, bytes and problems.
    #[must_use]
    pub fn new(path: impl Into<String>, source: Vec<u8>, diagnostics: Vec<Diagnostic>) -> Self {
        Self {
            path: path.into(),
            source,
            diagnostics,
            checked: None,
        }
    }

    /// Adds the checked manifest the checker gave for the file.
    #[must_use]
    pub fn with_checked(mut self, checked: Option<Checked>) -> Self {
        self.checked = checked;
        self
    }
}

/// The output formats `starweaver check --format` accepts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// rustc-style messages with the source line and a caret, then a summary.
    #[default]
    Human,
    /// One JSON array of diagnostics with 1-based positions.
    Json,
    /// GitHub Actions workflow commands (`::error file=...::message`).
    Github,
    /// SARIF 2.1.0, for code-scanning upload.
    Sarif,
}

/// Renders `reports` in `format`; the text always ends with a newline.
#[must_use]
pub fn render(format: Format, reports: &[FileReport]) -> String {
    match format {
        Format::Human => human::render(reports),
        Format::Json => json::render(reports),
        Format::Github => github::render(reports),
        Format::Sarif => sarif::render(reports),
    }
}

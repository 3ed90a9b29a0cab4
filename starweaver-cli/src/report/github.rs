//! `--format github`: GitHub Actions workflow commands, so problems show as annotations on the
//! pull request, plus one summary line per file.

use std::fmt::Write as _;

use super::{FileReport, Summary};

/// One `::error`/`::warning` command per diagnostic, each file's followed by its
/// `FILE: N errors, M warnings` line.
///
/// The notes and the help text, when present, follow the message on lines of their own.
#[must_use]
pub fn render(reports: &[FileReport]) -> String {
    let mut out = String::new();
    for report in reports {
        let file = escape_property(&report.path);
        for d in &report.diagnostics {
            let message = d.full_text();
            let _ = writeln!(
                out,
                "::{} file={file},line={},col={},endLine={},endColumn={},title={}::{}",
                d.severity,
                d.span.start.line,
                d.span.start.column,
                d.span.end.line,
                d.span.end.column,
                escape_property(d.rule.as_str()),
                escape_data(&message),
            );
        }
        let summary = Summary::of_diagnostics(&report.diagnostics);
        // A file name may hold a newline: escaped, it cannot start a workflow command line.
        let _ = writeln!(out, "{}: {}", escape_data(&report.path), summary.counts());
    }
    out
}

/// Escapes a command's message: `%`, carriage returns and newlines.
#[must_use]
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value: as [`escape_data`], plus `:` and `,`, which end values.
#[must_use]
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_follow_the_workflow_command_rules() {
        assert_eq!(escape_data("50% a\r\nb: c,d"), "50%25 a%0D%0Ab: c,d");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }
}

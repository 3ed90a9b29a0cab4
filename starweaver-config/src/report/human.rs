//! The default format: rustc-style messages, each with the source line and a caret under the
//! problem, then one summary line.

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

use super::{FileReport, Summary};
use crate::diagnostics::{Diagnostic, Severity};

/// Every diagnostic as
///
/// ```text
/// error[unknown-field]: unknown field `nme`
///  --> agents/scout.yaml:2:1
///   |
/// 2 | nme: scout
///   | ^^^
///   |
///   = help: did you mean `name`?
/// ```
///
/// separated by blank lines, then `N errors, M warnings in K files`. A file that is not UTF-8
/// is reported without a snippet, since there is no text to quote.
#[must_use]
pub fn render(reports: &[FileReport]) -> String {
    let renderer = Renderer::plain();
    let mut out = String::new();
    for report in reports {
        let text = std::str::from_utf8(&report.source).ok();
        for diagnostic in &report.diagnostics {
            match text {
                Some(text) => out.push_str(&snippet(&renderer, &report.path, text, diagnostic)),
                None => out.push_str(&plain(&report.path, diagnostic)),
            }
            out.push_str("\n\n");
        }
    }
    out.push_str(&Summary::of_reports(reports).to_string());
    out.push('\n');
    out
}

fn level(severity: Severity) -> Level<'static> {
    match severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    }
}

fn snippet(renderer: &Renderer, path: &str, text: &str, diagnostic: &Diagnostic) -> String {
    let range = byte_range(text, diagnostic);
    let mut group = Group::with_title(
        level(diagnostic.severity)
            .primary_title(diagnostic.message.as_str())
            .id(diagnostic.rule.as_str()),
    )
    .element(
        Snippet::source(text)
            .path(path)
            .annotation(AnnotationKind::Primary.span(range)),
    );
    if let Some(help) = &diagnostic.help {
        group = group.element(Level::HELP.message(help.as_str()));
    }
    renderer.render(&[group])
}

/// The span's bytes, clamped to the text and to character boundaries; an empty span widens to
/// the character it sits on so the caret has something to point at.
fn byte_range(text: &str, diagnostic: &Diagnostic) -> std::ops::Range<usize> {
    let clamp = |mut offset: usize| {
        offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    };
    let start = clamp(diagnostic.span.start.offset);
    let mut end = clamp(diagnostic.span.end.offset).max(start);
    if end == start {
        end = text[start..]
            .chars()
            .next()
            .filter(|c| *c != '\n' && *c != '\r')
            .map_or(start, |c| start + c.len_utf8());
    }
    start..end
}

fn plain(path: &str, d: &Diagnostic) -> String {
    let mut out = format!(
        "{}[{}]: {}\n  --> {path}:{}:{}",
        d.severity, d.rule, d.message, d.span.start.line, d.span.start.column
    );
    if let Some(help) = &d.help {
        out.push_str("\n  = help: ");
        out.push_str(help);
    }
    out
}

//! The default format: rustc-style messages, each with the source line and a caret under the
//! problem, then one summary line.

use std::ops::Range;

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};

use super::{FileReport, Summary};
use starweaver_config::diagnostics::{Diagnostic, Severity};

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

/// Lines of a multi-line span quoted at most; the rest of the span is left unmarked.
const MAX_EXCERPT_LINES: usize = 8;

/// How far into its line a span may start and still be quoted.
const MAX_LEAD_BYTES: usize = 512;

/// Bytes quoted in all; a longer excerpt is cut, so a huge line costs the same as a short one.
const MAX_EXCERPT_BYTES: usize = 2048;

fn snippet(renderer: &Renderer, path: &str, text: &str, diagnostic: &Diagnostic) -> String {
    let range = byte_range(text, diagnostic);
    let start = diagnostic.span.start;
    let mut group = Group::with_title(
        level(diagnostic.severity)
            .primary_title(diagnostic.message.as_str())
            .id(diagnostic.rule.as_str()),
    );
    match excerpt(text, range) {
        // The renderer derives the `-->` place from the quoted text, so the quote starts at
        // the beginning of the span's line.
        Some((excerpt, range)) => {
            group = group.element(
                Snippet::source(excerpt)
                    .path(path)
                    .line_start(start.line)
                    .annotation(AnnotationKind::Primary.span(range)),
            );
        }
        // A span far into a very long line: quoting from the line's start would cost the whole
        // line for every diagnostic on it, so only the place is printed.
        None => {
            group = group
                .element(
                    Origin::path(path)
                        .line(start.line)
                        .char_column(start.column),
                )
                .element(Level::NOTE.message("the line is too long to quote"));
        }
    }
    for note in &diagnostic.notes {
        group = group.element(Level::NOTE.message(note.as_str()));
    }
    if let Some(help) = &diagnostic.help {
        group = group.element(Level::HELP.message(help.as_str()));
    }
    renderer.render(&[group])
}

/// The part of `text` worth quoting for `range`: from the start of its line through at most
/// [`MAX_EXCERPT_LINES`] lines and [`MAX_EXCERPT_BYTES`] bytes, with `range` moved into it;
/// `None` when the span starts more than [`MAX_LEAD_BYTES`] into its line.
fn excerpt(text: &str, range: Range<usize>) -> Option<(&str, Range<usize>)> {
    let begin = text[..range.start].rfind('\n').map_or(0, |at| at + 1);
    if range.start - begin > MAX_LEAD_BYTES {
        return None;
    }
    let line_begin = begin;
    let mut end = text[range.end..]
        .find('\n')
        .map_or(text.len(), |at| range.end + at);
    if let Some((at, _)) = text[line_begin..]
        .match_indices('\n')
        .nth(MAX_EXCERPT_LINES - 1)
    {
        end = end.min(line_begin + at);
    }
    end = end.min(begin + MAX_EXCERPT_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let excerpt = &text[begin..end];
    let start = range.start - begin;
    Some((excerpt, start..range.end.min(end).max(range.start) - begin))
}

/// The span's bytes, clamped to the text and to character boundaries; an empty span widens to
/// the character it sits on so the caret has something to point at.
fn byte_range(text: &str, diagnostic: &Diagnostic) -> Range<usize> {
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
    for note in &d.notes {
        out.push_str("\n  = note: ");
        out.push_str(note);
    }
    if let Some(help) = &d.help {
        out.push_str("\n  = help: ");
        out.push_str(help);
    }
    out
}

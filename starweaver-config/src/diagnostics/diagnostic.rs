//! One problem found in a manifest.

use std::fmt;

use super::{Rule, Severity};
use crate::yaml::Span;

/// One problem: where it is, how serious, which rule found it, what is wrong and how to fix it.
///
/// Problems that follow from one mistake are one diagnostic: the root cause, with what else it
/// causes in [`Self::notes`], so the first error is not buried under its consequences.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The source range the problem is about (a key, a value, or a whole mapping).
    pub span: Span,
    /// Whether it stops the manifest from loading.
    pub severity: Severity,
    /// The check that found it.
    pub rule: Rule,
    /// What is wrong, in one sentence naming the field or value.
    pub message: String,
    /// How to fix it, when there is something concrete to suggest.
    pub help: Option<String>,
    /// What else the problem causes, or where else it shows: the follow-on problems folded into
    /// this one instead of being reported apart. Empty for most problems.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error-level diagnostic without help, the common case for checks.
    #[must_use]
    pub fn error(rule: Rule, span: Span, message: impl Into<String>) -> Self {
        Self {
            span,
            severity: Severity::Error,
            rule,
            message: message.into(),
            help: None,
            notes: Vec::new(),
        }
    }

    /// A warning-level diagnostic without help, for things that load but look wrong.
    #[must_use]
    pub fn warning(rule: Rule, span: Span, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            ..Self::error(rule, span, message)
        }
    }

    /// Adds a suggestion for fixing the problem.
    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Adds a note: a consequence of the problem, or another place it shows.
    #[must_use]
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// The message, then each note and the help on lines of their own (`note: ...`,
    /// `help: ...`): the text formats without room for them (GitHub annotations, SARIF) print.
    #[must_use]
    pub fn full_text(&self) -> String {
        let mut text = self.message.clone();
        for note in &self.notes {
            text.push_str("\nnote: ");
            text.push_str(note);
        }
        if let Some(help) = &self.help {
            text.push_str("\nhelp: ");
            text.push_str(help);
        }
        text
    }
}

impl fmt::Display for Diagnostic {
    /// `4:3: error[unknown-field]: message`, followed by each `note: ...` and the
    /// `help: ...` on lines of their own.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let start = self.span.start;
        write!(
            f,
            "{}:{}: {}[{}]: {}",
            start.line, start.column, self.severity, self.rule, self.message
        )?;
        for note in &self.notes {
            write!(f, "\n  note: {note}")?;
        }
        if let Some(help) = &self.help {
            write!(f, "\n  help: {help}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::Position;

    #[test]
    fn display_shows_place_rule_and_help() {
        let span = Span::point(Position::new(4, 3, 20));
        let diagnostic = Diagnostic::error(Rule::UnknownField, span, "unknown field `nme`")
            .with_help("did you mean `name`?");
        assert_eq!(
            diagnostic.to_string(),
            "4:3: error[unknown-field]: unknown field `nme`\n  help: did you mean `name`?"
        );
        let warning = Diagnostic::warning(Rule::ShellPolicy, span, "any program may run");
        assert_eq!(warning.severity, Severity::Warning);
        assert!(warning.help.is_none());
    }
}

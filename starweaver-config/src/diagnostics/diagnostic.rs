//! One problem found in a manifest.

use std::fmt;

use super::{Rule, Severity};
use crate::yaml::Span;

/// One problem: where it is, how serious, which rule found it, what is wrong and how to fix it.
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
}

impl fmt::Display for Diagnostic {
    /// `4:3: error[unknown-field]: message`, followed by `help: ...` on its own line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let start = self.span.start;
        write!(
            f,
            "{}:{}: {}[{}]: {}",
            start.line, start.column, self.severity, self.rule, self.message
        )?;
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

//! A file the YAML reader refuses becomes one `syntax` diagnostic.

use crate::diagnostics::{Diagnostic, Rule};
use crate::yaml::{Span, YamlError};

/// The diagnostic for a reading failure, at the place the reader stopped.
pub(super) fn diagnostic(error: &YamlError) -> Diagnostic {
    Diagnostic::error(
        Rule::Syntax,
        Span::point(error.position()),
        error.to_string(),
    )
}

//! A file the YAML reader refuses becomes one `syntax` diagnostic.

use crate::check::MAX_MANIFEST_BYTES_FLAG;
use crate::diagnostics::{Diagnostic, Rule};
use crate::yaml::{Span, YamlError};

/// The diagnostic for a reading failure, at the place the reader stopped, with the fix for the
/// failures whose message alone does not say how to get past them.
pub(super) fn diagnostic(error: &YamlError) -> Diagnostic {
    let found = Diagnostic::error(
        Rule::Syntax,
        Span::point(error.position()),
        error.to_string(),
    );
    match error {
        YamlError::DocumentTooLarge { size, .. } => found.with_help(format!(
            "to read it anyway, raise the limit with `{MAX_MANIFEST_BYTES_FLAG} {size}` \
             (`starweaver check`, `run` and `tools` take it), or `CheckContext::with_budgets` \
             in code"
        )),
        YamlError::Tab { .. } => found.with_help("replace the tab with spaces"),
        _ => found,
    }
}

/// The diagnostic for a file of `size` bytes over the `limit`, of which `head` is the start that
/// was read: the size is the file's own (from its metadata), not the length of what was read.
/// For a host that reads files by size first, as the command line does (the library checks
/// the bytes it is given), so an oversized file gets the same diagnostic as oversized bytes.
#[must_use]
pub fn too_large(head: &[u8], size: u64, limit: usize) -> Diagnostic {
    diagnostic(&YamlError::DocumentTooLarge {
        size: usize::try_from(size).unwrap_or(usize::MAX),
        limit,
        at: crate::yaml::Position::of_offset(head, limit),
    })
}

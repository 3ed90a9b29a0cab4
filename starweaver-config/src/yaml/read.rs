//! The entry points: bytes in, a checked tree or one positioned error out.

use super::build::build;
use super::{Budgets, Document, Position, YamlError};

/// Parses a file's bytes into a [`Document`] under the default [`Budgets`].
///
/// # Errors
/// Returns a [`YamlError`] with the position of the problem when the bytes are too large, not
/// UTF-8, not valid YAML, over a budget, hold more than one document, repeat a mapping key, or
/// use an alias or an unsupported tag.
pub fn parse(bytes: &[u8]) -> Result<Document, YamlError> {
    parse_with(bytes, &Budgets::default())
}

/// Parses a file's bytes into a [`Document`] under the given [`Budgets`].
///
/// The size budget is checked before anything else, then UTF-8, then the document is parsed
/// with the depth, node and scalar budgets enforced as it is built.
///
/// # Errors
/// As [`parse`].
pub fn parse_with(bytes: &[u8], budgets: &Budgets) -> Result<Document, YamlError> {
    if bytes.len() > budgets.max_document_bytes {
        return Err(YamlError::DocumentTooLarge {
            size: bytes.len(),
            limit: budgets.max_document_bytes,
            at: Position::of_offset(bytes, budgets.max_document_bytes),
        });
    }
    let text = std::str::from_utf8(bytes).map_err(|error| YamlError::InvalidUtf8 {
        at: Position::of_offset(bytes, error.valid_up_to()),
    })?;
    build(text, budgets)
}

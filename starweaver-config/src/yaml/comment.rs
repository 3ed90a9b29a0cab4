//! Comments kept beside the tree, so a later pass can honour directives written as comments
//! (for example an allow marker on the line before a node).

use super::Span;

/// One `#` comment and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    /// The text after `#`, without the line break (leading spaces kept).
    pub text: String,
    /// From the `#` to the end of the line.
    pub span: Span,
    /// Whether the comment is alone on its line (only blanks before the `#`), as opposed to
    /// trailing content such as `key: value # note`.
    pub own_line: bool,
}

impl Comment {
    /// The 1-based line the comment is on.
    #[must_use]
    pub const fn line(&self) -> usize {
        self.span.start.line
    }
}

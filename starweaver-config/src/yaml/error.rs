//! Why reading a YAML document failed, always with the place it failed at.

use super::Position;

/// A document the reader refuses: malformed YAML, an input budget overrun, or a construct that
/// manifests do not use. Each message says what went wrong, where, and how to fix it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum YamlError {
    /// The file is larger than [`Budgets::max_document_bytes`](super::Budgets), checked before
    /// parsing so a huge file costs nothing.
    #[error(
        "the file is {size} bytes, over the {limit}-byte limit for one manifest; manifests \
         are small: split the file, or raise the limit"
    )]
    DocumentTooLarge {
        /// Size of the file in bytes (the whole file's, when the caller knows it).
        size: usize,
        /// The limit it exceeds.
        limit: usize,
        /// Where the limit is crossed.
        at: Position,
    },
    /// A tab where YAML takes only spaces: in indentation, or in a plain value at a line break.
    #[error("a tab at {at}: YAML indents with spaces, never tabs (the parser says: {context})")]
    Tab {
        /// What the parser was reading when it met the tab.
        context: String,
        /// Where the tab is.
        at: Position,
    },
    /// The file is not UTF-8, the only encoding manifests use.
    #[error(
        "invalid UTF-8 at {at} (byte offset {}): save the file as UTF-8",
        at.offset
    )]
    InvalidUtf8 {
        /// The first byte that is not valid UTF-8.
        at: Position,
    },
    /// The YAML parser rejected the text.
    #[error("YAML syntax error at {at}: {message}")]
    Syntax {
        /// The parser's description of the problem.
        message: String,
        /// Where the parser stopped.
        at: Position,
    },
    /// Collections nest deeper than [`Budgets::max_depth`](super::Budgets).
    #[error(
        "collections nest deeper than {limit} levels at {at}; \
         flatten the structure or raise the nesting depth budget"
    )]
    TooDeep {
        /// The depth limit.
        limit: usize,
        /// The collection that went one level too deep.
        at: Position,
    },
    /// The document holds more nodes than [`Budgets::max_nodes`](super::Budgets).
    #[error(
        "the document holds more than {limit} nodes (the limit was reached at {at}); \
         split the file or raise the node budget"
    )]
    TooManyNodes {
        /// The node limit.
        limit: usize,
        /// The first node over the limit.
        at: Position,
    },
    /// One scalar is longer than [`Budgets::max_scalar_bytes`](super::Budgets).
    #[error(
        "the value at {at} is {length} bytes, over the {limit}-byte limit for one value; \
         move the text to a separate file or raise the scalar length budget"
    )]
    ScalarTooLong {
        /// Length of the scalar's text in bytes.
        length: usize,
        /// The limit it exceeds.
        limit: usize,
        /// Where the scalar starts.
        at: Position,
    },
    /// An alias (`*name`); manifests do not use anchors and aliases.
    #[error(
        "alias `{alias}` at {at}: manifests do not use YAML aliases; \
         write the value out in full instead of referring to an anchor"
    )]
    AliasUnsupported {
        /// The alias as written, e.g. `*defaults`.
        alias: String,
        /// Where the alias is.
        at: Position,
    },
    /// The same key appears twice in one mapping.
    #[error(
        "duplicate key `{key}` at {second}: it is already set at {first}; \
         remove one of them"
    )]
    DuplicateKey {
        /// The repeated key, as text.
        key: String,
        /// Where the key first appears.
        first: Position,
        /// Where it appears again.
        second: Position,
    },
    /// A second YAML document (after `---`) in a file that holds one manifest.
    #[error(
        "a second YAML document starts at {at}; a manifest file holds exactly one document: \
         remove the `---` separator or move the second document to its own file"
    )]
    MultipleDocuments {
        /// Where the second document starts.
        at: Position,
    },
    /// A plain integer too large for a 64-bit signed integer.
    #[error(
        "integer `{text}` at {at} does not fit in 64 bits; \
         use a smaller number, or quote it to make it a string"
    )]
    IntegerOutOfRange {
        /// The integer as written.
        text: String,
        /// Where it is.
        at: Position,
    },
    /// A tag other than the YAML core ones (`!!str`, `!!int`, ...), or one on the wrong kind of
    /// node.
    #[error(
        "tag `{tag}` at {at} is not supported here; manifests only use the YAML core tags \
         (`!!str`, `!!int`, `!!float`, `!!bool`, `!!null`, `!!seq`, `!!map`) on matching values: \
         remove the tag"
    )]
    UnsupportedTag {
        /// The tag as written.
        tag: String,
        /// Where the tagged node is.
        at: Position,
    },
    /// A core tag whose value does not have that type, such as `!!int abc`.
    #[error(
        "`{text}` at {at} is tagged `{tag}` but is not a valid {expected}; \
         fix the value or remove the tag"
    )]
    TagMismatch {
        /// The tag as written.
        tag: String,
        /// The scalar's text.
        text: String,
        /// The type the tag asks for.
        expected: &'static str,
        /// Where the scalar is.
        at: Position,
    },
}

impl YamlError {
    /// Where the problem is, so callers can sort or render diagnostics without matching on
    /// every variant. For a duplicate key this is the second occurrence.
    #[must_use]
    pub fn position(&self) -> Position {
        match self {
            Self::DocumentTooLarge { at, .. }
            | Self::InvalidUtf8 { at }
            | Self::Tab { at, .. }
            | Self::Syntax { at, .. }
            | Self::TooDeep { at, .. }
            | Self::TooManyNodes { at, .. }
            | Self::ScalarTooLong { at, .. }
            | Self::AliasUnsupported { at, .. }
            | Self::MultipleDocuments { at }
            | Self::IntegerOutOfRange { at, .. }
            | Self::UnsupportedTag { at, .. }
            | Self::TagMismatch { at, .. } => *at,
            Self::DuplicateKey { second, .. } => *second,
        }
    }
}

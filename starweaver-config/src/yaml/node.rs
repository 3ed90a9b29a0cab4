//! The position-keeping tree: what a later validation pass walks.

use super::{Comment, Span};

/// How a scalar was written. Kept because YAML gives a plain `yes` and a quoted `"yes"` the same
/// text but a checker may want to say "quote this" only when it was not quoted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarStyle {
    /// Unquoted text, resolved by the YAML 1.2 core schema (`1` is an int, `yes` a string).
    Plain,
    /// `'single quoted'`: always a string.
    SingleQuoted,
    /// `"double quoted"`: always a string, with escapes processed.
    DoubleQuoted,
    /// `|` literal block: always a string, line breaks kept.
    Literal,
    /// `>` folded block: always a string, line breaks folded.
    Folded,
}

impl ScalarStyle {
    /// Whether the scalar was unquoted (and so subject to type resolution).
    #[must_use]
    pub const fn is_plain(self) -> bool {
        matches!(self, Self::Plain)
    }
}

/// What a node holds. Plain scalars are typed by the YAML 1.2 core schema: `null`, `~` and an
/// empty value are null; only `true`/`false` (any of three casings) are booleans; so `yes`,
/// `no`, `on` and `off` stay strings.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `null`, `~`, or nothing at all.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A decimal, `0o` octal or `0x` hexadecimal integer that fits in 64 bits.
    Int(i64),
    /// A decimal or exponent float, `.inf`, `-.inf` or `.nan`.
    Float(f64),
    /// Any other scalar, with the style it was written in.
    String {
        /// The scalar's text after escape processing.
        text: String,
        /// How it was written.
        style: ScalarStyle,
    },
    /// A sequence, items in source order.
    Sequence(Vec<Node>),
    /// A mapping, entries in source order; each key is a node with its own span.
    Mapping(Vec<(Node, Node)>),
}

impl Value {
    /// A short name of the value's type for diagnostics ("expected a mapping, found a string").
    #[must_use]
    pub const fn kind(&self) -> &'static str {
        match self {
            Self::Null => "null",
            Self::Bool(_) => "boolean",
            Self::Int(_) => "integer",
            Self::Float(_) => "float",
            Self::String { .. } => "string",
            Self::Sequence(_) => "sequence",
            Self::Mapping(_) => "mapping",
        }
    }
}

/// One YAML node and the source range it covers.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Where the node is: a scalar's text, or a collection from its first to its last character.
    pub span: Span,
    /// What the node holds.
    pub value: Value,
}

impl Node {
    /// Builds a node; mostly for tests and synthesized defaults.
    #[must_use]
    pub const fn new(span: Span, value: Value) -> Self {
        Self { span, value }
    }

    /// The text of a string node, so passes can match keys and names without a `match`.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The entries of a mapping node.
    #[must_use]
    pub fn as_mapping(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            Value::Mapping(entries) => Some(entries),
            _ => None,
        }
    }

    /// The items of a sequence node.
    #[must_use]
    pub fn as_sequence(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Sequence(items) => Some(items),
            _ => None,
        }
    }

    /// The key and value of the entry whose key is the string `key`, in a mapping node.
    #[must_use]
    pub fn entry(&self, key: &str) -> Option<(&Node, &Node)> {
        self.as_mapping()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(k, v)| (k, v))
    }

    /// The value under string key `key`, in a mapping node.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, value)| value)
    }
}

/// A parsed file: its single root node and its comments.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// The root node; a null node at the start of the file when the file holds no content.
    pub root: Node,
    /// Every comment, in source order.
    pub comments: Vec<Comment>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::Position;

    fn string(text: &str) -> Node {
        Node::new(
            Span::point(Position::START),
            Value::String {
                text: text.into(),
                style: ScalarStyle::Plain,
            },
        )
    }

    #[test]
    fn accessors_find_entries_and_reject_other_kinds() {
        let map = Node::new(
            Span::point(Position::START),
            Value::Mapping(vec![(string("a"), string("1")), (string("b"), string("2"))]),
        );
        assert_eq!(map.get("b").and_then(Node::as_str), Some("2"));
        assert!(map.get("c").is_none());
        assert!(map.as_sequence().is_none());
        assert!(string("x").as_mapping().is_none());
        assert_eq!(map.value.kind(), "mapping");
        assert!(ScalarStyle::Plain.is_plain());
        assert!(!ScalarStyle::DoubleQuoted.is_plain());
    }
}

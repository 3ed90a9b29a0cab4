//! A position-keeping YAML reader for manifests.
//!
//! A manifest checker must report every problem in a file, each with its line and column.
//! Deserializing straight into typed structs cannot do that: serde stops at the first error,
//! and span-carrying wrappers do not survive internally tagged enums. So manifests are read in
//! two steps: this module turns a file's bytes into a tree of [`Node`]s, each carrying the
//! [`Span`] it came from, and later validation passes walk that tree and collect as many
//! diagnostics as they find.
//!
//! Reading is bounded because every manifest is untrusted input ([`Budgets`]): the file size is
//! checked before parsing; nesting depth, total node count and scalar length while building.
//! The tree is built from the parser's event stream with an explicit stack, so no input can
//! overflow the call stack. Aliases (`*name`) are refused: manifests have no use for them, and
//! refusing them rules out alias-expansion bombs. Anchors (`&name`) are accepted and ignored.
//!
//! Plain scalars are typed by the YAML 1.2 core schema, so `yes`, `no`, `on` and `off` are
//! strings, `1` is an integer and `"1"` a string. `<<` is an ordinary key (YAML 1.2 has no merge
//! keys). A file holds exactly one document, and a mapping key may appear only once.
//! Comments are kept in source order beside the tree ([`Document::comments`]).
//!
//! ```
//! use starweaver_config::yaml::{parse, Value};
//!
//! let document = parse(b"name: scout\nenabled: yes\n").unwrap();
//! let enabled = document.root.get("enabled").unwrap();
//! assert_eq!(enabled.as_str(), Some("yes"));
//! assert_eq!((enabled.span.start.line, enabled.span.start.column), (2, 10));
//! assert!(matches!(document.root.value, Value::Mapping(_)));
//! ```

mod budgets;
mod build;
mod comment;
mod error;
mod node;
mod read;
mod scalar;
mod span;

pub use budgets::Budgets;
pub use comment::Comment;
pub use error::YamlError;
pub use node::{Document, Node, ScalarStyle, Value};
pub use read::{parse, parse_with};
pub use span::{Position, Span};

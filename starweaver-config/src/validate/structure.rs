//! The structure pass: the whole tree against the manifest's schema.

use super::schema;
use super::walk::Walker;
use crate::diagnostics::Diagnostic;
use crate::yaml::{Document, Node, Value};

/// Every structural problem in `document`: unknown and missing fields, values of the wrong type
/// or outside their allowed set, toolset entries of an unknown `type`, and an unsupported
/// `version`. Sorted by position (ties keep walk order); empty for a well-formed manifest.
///
/// An empty file is reported as a mapping missing its required fields.
#[must_use]
pub fn structure(document: &Document) -> Vec<Diagnostic> {
    let mut walker = Walker::default();
    let root = &document.root;
    if matches!(root.value, Value::Null) {
        walker.node(
            &Node::new(root.span, Value::Mapping(Vec::new())),
            schema::manifest(),
        );
    } else {
        walker.node(root, schema::manifest());
    }
    let mut diagnostics = walker.diagnostics;
    diagnostics.sort_by_key(|diagnostic| diagnostic.span.start);
    diagnostics
}

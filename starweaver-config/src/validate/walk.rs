//! The schema-driven walk: one pass over the tree, each node checked against the part of the
//! schema that describes it, every problem collected.
//!
//! The walk only descends where the schema describes structure (properties, items), so its depth
//! is bounded by the schema's, never by the input's.

use serde_json::Value as Json;

use super::path::FieldPath;
use super::variants::{self, Pick};
use super::{hint, kinds};
use crate::diagnostics::{Diagnostic, Rule};
use crate::yaml::{Node, Value};

/// The walk's state: where it is and what it found so far.
#[derive(Default)]
pub(super) struct Walker {
    /// Where the node being checked sits.
    pub(super) path: FieldPath,
    /// Every problem found so far, in walk order.
    pub(super) diagnostics: Vec<Diagnostic>,
}

impl Walker {
    /// Records a problem.
    pub(super) fn report(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// Checks `node` against `schema`.
    pub(super) fn node(&mut self, node: &Node, schema: &Json) {
        if let Some(options) = alternatives(schema) {
            self.alternatives(node, options);
            return;
        }
        if self.choice(node, schema) {
            return;
        }
        if !kinds::admits(schema, &node.value) {
            self.wrong_kind(node, kinds::expected(schema).unwrap_or_default(), schema);
            return;
        }
        match &node.value {
            Value::Int(number) => self.integer(node, *number, schema),
            Value::Mapping(entries) => self.mapping(node, entries, schema),
            Value::Sequence(items) => self.sequence(items, schema),
            _ => {}
        }
    }

    /// `oneOf`/`anyOf`: a tagged union picks its variant by `type`, a list of constants is a
    /// choice, anything else takes the first branch whose type fits the node.
    fn alternatives(&mut self, node: &Node, options: &[Json]) {
        if variants::is_tagged(options) {
            match variants::pick(node, options, &self.path) {
                Pick::NotMapping { expected, shown } => self.wrong_kind(node, expected, &shown),
                Pick::Refused(diagnostic) => self.report(diagnostic),
                Pick::Chosen(option) => self.node(node, option),
            }
        } else if options.iter().all(|option| option.get("const").is_some()) {
            let allowed: Vec<&Json> = options.iter().filter_map(|o| o.get("const")).collect();
            self.one_of_values(node, &allowed);
        } else if let Some(branch) = options
            .iter()
            .find(|option| kinds::admits(option, &node.value))
        {
            self.node(node, branch);
        } else {
            let mut names: Vec<String> = options.iter().filter_map(kinds::expected).collect();
            names.dedup();
            // The hint shows the first form that is not `null`.
            let shown = options
                .iter()
                .find(|option| option.get("type").and_then(Json::as_str) != Some("null"))
                .unwrap_or(&Json::Null);
            self.wrong_kind(node, names.join(" or "), shown);
        }
    }

    /// Reports a value of the wrong kind, with the fix `schema` (what the place takes) suggests.
    pub(super) fn wrong_kind(&mut self, node: &Node, expected: String, schema: &Json) {
        let found = kinds::found(&node.value);
        let place = self.path.place();
        let message = if self.path.is_root() {
            format!("the document must be a mapping of the manifest's fields, found {found}")
        } else {
            format!("`{}` must be {expected}, found {found}", self.path)
        };
        let help = hint::wrong_kind(place, schema, &node.value);
        self.report(Diagnostic::error(Rule::InvalidValue, node.span, message).with_help(help));
    }

    /// Checks each item of a sequence against `items`.
    fn sequence(&mut self, items: &[Node], schema: &Json) {
        let Some(item_schema) = schema.get("items") else {
            return;
        };
        for (index, item) in items.iter().enumerate() {
            self.path.push_index(index);
            self.node(item, item_schema);
            self.path.pop();
        }
    }
}

/// The branches of a `oneOf` or `anyOf`.
fn alternatives(schema: &Json) -> Option<&[Json]> {
    schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Json::as_array)
        .map(Vec::as_slice)
}

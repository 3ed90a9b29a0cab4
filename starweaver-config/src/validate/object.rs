//! Mappings: required keys present, no keys the schema lacks, each value checked against its
//! property.

use serde_json::{Map, Value as Json};

use super::walk::Walker;
use super::{hint, kinds, suggest, version};
use crate::diagnostics::{Diagnostic, Rule};
use crate::yaml::Node;

impl Walker {
    /// Checks a mapping node against an object schema.
    pub(super) fn mapping(&mut self, node: &Node, entries: &[(Node, Node)], schema: &Json) {
        let empty = Map::new();
        let properties = schema
            .get("properties")
            .and_then(Json::as_object)
            .unwrap_or(&empty);
        self.required(node, entries, schema, properties);
        let additional = schema.get("additionalProperties");
        let closed = additional == Some(&Json::Bool(false));
        let extra = additional.filter(|value| value.is_object());
        for (key, value) in entries {
            let Some(name) = key.as_str() else {
                if closed {
                    self.unknown(key, &kinds::found(&key.value), properties);
                }
                continue;
            };
            if self.path.is_root() && version::unsupported(self, name, value) {
                continue;
            }
            let property = properties.get(name).or(extra);
            match property {
                Some(property) => {
                    self.path.push_key(name);
                    self.node(value, property);
                    self.path.pop();
                }
                None if closed => {
                    self.unknown(key, &format!("`{}`", kinds::short(name)), properties);
                }
                None => {}
            }
        }
    }

    /// Reports each required key the mapping lacks, on the mapping.
    fn required(
        &mut self,
        node: &Node,
        entries: &[(Node, Node)],
        schema: &Json,
        properties: &Map<String, Json>,
    ) {
        let required = schema
            .get("required")
            .and_then(Json::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let names: Vec<&str> = properties.keys().map(String::as_str).collect();
        // A misspelled required key is one mistake: the unknown-field report on the key (which
        // suggests the right name) covers it, so it is not reported missing as well.
        let closed = schema.get("additionalProperties") == Some(&Json::Bool(false));
        let misspelled: Vec<&str> = entries
            .iter()
            .filter(|_| closed)
            .filter_map(|(key, _)| key.as_str())
            .filter(|key| !properties.contains_key(*key))
            .filter_map(|key| suggest::closest(key, &names))
            .collect();
        for name in required.iter().filter_map(Json::as_str) {
            if entries.iter().any(|(key, _)| key.as_str() == Some(name))
                || misspelled.contains(&name)
            {
                continue;
            }
            let mut diagnostic = Diagnostic::error(
                Rule::MissingField,
                node.span,
                format!("missing required field `{name}` {}", self.path.location()),
            );
            diagnostic = diagnostic.with_help(hint::missing(name, properties.get(name)));
            self.report(diagnostic);
        }
    }

    /// Reports a key the schema does not have, suggesting the closest one.
    fn unknown(&mut self, key: &Node, shown: &str, properties: &Map<String, Json>) {
        let names: Vec<&str> = properties.keys().map(String::as_str).collect();
        let help = suggest::help(key.as_str().unwrap_or_default(), &names, "fields");
        self.report(
            Diagnostic::error(
                Rule::UnknownField,
                key.span,
                format!("unknown field {shown} {}", self.path.location()),
            )
            .with_help(help),
        );
    }
}

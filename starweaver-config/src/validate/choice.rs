//! Values restricted to a fixed set: `const`, `enum`, and `oneOf` lists of constants (how
//! unit-variant enums such as `tool_execution` appear in the schema).

use serde_json::Value as Json;

use super::walk::Walker;
use super::{hint, kinds, suggest};
use crate::diagnostics::{Diagnostic, Rule};
use crate::yaml::{Node, Value};

impl Walker {
    /// Checks `const` and `enum`; returns whether the schema was such a restriction (and so
    /// nothing more needs checking).
    pub(super) fn choice(&mut self, node: &Node, schema: &Json) -> bool {
        if let Some(value) = schema.get("const") {
            self.one_of_values(node, &[value]);
            true
        } else if let Some(values) = schema.get("enum").and_then(Json::as_array) {
            let allowed: Vec<&Json> = values.iter().collect();
            self.one_of_values(node, &allowed);
            true
        } else {
            false
        }
    }

    /// Reports `node` unless it equals one of `allowed`.
    pub(super) fn one_of_values(&mut self, node: &Node, allowed: &[&Json]) {
        if allowed.iter().any(|value| equals(node, value)) {
            return;
        }
        let names: Vec<String> = allowed.iter().map(|value| display(value)).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut diagnostic = Diagnostic::error(
            Rule::InvalidValue,
            node.span,
            format!(
                "`{}` must be one of {}, found {}",
                self.path,
                suggest::list(&names),
                kinds::found(&node.value)
            ),
        );
        let help = match node
            .as_str()
            .and_then(|text| suggest::closest(text, &names))
        {
            Some(close) => format!("did you mean `{close}`?"),
            None => hint::not_allowed(self.path.place(), &names),
        };
        diagnostic = diagnostic.with_help(help);
        self.report(diagnostic);
    }
}

/// Whether a scalar node equals a JSON constant.
fn equals(node: &Node, value: &Json) -> bool {
    match (&node.value, value) {
        (Value::Null, Json::Null) => true,
        (Value::Bool(a), Json::Bool(b)) => a == b,
        (Value::Int(a), Json::Number(b)) => b.as_i64() == Some(*a),
        (Value::String { text, .. }, Json::String(b)) => text == b,
        _ => false,
    }
}

/// A constant as written in YAML (`parallel`, `1`, `true`).
fn display(value: &Json) -> String {
    match value {
        Json::String(text) => text.clone(),
        other => other.to_string(),
    }
}

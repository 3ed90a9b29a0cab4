//! The YAML node tree as JSON, following each node's type exactly, so the manifest types see
//! the same values the checker judged (a quoted `"42"` stays a string, a plain `42` an integer).

use serde_json::{Map, Number, Value as Json};

use crate::diagnostics::{Diagnostic, Rule};
use crate::yaml::{Node, Value};

/// Converts a node and everything under it.
///
/// # Errors
/// An `invalid-value` diagnostic for what JSON cannot hold: a non-finite float (`.inf`, `.nan`)
/// or a mapping key that is not a string.
pub fn to_json(node: &Node) -> Result<Json, Diagnostic> {
    Ok(match &node.value {
        Value::Null => Json::Null,
        Value::Bool(flag) => Json::Bool(*flag),
        Value::Int(int) => Json::Number(Number::from(*int)),
        Value::Float(float) => Json::Number(Number::from_f64(*float).ok_or_else(|| {
            Diagnostic::error(
                Rule::InvalidValue,
                node.span,
                format!("`{float}` is not a finite number"),
            )
            .with_help("write a finite number, or quote the value to make it a string")
        })?),
        Value::String { text, .. } => Json::String(text.clone()),
        Value::Sequence(items) => Json::Array(items.iter().map(to_json).collect::<Result<_, _>>()?),
        Value::Mapping(entries) => {
            let mut map = Map::with_capacity(entries.len());
            for (key, value) in entries {
                let Some(name) = key.as_str() else {
                    return Err(Diagnostic::error(
                        Rule::InvalidValue,
                        key.span,
                        format!(
                            "a mapping key must be a string, found a {}",
                            key.value.kind()
                        ),
                    )
                    .with_help("quote the key"));
                };
                map.insert(name.to_string(), to_json(value)?);
            }
            Json::Object(map)
        }
    })
}

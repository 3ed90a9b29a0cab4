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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::yaml::parse;

    fn convert(text: &str) -> Result<Json, Diagnostic> {
        to_json(&parse(text.as_bytes()).unwrap().root)
    }

    #[test]
    fn values_keep_the_type_they_were_written_with() {
        let json = convert("a: 42\nb: '42'\nc: yes\nd: true\ne: ~\nf: [1.5]\n").unwrap();
        assert_eq!(
            json,
            serde_json::json!({"a": 42, "b": "42", "c": "yes", "d": true, "e": null, "f": [1.5]})
        );
    }

    #[test]
    fn what_json_cannot_hold_is_an_invalid_value() {
        for text in ["a: .inf\n", "? [1]\n: x\n", "1: x\n"] {
            let found = convert(text).unwrap_err();
            assert_eq!(found.rule, Rule::InvalidValue, "{text}");
        }
    }
}

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
// One diagnostic, once per manifest read: its size costs nothing worth a box in the API.
#[allow(clippy::result_large_err)]
pub fn to_json(node: &Node) -> Result<Json, Diagnostic> {
    Ok(match &node.value {
        Value::Null => Json::Null,
        Value::Bool(flag) => Json::Bool(*flag),
        Value::Int(int) => Json::Number(Number::from(*int)),
        Value::Float(float) => {
            Json::Number(Number::from_f64(*float).ok_or_else(|| not_finite(node, *float))?)
        }
        Value::String { text, .. } => Json::String(text.clone()),
        Value::Sequence(items) => Json::Array(items.iter().map(to_json).collect::<Result<_, _>>()?),
        Value::Mapping(entries) => {
            let mut map = Map::with_capacity(entries.len());
            for (key, value) in entries {
                let Some(name) = key.as_str() else {
                    return Err(not_a_string_key(key));
                };
                map.insert(name.to_string(), to_json(value)?);
            }
            Json::Object(map)
        }
    })
}

/// Everything under `node` that [`to_json`] would refuse, not only the first: the checker
/// reports these for the free-form values (`vars`, `model.settings`) the schema does not type.
pub(crate) fn json_problems(node: &Node) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        match &node.value {
            Value::Float(float) if !float.is_finite() => found.push(not_finite(node, *float)),
            Value::Sequence(items) => stack.extend(items.iter().rev()),
            Value::Mapping(entries) => {
                for (key, value) in entries.iter().rev() {
                    stack.push(value);
                    if key.as_str().is_none() {
                        found.push(not_a_string_key(key));
                    }
                }
            }
            _ => {}
        }
    }
    found
}

fn not_finite(node: &Node, float: f64) -> Diagnostic {
    Diagnostic::error(
        Rule::InvalidValue,
        node.span,
        format!("`{float}` is not a finite number"),
    )
    .with_help("write a finite number, or quote the value to make it a string")
}

fn not_a_string_key(key: &Node) -> Diagnostic {
    Diagnostic::error(
        Rule::InvalidValue,
        key.span,
        format!(
            "a mapping key must be a string, found {}",
            with_article(key.value.kind())
        ),
    )
    .with_help("quote the key")
}

/// `an integer`, `a sequence`.
fn with_article(kind: &str) -> String {
    let vowel = kind.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {kind}", if vowel { "an" } else { "a" })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::yaml::parse;

    #[allow(clippy::result_large_err)]
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

    #[test]
    fn every_value_json_cannot_hold_is_found() {
        let root = parse(
            b"a: [.inf, {1: x}]
b: {c: .nan, ? [d]\n: e}
",
        )
        .unwrap()
        .root;
        let found = json_problems(&root);
        let lines: Vec<(usize, usize)> = found
            .iter()
            .map(|d| (d.span.start.line, d.span.start.column))
            .collect();
        assert_eq!(found.len(), 4, "{found:?}");
        assert_eq!(lines[0], (1, 5));
    }
}

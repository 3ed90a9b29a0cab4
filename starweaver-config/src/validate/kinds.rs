//! Matching YAML node kinds against JSON Schema `type`s, and naming both in messages.

use serde_json::Value as Json;

use crate::yaml::Value;

/// The schema's `type` names (`"string"`, `["integer", "null"]`); empty when it has none.
fn types(schema: &Json) -> Vec<&str> {
    match schema.get("type") {
        Some(Json::String(name)) => vec![name.as_str()],
        Some(Json::Array(names)) => names.iter().filter_map(Json::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether a JSON Schema type name covers a YAML value.
fn covers(name: &str, value: &Value) -> bool {
    matches!(
        (name, value),
        ("null", Value::Null)
            | ("boolean", Value::Bool(_))
            | ("integer" | "number", Value::Int(_))
            | ("number", Value::Float(_))
            | ("string", Value::String { .. })
            | ("array", Value::Sequence(_))
            | ("object", Value::Mapping(_))
    )
}

/// Whether `schema`'s `type` (if any) accepts `value`'s kind.
pub(super) fn admits(schema: &Json, value: &Value) -> bool {
    let names = types(schema);
    names.is_empty() || names.iter().any(|name| covers(name, value))
}

/// What `schema` expects, as a phrase ("a string or null"); `None` when it names no type.
pub(super) fn expected(schema: &Json) -> Option<String> {
    let names = types(schema);
    (!names.is_empty()).then(|| phrase(&names))
}

/// Joins schema type names into "a mapping or a sequence".
pub(super) fn phrase(names: &[&str]) -> String {
    let mut words: Vec<&str> = names.iter().map(|name| described(name)).collect();
    words.dedup();
    words.join(" or ")
}

/// One schema type name in the words messages use (YAML's "mapping", not JSON's "object").
fn described(name: &str) -> &'static str {
    match name {
        "null" => "null",
        "boolean" => "a boolean",
        "integer" => "an integer",
        "number" => "a number",
        "string" => "a string",
        "array" => "a sequence",
        "object" => "a mapping",
        _ => "a value",
    }
}

/// What was found, as a phrase ("an integer", "the string `yes`").
pub(super) fn found(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(flag) => format!("the boolean `{flag}`"),
        Value::Int(number) => format!("the integer `{number}`"),
        Value::Float(number) => format!("the float `{number}`"),
        Value::String { text, .. } => format!("the string `{}`", short(text)),
        Value::Sequence(_) => "a sequence".to_owned(),
        Value::Mapping(_) => "a mapping".to_owned(),
    }
}

/// A scalar's text cut to a length that fits in a message.
pub(super) fn short(text: &str) -> String {
    const LIMIT: usize = 40;
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(LIMIT).collect();
    if chars.next().is_some() {
        format!("{head}...")
    } else {
        head
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kinds_match_and_read_well() {
        let optional = json!({"type": ["integer", "null"]});
        assert!(admits(&optional, &Value::Int(1)));
        assert!(admits(&optional, &Value::Null));
        assert!(!admits(&optional, &Value::Float(1.5)));
        assert!(admits(&json!({"type": "number"}), &Value::Int(1)));
        assert!(admits(&json!({}), &Value::Bool(true)));
        assert_eq!(expected(&optional).as_deref(), Some("an integer or null"));
        assert_eq!(expected(&json!({})), None);
        assert_eq!(found(&Value::Int(3)), "the integer `3`");
        assert_eq!(short(&"x".repeat(50)).len(), 43);
    }
}

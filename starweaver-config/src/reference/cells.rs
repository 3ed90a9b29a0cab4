//! One table cell each: a field's type, default and example in words and inline YAML, read
//! from its schema.

use serde_json::{Map, Value};

/// `#/$defs/NAME` (or `#/definitions/NAME`) resolved against the root schema; anything else
/// as it is.
pub(super) fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let mut current = schema;
    // A chain of references ends within a few steps; the bound keeps a cycle from looping.
    for _ in 0..16 {
        let Some(pointer) = current.get("$ref").and_then(Value::as_str) else {
            return current;
        };
        match pointer
            .strip_prefix('#')
            .and_then(|path| root.pointer(path))
        {
            Some(target) => current = target,
            None => return current,
        }
    }
    current
}

/// The alternatives of a `oneOf`/`anyOf`, if the schema has them.
pub(super) fn alternatives(schema: &Value) -> Option<&Vec<Value>> {
    schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)
}

/// The allowed string values of an enumeration (a `oneOf` of `const`s or an `enum`), each
/// with its description when it has one.
pub(super) fn allowed_values(schema: &Value, root: &Value) -> Option<Vec<(String, String)>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .map(|value| match value {
                Value::String(text) => Some((text.clone(), String::new())),
                Value::Bool(flag) => Some((flag.to_string(), String::new())),
                _ => None,
            })
            .collect();
    }
    alternatives(schema)?
        .iter()
        .map(|alternative| {
            let alternative = resolve(alternative, root);
            let value = alternative.get("const")?.as_str()?;
            Some((value.to_string(), description(alternative)))
        })
        .collect()
}

/// The field's type in words: `string`, `list of string`, `one of \`a\`, \`b\``, ...
pub(super) fn type_name(schema: &Value, root: &Value) -> String {
    let schema = resolve(schema, root);
    if let Some(value) = schema.get("const") {
        return format!("`{}`", inline(value));
    }
    if let Some(values) = allowed_values(schema, root) {
        let names: Vec<String> = values.iter().map(|(name, _)| format!("`{name}`")).collect();
        return format!("one of {}", names.join(", "));
    }
    if let Some(alternatives) = alternatives(schema) {
        let tagged = alternatives.iter().all(|alternative| {
            resolve(alternative, root)
                .pointer("/properties/type/const")
                .is_some()
        });
        if tagged {
            return "object (fields by `type`)".to_string();
        }
        let names: Vec<String> = alternatives
            .iter()
            .map(|alternative| type_name(alternative, root))
            .collect();
        return names.join(" or ");
    }
    let kinds: Vec<&str> = match schema.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .filter(|kind| *kind != "null")
            .collect(),
        _ => Vec::new(),
    };
    let names: Vec<String> = kinds
        .iter()
        .map(|kind| match *kind {
            "array" => match schema.get("items") {
                Some(items) => format!("list of {}", type_name(items, root)),
                None => "list".to_string(),
            },
            "object" if schema.get("properties").is_some() => "object".to_string(),
            "object" => "map".to_string(),
            other => other.to_string(),
        })
        .collect();
    if names.is_empty() {
        "any".to_string()
    } else {
        names.join(" or ")
    }
}

/// `required`, the schema's `default`, or what leaving the field out means.
pub(super) fn default_value(schema: &Value, root: &Value, required: bool) -> String {
    if required {
        return "required".to_string();
    }
    let schema = resolve(schema, root);
    if let Some(value) = schema.get("default") {
        return format!("`{}`", inline(value));
    }
    let kinds = kinds(schema);
    if kinds.iter().any(|kind| kind == "null") {
        "unset".to_string()
    } else if kinds.iter().any(|kind| kind == "array") {
        "`[]`".to_string()
    } else if kinds.iter().any(|kind| kind == "object") {
        "`{}`".to_string()
    } else {
        "unset".to_string()
    }
}

fn kinds(schema: &Value) -> Vec<String> {
    match schema.get("type") {
        Some(Value::String(kind)) => vec![kind.clone()],
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// `name: value` for the schema's first example (or the field's `const`).
pub(super) fn example(name: &str, schema: &Value, root: &Value) -> Option<String> {
    let schema = resolve(schema, root);
    let value = schema
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|examples| examples.first())
        .or_else(|| schema.get("const"))?;
    Some(format!("`{name}: {}`", inline(value)))
}

/// The description on one line.
pub(super) fn description(schema: &Value) -> String {
    schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A value as flow-style YAML: plain scalars where YAML reads them back as the same string,
/// double-quoted (JSON) strings elsewhere.
pub(super) fn inline(value: &Value) -> String {
    match value {
        Value::String(text) if is_plain(text) => text.clone(),
        Value::String(text) => Value::String(text.clone()).to_string(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(inline).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(fields) => object(fields),
        other => other.to_string(),
    }
}

fn object(fields: &Map<String, Value>) -> String {
    let fields: Vec<String> = fields
        .iter()
        .map(|(key, value)| format!("{}: {}", inline(&Value::String(key.clone())), inline(value)))
        .collect();
    format!("{{{}}}", fields.join(", "))
}

/// Whether `text` reads back as itself when written unquoted inside flow YAML.
fn is_plain(text: &str) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    let reserved = matches!(
        text,
        "true" | "false" | "null" | "~" | "yes" | "no" | "on" | "off"
    ) || text.parse::<f64>().is_ok();
    let safe = text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ':' | ' '));
    (first.is_ascii_alphanumeric() || matches!(first, '.' | '/'))
        && safe
        && !reserved
        && !text.contains(": ")
        && !text.ends_with(':')
        && !text.ends_with(' ')
}

/// Text for a markdown table cell: no line breaks, `|` escaped.
pub(super) fn cell(text: &str) -> String {
    text.replace('\n', " ").replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    #[test]
    fn inline_yaml_quotes_only_what_would_read_back_differently() {
        assert_eq!(inline(&json!("..")), "..");
        assert_eq!(inline(&json!("repo-helper")), "repo-helper");
        assert_eq!(inline(&json!("true")), "\"true\"");
        assert_eq!(inline(&json!("1")), "\"1\"");
        assert_eq!(inline(&json!("{{ name }}")), "\"{{ name }}\"");
        assert_eq!(inline(&json!("a, b")), "\"a, b\"");
        assert_eq!(
            inline(&json!({"type": "local", "tools": ["git", "cargo"], "n": 3})),
            "{type: local, tools: [git, cargo], n: 3}"
        );
    }

    #[test]
    fn references_resolve_and_types_read_as_words() {
        let root = json!({
            "$defs": {"Kind": {"oneOf": [{"const": "a", "description": "First."}, {"const": "b"}]}},
            "properties": {"kind": {"$ref": "#/$defs/Kind"}}
        });
        let field = &root["properties"]["kind"];
        assert_eq!(type_name(field, &root), "one of `a`, `b`");
        let values = allowed_values(resolve(field, &root), &root).unwrap();
        assert_eq!(values[0], ("a".to_string(), "First.".to_string()));
        let list = json!({"type": ["array", "null"], "items": {"type": "string"}});
        assert_eq!(type_name(&list, &root), "list of string");
        assert_eq!(default_value(&list, &root, false), "unset");
        assert_eq!(default_value(&list, &root, true), "required");
        assert_eq!(
            default_value(&json!({"type": "boolean", "default": false}), &root, false),
            "`false`"
        );
    }
}

//! OpenAI refuses a function schema with an array that has no `items`
//! ("array schema missing items"), with or without strict mode; the
//! non-strict OpenAI dialect gives such arrays `items: {}` (any item),
//! which keeps their meaning.

use serde_json::{Map, Value};

use super::pointer::child;
use super::SchemaChange;

/// Keywords whose value is one subschema.
const ONE: [&str; 9] = [
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
];

/// Keywords whose value is a list of subschemas.
const LIST: [&str; 4] = ["anyOf", "oneOf", "allOf", "prefixItems"];

/// Keywords whose value maps names to subschemas.
const NAMED: [&str; 5] = [
    "properties",
    "$defs",
    "definitions",
    "patternProperties",
    "dependentSchemas",
];

/// Adds `items: {}` to every array schema in `schema` without `items`,
/// reporting each at its pointer from `path`. The schema's depth is
/// already bounded by the caller.
pub(super) fn add_missing_items(schema: &mut Value, path: &str, changes: &mut Vec<SchemaChange>) {
    let Value::Object(map) = schema else {
        return;
    };
    if is_array(map) && !map.contains_key("items") {
        map.insert("items".to_string(), Value::Object(Map::new()));
        changes.push(SchemaChange {
            path: path.to_string(),
            change:
                "added `items: {}` (any item) to an array without `items`, which OpenAI requires"
                    .to_string(),
            lost: None,
        });
    }
    for (key, value) in map.iter_mut() {
        let key_path = child(path, key);
        // `items` may also be a list (the older tuple form).
        if ONE.contains(&key.as_str()) && value.is_object() {
            add_missing_items(value, &key_path, changes);
        } else if LIST.contains(&key.as_str()) || key == "items" {
            if let Value::Array(schemas) = value {
                for (index, schema) in schemas.iter_mut().enumerate() {
                    add_missing_items(schema, &child(&key_path, &index.to_string()), changes);
                }
            }
        } else if NAMED.contains(&key.as_str()) {
            if let Value::Object(schemas) = value {
                for (name, schema) in schemas.iter_mut() {
                    add_missing_items(schema, &child(&key_path, name), changes);
                }
            }
        }
    }
}

/// Whether the schema's `type` is or includes `array`.
fn is_array(map: &Map<String, Value>) -> bool {
    match map.get("type") {
        Some(Value::String(kind)) => kind == "array",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "array"),
        _ => false,
    }
}

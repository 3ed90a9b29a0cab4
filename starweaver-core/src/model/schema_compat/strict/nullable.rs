//! Making a schema accept `null`, and telling whether it already did.

use serde_json::{json, Map, Value};

use super::super::pointer::resolve;

/// Keys kept beside the `anyOf` when a schema is wrapped to accept null.
const ANNOTATIONS: [&str; 2] = ["title", "description"];

/// Keywords that say what kind of value a schema takes; a schema with
/// none of them takes any value.
const SHAPE_KEYWORDS: [&str; 10] = [
    "type",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "properties",
    "items",
    "prefixItems",
];

/// True when `map` says nothing about the kind of value (only
/// annotations or constraints that apply to no particular type).
pub(super) fn is_untyped(map: &Map<String, Value>) -> bool {
    !SHAPE_KEYWORDS.iter().any(|key| map.contains_key(*key))
}

/// True when `schema` (in the original, with `$ref`s followed) already
/// accepts `null`. `budget` is how many schemas the answer may look at:
/// branches that refer to each other cannot make it exponential, and an
/// answer out of budget is "no" (the property is then made nullable, which
/// is safe).
pub(super) fn accepts_null(schema: &Value, root: &Value, budget: &mut usize) -> bool {
    let Some(map) = schema.as_object() else {
        return schema == &Value::Bool(true);
    };
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    if is_untyped(map) {
        return true;
    }
    // `enum` and `const` hold beside `type`: one that leaves null out refuses it.
    let enum_refuses = map
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|values| !values.contains(&Value::Null));
    let const_refuses = map.get("const").is_some_and(|fixed| !fixed.is_null());
    if enum_refuses || const_refuses {
        return false;
    }
    let null_type = match map.get("type") {
        Some(Value::String(kind)) => kind == "null",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "null"),
        _ => false,
    };
    if null_type
        || map.get("const") == Some(&Value::Null)
        || map
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| values.contains(&Value::Null))
    {
        return true;
    }
    for keyword in ["anyOf", "oneOf"] {
        for branch in map
            .get(keyword)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if accepts_null(branch, root, budget) {
                return true;
            }
        }
    }
    match map
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| resolve(root, reference))
    {
        Some(target) => accepts_null(target, root, budget),
        None => false,
    }
}

/// `schema` (already adapted) made to accept `null` too: `null` added to
/// `type` (and `enum`) when it is a scalar type, a `{type: null}`
/// branch added to a bare `anyOf`, otherwise the schema wrapped in
/// `anyOf: [schema, {type: null}]` with its annotations kept outside.
pub(super) fn make_nullable(schema: Value) -> Value {
    let Value::Object(mut map) = schema else {
        return wrap(Map::new(), schema);
    };
    // `null` joins a list of scalar types only: objects and arrays are
    // wrapped, the form every strict-mode schema generator uses for them.
    let scalar = |kind: &Value| {
        matches!(
            kind.as_str(),
            Some("string" | "number" | "integer" | "boolean" | "null")
        )
    };
    let typed = !map.contains_key("const")
        && !map.contains_key("anyOf")
        && !map.contains_key("$ref")
        && match map.get("type") {
            Some(Value::Array(kinds)) => kinds.iter().all(scalar),
            Some(kind) => scalar(kind),
            None => false,
        };
    match map.get_mut("type") {
        Some(Value::String(kind)) if typed => {
            let kind = std::mem::take(kind);
            map.insert("type".to_string(), json!([kind, "null"]));
            add_null_to_enum(&mut map);
            return Value::Object(map);
        }
        Some(Value::Array(kinds)) if typed => {
            if !kinds.iter().any(|kind| kind == "null") {
                kinds.push(Value::from("null"));
            }
            add_null_to_enum(&mut map);
            return Value::Object(map);
        }
        _ => {}
    }
    let bare_any_of = map
        .keys()
        .all(|key| key == "anyOf" || ANNOTATIONS.contains(&key.as_str()));
    if bare_any_of {
        if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
            branches.push(json!({"type": "null"}));
            return Value::Object(map);
        }
    }
    let mut annotations = Map::new();
    for key in ANNOTATIONS {
        if let Some(value) = map.shift_remove(key) {
            annotations.insert(key.to_string(), value);
        }
    }
    wrap(annotations, Value::Object(map))
}

fn add_null_to_enum(map: &mut Map<String, Value>) {
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
}

fn wrap(annotations: Map<String, Value>, inner: Value) -> Value {
    let mut out = Map::new();
    out.insert("anyOf".to_string(), json!([inner, {"type": "null"}]));
    out.extend(annotations);
    Value::Object(out)
}

//! A quick, bounded "does this value match" for the keywords samples are
//! built from, so `oneOf` can pick a branch its sample matches alone.
//! Keywords it does not know are taken as matching; the full check is
//! the tool's own validation.

use serde_json::{Map, Value};

use super::resolve;

/// Deepest schema nesting checked; deeper parts are taken as matching.
const MAX_DEPTH: usize = 16;

/// Whether `value` matches `schema` for the subset the sampler generates.
/// `budget` counts schema nodes visited and stops the check (as a match)
/// when it runs out, so hostile schemas stay cheap.
pub(super) fn matches(value: &Value, schema: &Value, root: &Value, budget: &mut usize) -> bool {
    check(value, schema, root, 0, budget)
}

fn check(value: &Value, schema: &Value, root: &Value, depth: usize, budget: &mut usize) -> bool {
    let map = match schema {
        Value::Bool(allowed) => return *allowed,
        Value::Object(map) => map,
        _ => return true,
    };
    if depth > MAX_DEPTH || *budget == 0 {
        return true;
    }
    *budget -= 1;
    if let Some(target) = map
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| resolve(root, reference))
    {
        if !check(value, target, root, depth + 1, budget) {
            return false;
        }
    }
    if map.get("const").is_some_and(|constant| constant != value) {
        return false;
    }
    if let Some(choices) = map.get("enum").and_then(Value::as_array) {
        if !choices.contains(value) {
            return false;
        }
    }
    if !type_matches(map, value) || !bounds_match(map, value) {
        return false;
    }
    if let Value::Object(object) = value {
        if !object_matches(map, object, root, depth, budget) {
            return false;
        }
    }
    let branch = |schema: &Value, budget: &mut usize| check(value, schema, root, depth + 1, budget);
    if let Some(parts) = map.get("allOf").and_then(Value::as_array) {
        if !parts.iter().all(|part| branch(part, budget)) {
            return false;
        }
    }
    if let Some(parts) = map.get("anyOf").and_then(Value::as_array) {
        if !parts.iter().any(|part| branch(part, budget)) {
            return false;
        }
    }
    if let Some(parts) = map.get("oneOf").and_then(Value::as_array) {
        let mut matched = 0;
        for part in parts {
            if branch(part, budget) {
                matched += 1;
            }
        }
        if matched != 1 {
            return false;
        }
    }
    if let Some(forbidden) = map.get("not") {
        if branch(forbidden, budget) {
            return false;
        }
    }
    true
}

fn type_matches(map: &Map<String, Value>, value: &Value) -> bool {
    let one = |kind: &str| match kind {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "integer" => value.as_f64().is_some_and(|number| number.fract() == 0.0),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        _ => true,
    };
    match map.get("type") {
        Some(Value::String(kind)) => one(kind),
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).any(one),
        _ => true,
    }
}

fn bounds_match(map: &Map<String, Value>, value: &Value) -> bool {
    let limit = |key: &str| map.get(key).and_then(Value::as_u64);
    if let Value::String(text) = value {
        let length = text.chars().count() as u64;
        if limit("minLength").is_some_and(|min| length < min)
            || limit("maxLength").is_some_and(|max| length > max)
        {
            return false;
        }
    }
    if let Value::Array(items) = value {
        let length = items.len() as u64;
        if limit("minItems").is_some_and(|min| length < min)
            || limit("maxItems").is_some_and(|max| length > max)
        {
            return false;
        }
    }
    if let Some(number) = value.as_f64() {
        let bound = |key: &str| map.get(key).and_then(Value::as_f64);
        if bound("minimum").is_some_and(|min| number < min)
            || bound("maximum").is_some_and(|max| number > max)
            || bound("exclusiveMinimum").is_some_and(|min| number <= min)
            || bound("exclusiveMaximum").is_some_and(|max| number >= max)
        {
            return false;
        }
    }
    true
}

fn object_matches(
    map: &Map<String, Value>,
    object: &Map<String, Value>,
    root: &Value,
    depth: usize,
    budget: &mut usize,
) -> bool {
    let required = map
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    for name in required {
        if !object.contains_key(name) {
            return false;
        }
    }
    if let Some(Value::Object(dependents)) = map.get("dependentRequired") {
        for (present, needed) in dependents {
            if object.contains_key(present) {
                let needed = needed.as_array().into_iter().flatten();
                if needed
                    .filter_map(Value::as_str)
                    .any(|name| !object.contains_key(name))
                {
                    return false;
                }
            }
        }
    }
    let properties = map.get("properties").and_then(Value::as_object);
    for (name, item) in object {
        let allowed = match properties.and_then(|properties| properties.get(name)) {
            Some(property) => check(item, property, root, depth + 1, budget),
            None => map.get("additionalProperties") != Some(&Value::Bool(false)),
        };
        if !allowed {
            return false;
        }
    }
    true
}

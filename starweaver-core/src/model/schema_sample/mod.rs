//! Example argument values generated from a JSON Schema, so the `test`
//! model can call any tool with arguments its schema accepts.

use serde_json::{json, Map, Value};

const MAX_DEPTH: usize = 8;
/// Longest array generated; a schema demanding more gets this many.
const MAX_ITEMS: u64 = 64;

/// A value valid against `schema` for the common subset of JSON Schema
/// used by tool parameters: `type`, `properties`, `required`, `enum`,
/// `const`, `default`, `examples`, string and array lengths, common string
/// formats, numeric bounds and `multipleOf`, `anyOf`/`oneOf` (first
/// non-null branch), `allOf` (merged), tuples (`prefixItems`) and local
/// `$ref`s.
#[must_use]
pub fn sample_value(schema: &Value) -> Value {
    sample(schema, schema, 0)
}

fn sample(schema: &Value, root: &Value, depth: usize) -> Value {
    let Value::Object(map) = schema else {
        return Value::Null;
    };
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        if let Some(target) = resolve(root, reference) {
            return sample(target, root, depth + 1);
        }
    }
    if let Some(value) = map.get("const") {
        return value.clone();
    }
    if let Some(first) = map
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|values| values.first())
    {
        return first.clone();
    }
    if let Some(default) = map.get("default") {
        return default.clone();
    }
    if let Some(example) = map
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|values| values.first())
    {
        return example.clone();
    }
    // A combinator's branch is merged with the schema's own properties
    // (schemars puts flattened enums next to the struct's fields).
    let own = || match sample_object(map, root, depth) {
        Value::Object(own) if !own.is_empty() => Some(own),
        _ => None,
    };
    for combinator in ["anyOf", "oneOf"] {
        if let Some(branches) = map.get(combinator).and_then(Value::as_array) {
            let chosen = branches
                .iter()
                .find(|branch| branch.get("type").and_then(Value::as_str) != Some("null"))
                .or_else(|| branches.first());
            if let Some(branch) = chosen {
                return merge(own(), sample(branch, root, depth + 1));
            }
        }
    }
    if let Some(parts) = map.get("allOf").and_then(Value::as_array) {
        let mut merged = own().unwrap_or_default();
        for part in parts {
            if let Value::Object(part) = sample(part, root, depth + 1) {
                merged.extend(part);
            }
        }
        return Value::Object(merged);
    }
    match primary_type(map) {
        Some("object") => sample_object(map, root, depth),
        Some("array") => sample_array(map, root, depth),
        Some("string") => sample_string(map),
        Some("integer") => sample_number(map, true),
        Some("number") => sample_number(map, false),
        Some("boolean") => Value::Bool(true),
        Some("null") => Value::Null,
        _ if map.contains_key("properties") => sample_object(map, root, depth),
        _ => Value::Null,
    }
}

/// A branch sample merged into the schema's own object sample.
fn merge(own: Option<Map<String, Value>>, branch: Value) -> Value {
    match (own, branch) {
        (Some(mut own), Value::Object(branch)) => {
            own.extend(branch);
            Value::Object(own)
        }
        (_, branch) => branch,
    }
}

fn primary_type(map: &Map<String, Value>) -> Option<&str> {
    match map.get("type") {
        Some(Value::String(kind)) => Some(kind.as_str()),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|kind| *kind != "null")
            .or(Some("null")),
        _ => None,
    }
}

fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    reference
        .strip_prefix('#')
        .and_then(|pointer| root.pointer(pointer))
}

fn sample_object(map: &Map<String, Value>, root: &Value, depth: usize) -> Value {
    let mut object = Map::new();
    let required: Vec<&str> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(Value::Object(properties)) = map.get("properties") {
        for name in required {
            if let Some(property) = properties.get(name) {
                object.insert(name.to_string(), sample(property, root, depth + 1));
            }
        }
    }
    Value::Object(object)
}

fn sample_array(map: &Map<String, Value>, root: &Value, depth: usize) -> Value {
    // One illustrative item near the root; none deeper, so recursive
    // types (a tree of nodes) end.
    let default_min = u64::from(depth < 3);
    let min = map
        .get("minItems")
        .and_then(Value::as_u64)
        .unwrap_or(default_min);
    let max = map
        .get("maxItems")
        .and_then(Value::as_u64)
        .unwrap_or(u64::MAX);
    let count = usize::try_from(min.min(max).min(MAX_ITEMS)).unwrap_or(0);
    let mut items: Vec<Value> = map
        .get("prefixItems")
        .and_then(Value::as_array)
        .map(|prefix| {
            prefix
                .iter()
                .map(|item| sample(item, root, depth + 1))
                .collect()
        })
        .unwrap_or_default();
    let items_schema = map.get("items").filter(|items| items.is_object());
    let item = items_schema.map_or(json!("example"), |items| sample(items, root, depth + 1));
    let unique = map.get("uniqueItems").and_then(Value::as_bool) == Some(true);
    let choices = items_schema
        .and_then(|items| items.get("enum"))
        .and_then(Value::as_array);
    let tuple_len = items.len();
    // Tuples stop at their prefix unless `minItems` asks for more (and
    // `items: false` forbids more).
    if tuple_len == 0 || (items_schema.is_some() && count > tuple_len) {
        for index in tuple_len..count.max(tuple_len) {
            items.push(match (unique, choices) {
                (false, _) => item.clone(),
                (true, Some(choices)) => {
                    choices.get(index).cloned().unwrap_or_else(|| item.clone())
                }
                (true, None) => distinct(&item, index),
            });
        }
    }
    Value::Array(items)
}

/// The `index`-th variant of a sample, so `uniqueItems` arrays stay unique
/// for strings and numbers.
fn distinct(item: &Value, index: usize) -> Value {
    if index == 0 {
        return item.clone();
    }
    match item {
        Value::String(text) => Value::String(format!("{text}{index}")),
        Value::Number(number) => number
            .as_i64()
            .map(|value| json!(value.saturating_add(i64::try_from(index).unwrap_or(0))))
            .or_else(|| number.as_f64().map(|value| json!(value + index as f64)))
            .unwrap_or_else(|| item.clone()),
        Value::Bool(flag) => Value::Bool(!flag),
        other => other.clone(),
    }
}

fn sample_string(map: &Map<String, Value>) -> Value {
    let base = match map.get("format").and_then(Value::as_str) {
        Some("date-time") => "2026-01-01T00:00:00Z",
        Some("date") => "2026-01-01",
        Some("email") => "user@example.com",
        Some("uri" | "url") => "https://example.com",
        Some("uuid") => "00000000-0000-4000-8000-000000000000",
        Some("ipv4") => "192.0.2.1",
        Some("ipv6") => "2001:db8::1",
        Some("ip") => "192.0.2.1",
        Some("hostname" | "idn-hostname") => "example.com",
        Some("idn-email") => "user@example.com",
        Some("time") => "12:00:00Z",
        Some("duration") => "P1D",
        Some("uri-reference" | "iri-reference") => "/example",
        Some("iri") => "https://example.com",
        Some("json-pointer") => "/example",
        Some("regex") => "^example$",
        _ => "example",
    };
    let min = map.get("minLength").and_then(Value::as_u64).unwrap_or(0);
    let max = map
        .get("maxLength")
        .and_then(Value::as_u64)
        .unwrap_or(u64::MAX);
    let mut text = base.to_string();
    let missing = usize::try_from(min)
        .unwrap_or(usize::MAX)
        .saturating_sub(text.len());
    text.extend(std::iter::repeat_n('x', missing));
    let max = usize::try_from(max).unwrap_or(usize::MAX);
    Value::String(text.chars().take(max).collect())
}

fn sample_number(map: &Map<String, Value>, integer: bool) -> Value {
    let bound = |key: &str| map.get(key).and_then(Value::as_f64);
    let (low, low_open) = match (bound("minimum"), bound("exclusiveMinimum")) {
        (Some(min), Some(open)) if open >= min => (Some(open), true),
        (Some(min), _) => (Some(min), false),
        (None, Some(open)) => (Some(open), true),
        (None, None) => (None, false),
    };
    let (high, high_open) = match (bound("maximum"), bound("exclusiveMaximum")) {
        (Some(max), Some(open)) if open <= max => (Some(open), true),
        (Some(max), _) => (Some(max), false),
        (None, Some(open)) => (Some(open), true),
        (None, None) => (None, false),
    };
    if integer {
        // The smallest integer inside the bounds (1 when unbounded below).
        let lowest = match low {
            Some(low) if low_open => low.floor() + 1.0,
            Some(low) => low.ceil(),
            None => high.map_or(1.0, |high| {
                let top = if high_open {
                    high.ceil() - 1.0
                } else {
                    high.floor()
                };
                top.min(1.0)
            }),
        };
        let top = high.map(|high| {
            if high_open {
                high.ceil() - 1.0
            } else {
                high.floor()
            }
        });
        let value = match map.get("multipleOf").and_then(Value::as_f64) {
            Some(step) if step > 0.0 => {
                let up = (lowest / step).ceil() * step;
                match top {
                    Some(top) if up > top => (top / step).floor() * step,
                    _ => up,
                }
            }
            _ => lowest,
        };
        if value.is_finite() && value.abs() < 9.0e15 {
            #[allow(clippy::cast_possible_truncation)]
            return json!(value as i64);
        }
        return json!(1);
    }
    let value = match (low, high) {
        // Strictly inside an interval with an open end.
        (Some(low), Some(high)) if low_open || high_open => (low + high) / 2.0,
        (Some(low), _) if low_open => low + 1.0,
        (Some(low), _) => low,
        (None, Some(high)) if high_open => high - 1.0,
        (None, Some(high)) => high.min(1.0),
        (None, None) => 1.0,
    };
    json!(value)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod unit {
    use super::*;

    fn assert_valid(schema: &Value) {
        let value = sample_value(schema);
        let validator = jsonschema::validator_for(schema);
        assert!(validator.is_ok(), "bad test schema {schema}");
        if let Ok(validator) = validator {
            assert!(
                validator.is_valid(&value),
                "{value} does not match {schema}"
            );
        }
    }

    #[test]
    fn samples_validate_against_their_schemas() {
        for schema in [
            json!({"type": "object", "properties": {}}),
            json!({"type": "object", "properties": {"q": {"type": "string", "minLength": 12}}, "required": ["q"]}),
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 5, "maximum": 9}}, "required": ["n"]}),
            json!({"type": "object", "properties": {"n": {"type": "number", "exclusiveMinimum": 0}}, "required": ["n"]}),
            json!({"type": "object", "properties": {"mode": {"enum": ["a", "b"]}}, "required": ["mode"]}),
            json!({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}, "minItems": 2}}, "required": ["tags"]}),
            json!({"type": "object", "properties": {"o": {"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 3}]}}, "required": ["o"]}),
            json!({"type": "object", "properties": {"inner": {"$ref": "#/$defs/Inner"}}, "required": ["inner"], "$defs": {"Inner": {"type": "object", "properties": {"flag": {"type": "boolean"}}, "required": ["flag"]}}}),
            json!({"type": "object", "properties": {"s": {"type": ["string", "null"], "maxLength": 3}}, "required": ["s"]}),
            json!({"type": "object", "properties": {"p": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}}, "required": ["p"]}),
            json!({"type": "object", "properties": {"k": {"type": "integer", "exclusiveMinimum": 3, "multipleOf": 5}}, "required": ["k"]}),
            json!({"type": "object", "properties": {"t": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false}}, "required": ["t"]}),
        ] {
            assert_valid(&schema);
        }
    }
}

//! Example argument values generated from a JSON Schema, so the `test`
//! model can call any tool with arguments its schema accepts.

mod check;
mod fill;

use serde_json::{json, Map, Value};

pub(crate) use fill::{Field, Fill};

const MAX_DEPTH: usize = 8;
/// Longest array generated; a schema demanding more gets this many.
const MAX_ITEMS: u64 = 64;
/// Schema nodes one sample may visit; past it the rest is `null`, so a
/// hostile schema (wide `oneOf`s nested deep) cannot make sampling slow.
const MAX_NODES: usize = 4096;
/// Branches of one `oneOf`/`anyOf` tried for a sample that matches.
const MAX_BRANCHES: usize = 8;
/// Depth below which a `oneOf`'s other branches are tried.
const MAX_BRANCHING_DEPTH: usize = 3;
/// Schema nodes one `oneOf` match check may visit.
const MAX_CHECK_NODES: usize = 2048;

/// A value valid against `schema` for the common subset of JSON Schema
/// used by tool parameters: `type`, `properties`, `required`,
/// `dependentRequired`, `enum`, `const`, `default`, `examples`, string and
/// array lengths, common string formats, numeric bounds and `multipleOf`,
/// `anyOf` (first non-null branch), `oneOf` (the first branch whose sample
/// matches that branch alone), `allOf` (merged), branches that only list
/// `required` names of the surrounding `properties`, tuples
/// (`prefixItems`) and local `$ref`s.
#[must_use]
pub fn sample_value(schema: &Value) -> Value {
    sample_with(schema, &mut fill::Plain)
}

/// Like [`sample_value`], with `fill` choosing strings and optional
/// properties where the schema leaves a choice.
pub(crate) fn sample_with(schema: &Value, fill: &mut dyn Fill) -> Value {
    let mut sampler = Sampler {
        root: schema,
        fill,
        budget: MAX_NODES,
    };
    sampler.sample(schema, None, 0)
}

struct Sampler<'a> {
    root: &'a Value,
    fill: &'a mut dyn Fill,
    budget: usize,
}

impl<'a> Sampler<'a> {
    /// A sample of `schema`; when it has a `not` the sample matches, a
    /// variant of the sample that does not (`example1` for `example`).
    fn sample(&mut self, schema: &Value, name: Option<&str>, depth: usize) -> Value {
        let value = self.sample_own(schema, name, depth);
        let Some(forbidden) = schema.get("not") else {
            return value;
        };
        let root = self.root;
        let mut budget = MAX_CHECK_NODES;
        if !check::matches(&value, forbidden, root, &mut budget) {
            return value;
        }
        let variant = distinct(&value, 1);
        let mut budget = MAX_CHECK_NODES;
        if check::matches(&variant, forbidden, root, &mut budget) {
            value
        } else {
            variant
        }
    }

    fn sample_own(&mut self, schema: &Value, name: Option<&str>, depth: usize) -> Value {
        let Value::Object(map) = schema else {
            return Value::Null;
        };
        if depth > MAX_DEPTH || self.budget == 0 {
            return Value::Null;
        }
        self.budget -= 1;
        let root: &'a Value = self.root;
        if let Some(target) = map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| resolve(root, reference))
        {
            return self.sample(target, name, depth + 1);
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
        if primary_type(map) == Some("array") {
            if let Some(chosen) = self.chosen_strings(map, name) {
                return chosen;
            }
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
        for combinator in ["anyOf", "oneOf"] {
            if let Some(branches) = map.get(combinator).and_then(Value::as_array) {
                if !branches.is_empty() {
                    return self.sample_branches(map, combinator, branches, name, depth);
                }
            }
        }
        if let Some(parts) = map.get("allOf").and_then(Value::as_array) {
            let mut merged = map.clone();
            merged.remove("allOf");
            for part in parts.iter().take(MAX_BRANCHES) {
                let part = self.resolved(part);
                merged = overlay(&merged, &part);
            }
            return self.sample(&Value::Object(merged), name, depth + 1);
        }
        match primary_type(map) {
            Some("object") => self.sample_object(map, name, depth),
            Some("array") => self.sample_array(map, name, depth),
            Some("string") => self.sample_string(map, name),
            Some("integer") => sample_number(map, true),
            Some("number") => sample_number(map, false),
            Some("boolean") => Value::Bool(true),
            Some("null") => Value::Null,
            _ if map.contains_key("properties") => self.sample_object(map, name, depth),
            _ => Value::Null,
        }
    }

    /// A branch's schema with its local `$ref` followed (once).
    fn resolved(&self, branch: &Value) -> Map<String, Value> {
        let Value::Object(map) = branch else {
            return Map::new();
        };
        match map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| resolve(self.root, reference))
        {
            Some(Value::Object(target)) => {
                let mut own = map.clone();
                own.remove("$ref");
                overlay(target, &own)
            }
            _ => map.clone(),
        }
    }

    /// A sample of one branch merged with the schema around it (schemars
    /// puts flattened enums next to the struct's fields; an exactly-one-of
    /// branch may only name `required` properties listed outside it).
    /// For `oneOf`, the first sample that matches its branch alone.
    fn sample_branches(
        &mut self,
        map: &Map<String, Value>,
        combinator: &str,
        branches: &[Value],
        name: Option<&str>,
        depth: usize,
    ) -> Value {
        let mut base = map.clone();
        base.remove(combinator);
        // Near the root every branch may be tried; deeper, the first one,
        // so nested combinators cannot multiply the work.
        let attempts = if depth < MAX_BRANCHING_DEPTH {
            MAX_BRANCHES
        } else {
            1
        };
        let is_null = |branch: &&Value| branch.get("type").and_then(Value::as_str) == Some("null");
        let ordered = branches
            .iter()
            .filter(|branch| !is_null(branch))
            .chain(branches.iter().filter(is_null))
            .take(attempts);
        let mut first = None;
        for branch in ordered {
            let effective = overlay(&base, &self.resolved(branch));
            let value = self.sample(&Value::Object(effective), name, depth + 1);
            if combinator == "anyOf" {
                return value;
            }
            let mut budget = MAX_CHECK_NODES;
            let matching = branches
                .iter()
                .filter(|other| check::matches(&value, other, self.root, &mut budget))
                .count();
            if matching == 1 {
                return value;
            }
            first.get_or_insert(value);
        }
        first.unwrap_or(Value::Null)
    }

    fn sample_object(
        &mut self,
        map: &Map<String, Value>,
        name: Option<&str>,
        depth: usize,
    ) -> Value {
        let mut object = Map::new();
        let empty = Map::new();
        let properties = map
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let mut wanted: Vec<String> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        // Optional properties the filler asked for get a value, not their
        // default (`null` for an `Option`).
        let mut chosen: Vec<String> = Vec::new();
        if wanted.is_empty() && name.is_none() && depth <= 2 {
            chosen = self
                .fill
                .optional(properties)
                .into_iter()
                .filter(|wanted| properties.contains_key(wanted))
                .collect();
            wanted.clone_from(&chosen);
        }
        let dependents = map.get("dependentRequired").and_then(Value::as_object);
        let mut index = 0;
        // Properties a present one depends on join the list; each name is
        // added once, so this ends.
        while let Some(property_name) = wanted.get(index).cloned() {
            index += 1;
            if object.contains_key(&property_name) {
                continue;
            }
            let value = match properties.get(&property_name) {
                Some(Value::Object(property)) if chosen.contains(&property_name) => {
                    let mut property = property.clone();
                    property.remove("default");
                    self.sample(&Value::Object(property), Some(&property_name), depth + 1)
                }
                Some(property) => self.sample(property, Some(&property_name), depth + 1),
                None => Value::Null,
            };
            object.insert(property_name.clone(), value);
            let needed = dependents
                .and_then(|dependents| dependents.get(&property_name))
                .and_then(Value::as_array);
            for needed in needed.into_iter().flatten().filter_map(Value::as_str) {
                if !wanted.iter().any(|known| known == needed) && wanted.len() < 256 {
                    wanted.push(needed.to_string());
                }
            }
        }
        Value::Object(object)
    }

    fn sample_array(
        &mut self,
        map: &Map<String, Value>,
        name: Option<&str>,
        depth: usize,
    ) -> Value {
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
        if let Some(chosen) = self.chosen_strings(map, name) {
            return chosen;
        }
        let items_schema = map.get("items").filter(|items| items.is_object());
        let mut items: Vec<Value> = map
            .get("prefixItems")
            .and_then(Value::as_array)
            .map(|prefix| {
                prefix
                    .iter()
                    .map(|item| self.sample(item, name, depth + 1))
                    .collect()
            })
            .unwrap_or_default();
        let item = items_schema.map_or(json!("example"), |items| {
            self.sample(items, name, depth + 1)
        });
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

    /// The filler's strings for an array of plain strings, if it has
    /// some (they win over the array's `default`).
    fn chosen_strings(&mut self, map: &Map<String, Value>, name: Option<&str>) -> Option<Value> {
        let Some(Value::Object(items)) = map.get("items") else {
            return None;
        };
        let plain_strings = primary_type(items) == Some("string")
            && !["enum", "const", "format", "$ref"]
                .iter()
                .any(|key| items.contains_key(*key));
        if !plain_strings || map.contains_key("prefixItems") {
            return None;
        }
        let field = Field { name, schema: map };
        let chosen = self.fill.strings(&field)?;
        Some(self.string_items(map, items, name, chosen))
    }

    /// Chosen strings as array items, fitted to the item schema and the
    /// array's item counts.
    fn string_items(
        &mut self,
        map: &Map<String, Value>,
        items: &Map<String, Value>,
        name: Option<&str>,
        chosen: Vec<String>,
    ) -> Value {
        let limit = |key: &str| {
            map.get(key)
                .and_then(Value::as_u64)
                .map(|count| usize::try_from(count.min(MAX_ITEMS)).unwrap_or(0))
        };
        let max = limit("maxItems").unwrap_or(MAX_ITEMS as usize);
        let min = limit("minItems").unwrap_or(0).min(max);
        let mut values: Vec<Value> = chosen
            .into_iter()
            .take(max)
            .map(|text| Value::String(fit_length(items, text)))
            .collect();
        let mut index = values.len();
        while values.len() < min {
            let base = match values.first() {
                Some(first) => first.clone(),
                None => self.sample_string(items, name),
            };
            values.push(distinct(&base, index));
            index += 1;
        }
        Value::Array(values)
    }

    fn sample_string(&mut self, map: &Map<String, Value>, name: Option<&str>) -> Value {
        let base = match map.get("format").and_then(Value::as_str) {
            Some(format) => format_sample(format),
            None => {
                let field = Field { name, schema: map };
                let chosen = self
                    .fill
                    .string(&field)
                    .map(|text| fit_length(map, text))
                    .filter(|text| fits_pattern(map, text));
                if let Some(chosen) = chosen {
                    return Value::String(chosen);
                }
                "example"
            }
        };
        Value::String(fit_length(map, base.to_string()))
    }
}

/// `branch` laid over `base`: properties merged, `required` lists joined,
/// other keywords from the branch.
fn overlay(base: &Map<String, Value>, branch: &Map<String, Value>) -> Map<String, Value> {
    let mut merged = base.clone();
    for (key, value) in branch {
        match (key.as_str(), merged.get_mut(key), value) {
            ("properties", Some(Value::Object(own)), Value::Object(theirs)) => {
                for (name, schema) in theirs {
                    own.insert(name.clone(), schema.clone());
                }
            }
            ("required", Some(Value::Array(own)), Value::Array(theirs)) => {
                for name in theirs {
                    if !own.contains(name) {
                        own.push(name.clone());
                    }
                }
            }
            _ => {
                merged.insert(key.clone(), value.clone());
            }
        }
    }
    merged
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

/// `text` padded with `x` to `minLength` and cut to `maxLength`
/// (characters).
fn fit_length(map: &Map<String, Value>, mut text: String) -> String {
    let min = map.get("minLength").and_then(Value::as_u64).unwrap_or(0);
    let max = map
        .get("maxLength")
        .and_then(Value::as_u64)
        .unwrap_or(u64::MAX);
    let min = usize::try_from(min).unwrap_or(usize::MAX);
    let max = usize::try_from(max).unwrap_or(usize::MAX);
    let length = text.chars().count();
    if length > max {
        return text.chars().take(max).collect();
    }
    text.extend(std::iter::repeat_n(
        'x',
        min.min(max).saturating_sub(length),
    ));
    text
}

/// Whether `text` matches the schema's `pattern` (when it has one that
/// compiles).
fn fits_pattern(map: &Map<String, Value>, text: &str) -> bool {
    let Some(pattern) = map.get("pattern").and_then(Value::as_str) else {
        return true;
    };
    regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .build()
        .is_ok_and(|regex| regex.is_match(text))
}

fn format_sample(format: &str) -> &'static str {
    match format {
        "date-time" => "2026-01-01T00:00:00Z",
        "date" => "2026-01-01",
        "email" | "idn-email" => "user@example.com",
        "uri" | "url" | "iri" => "https://example.com",
        "uuid" => "00000000-0000-4000-8000-000000000000",
        "ipv4" | "ip" => "192.0.2.1",
        "ipv6" => "2001:db8::1",
        "hostname" | "idn-hostname" => "example.com",
        "time" => "12:00:00Z",
        "duration" => "P1D",
        "uri-reference" | "iri-reference" | "json-pointer" => "/example",
        "regex" => "^example$",
        _ => "example",
    }
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

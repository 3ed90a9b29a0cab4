//! The schema samples `TestModel::auto` generates for tool arguments
//! (bounds, tuples, recursion, flattening, huge lengths).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::json;
use serde_json::Value;

use super::sample_value;

/// Asserts the sample of `schema` validates against it, listing the
/// errors.
fn assert_sample_valid(schema: &Value) {
    let sample = sample_value(schema);
    let validator = jsonschema::validator_for(schema).expect("tool schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&sample)
        .map(|error| error.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "{sample} does not validate against {schema}: {errors:?}"
    );
}

#[test]
fn schema_samples_cover_the_common_tool_subset() {
    for schema in [
        json!({"type": "object", "properties": {"s": {"type": ["string", "null"], "minLength": 3}}, "required": ["s"]}),
        json!({"type": "object", "properties": {"n": {"type": "number", "exclusiveMaximum": 0}}, "required": ["n"]}),
        json!({"type": "object", "properties": {"n": {"type": "integer", "exclusiveMinimum": 0, "maximum": 4}}, "required": ["n"]}),
        json!({"type": "object", "properties": {"e": {"type": "string", "format": "email", "maxLength": 40}}, "required": ["e"]}),
        json!({"type": "object", "properties": {"c": {"const": "fixed"}}, "required": ["c"]}),
        json!({"type": "object", "properties": {"o": {"oneOf": [
            {"type": "object", "properties": {"A": {"type": "integer", "minimum": 2}}, "required": ["A"], "additionalProperties": false},
            {"type": "string", "enum": ["B"]}
        ]}}, "required": ["o"]}),
        json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "integer"}}}, "required": ["m"]}),
        json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer"}, "minItems": 3, "maxItems": 3}}, "required": ["a"]}),
        json!({"type": "object", "properties": {"x": {"allOf": [
            {"type": "object", "properties": {"p": {"type": "string"}}, "required": ["p"]},
            {"type": "object", "properties": {"q": {"type": "boolean"}}, "required": ["q"]}
        ]}}, "required": ["x"]}),
        json!({"type": "object", "properties": {"r": {"$ref": "#/$defs/R"}}, "required": ["r"],
               "$defs": {"R": {"type": "object", "properties": {"v": {"type": "string", "minLength": 12}}, "required": ["v"]}}}),
    ] {
        assert_sample_valid(&schema);
    }
}

#[test]
fn schema_samples_respect_large_min_items() {
    assert_sample_valid(&json!({
        "type": "object",
        "properties": {"tags": {"type": "array", "items": {"type": "string"}, "minItems": 6}},
        "required": ["tags"]
    }));
}

#[test]
fn schema_samples_respect_unique_items_with_min_items() {
    assert_sample_valid(&json!({
        "type": "object",
        "properties": {"picks": {
            "type": "array",
            "items": {"type": "string", "enum": ["a", "b", "c"]},
            "minItems": 2,
            "uniqueItems": true
        }},
        "required": ["picks"]
    }));
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: TestModel::auto sampled values outside open numeric intervals.
#[test]
fn samples_respect_open_intervals() {
    let schema = json!({
        "type": "object",
        "properties": {"ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}},
        "required": ["ratio"]
    });
    let value = sample_value(&schema);
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(
        validator.is_valid(&value),
        "{value} does not match {schema}"
    );
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct PairArgs {
    pair: (String, u32),
}

// Regression: TestModel::auto samples of typed tuple arguments did not validate.
#[test]
fn samples_for_typed_tuple_arguments_validate() {
    let schema = serde_json::to_value(schemars::schema_for!(PairArgs)).unwrap();
    let value = sample_value(&schema);
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(
        validator.is_valid(&value),
        "{value} does not match {schema}"
    );
}

// Regression: integer samples with multipleOf ignored the upper bound.
#[test]
fn integer_multiple_of_respects_the_upper_bound() {
    // agent-runtime.md: samples honour "bounds"; the fix added multipleOf.
    for schema in [
        json!({"type": "integer", "maximum": -3, "multipleOf": 2}),
        json!({"type": "integer", "exclusiveMaximum": 0, "multipleOf": 5}),
        json!({"type": "integer", "maximum": 3, "multipleOf": 5}),
    ] {
        assert_sample_valid(&schema);
    }
}

// Regression: tuple samples ignored minItems.
#[test]
fn tuple_samples_respect_min_items() {
    assert_sample_valid(&json!({
        "type": "array",
        "prefixItems": [{"type": "string"}],
        "items": {"type": "integer"},
        "minItems": 3
    }));
}

#[allow(dead_code)]
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct TreeNode {
    /// Node label.
    label: String,
    /// Child nodes.
    children: Vec<TreeNode>,
}

// Regression: samples of recursive typed arguments were invalid.
#[test]
fn recursive_typed_arguments_sample_validly() {
    // A typed tool over a recursive type: the test model must be able to
    // call it (agent-runtime.md: "arguments generated from the tool's JSON
    // Schema ... local $refs").
    let schema = serde_json::to_value(schemars::schema_for!(TreeNode)).unwrap();
    let value = sample_value(&schema);
    let parsed: Result<TreeNode, _> = serde_json::from_value(value.clone());
    assert!(parsed.is_ok(), "sample {value} does not parse: {parsed:?}");
    assert_sample_valid(&schema);
}

// Regression: sampling a string with a huge minLength did not finish promptly.
#[test]
fn large_min_length_samples_promptly() {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let value = sample_value(&json!({"type": "string", "minLength": 1_000_000}));
        let _ = sender.send(value.as_str().map_or(0, str::len));
    });
    // design.md: "nothing panics on input" -- nor should it spin; a tool
    // schema from MCP is input.
    let length = receiver.recv_timeout(Duration::from_secs(5));
    assert!(
        matches!(length, Ok(n) if n >= 1_000_000),
        "sampling one string with minLength 1e6 did not finish in 5 s: {length:?}"
    );
}

#[allow(dead_code)]
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum SearchMode {
    /// Exact match.
    Exact { field: String },
    /// Fuzzy match.
    Fuzzy { distance: u8 },
}

#[allow(dead_code)]
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct FlattenedArgs {
    /// Query text.
    query: String,
    #[serde(flatten)]
    mode: SearchMode,
}

// Regression: samples of flattened enum arguments did not parse.
#[test]
fn flattened_enum_arguments_sample_validly() {
    let schema = serde_json::to_value(schemars::schema_for!(FlattenedArgs)).unwrap();
    let value = sample_value(&schema);
    let parsed: Result<FlattenedArgs, _> = serde_json::from_value(value.clone());
    assert!(
        parsed.is_ok(),
        "sample {value} of {schema} does not parse: {parsed:?}"
    );
    assert_sample_valid(&schema);
}

// Regression: a `oneOf` whose branches only list `required` names (the
// exactly-one-of form) sampled as `{}`, which matches neither branch.
#[test]
fn one_of_required_only_branches_use_the_surrounding_properties() {
    let schema = json!({
        "type": "object",
        "properties": {"command": {"type": "string"}, "program": {"type": "string"}},
        "oneOf": [{"required": ["command"]}, {"required": ["program"]}]
    });
    assert_eq!(sample_value(&schema), json!({"command": "example"}));
    assert_sample_valid(&schema);
}

#[test]
fn one_of_skips_a_branch_whose_sample_also_matches_another() {
    // The first branch's sample `{"a": "example"}` matches the second
    // branch too (both need only `a`); the third's adds `b`, which the
    // first two forbid.
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        "oneOf": [
            {"required": ["a"], "not": {"required": ["b"]}},
            {"required": ["a"], "not": {"required": ["b"]}},
            {"required": ["a", "b"]}
        ]
    });
    assert_eq!(sample_value(&schema), json!({"a": "example", "b": 1}));
    assert_sample_valid(&schema);
}

#[test]
fn dependent_required_properties_are_added() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer", "minimum": 2}, "c": {"type": "boolean"}},
        "required": ["a"],
        "dependentRequired": {"a": ["b"], "b": ["c"]}
    });
    assert_eq!(
        sample_value(&schema),
        json!({"a": "example", "b": 2, "c": true})
    );
    assert_sample_valid(&schema);
}

#[test]
fn a_forbidden_sample_gets_a_variant() {
    assert_sample_valid(&json!({"type": "string", "not": {"const": "example"}}));
    assert_sample_valid(&json!({"type": "integer", "minimum": 1, "not": {"const": 1}}));
}

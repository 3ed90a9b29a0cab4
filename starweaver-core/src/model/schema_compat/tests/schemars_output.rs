//! Real `schemars` output through every dialect.

use std::collections::HashMap;

use schemars::{schema_for, JsonSchema};
use serde::Deserialize;
use serde_json::{json, Value};

use super::{changes, lossy_paths, strict};
use crate::model::{adapt_schema, SchemaDialect};

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Inner {
    /// The inner name.
    name: String,
    note: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Mode {
    Fast,
    Slow,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Documented {
    /// First.
    Alpha,
    /// Second.
    Beta,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Args {
    /// What to search for.
    query: String,
    /// Most results.
    #[serde(default)]
    limit: usize,
    maybe: Option<i64>,
    mode: Mode,
    documented: Documented,
    inner: Inner,
    list: Vec<Inner>,
    labels: HashMap<String, u32>,
}

fn args_schema() -> Value {
    serde_json::to_value(schema_for!(Args)).unwrap()
}

#[test]
fn schemars_output_adapts_to_every_dialect() {
    let schema = args_schema();
    for dialect in [SchemaDialect::OpenAi, SchemaDialect::Anthropic] {
        let adapted = adapt_schema(&schema, dialect).unwrap();
        assert_eq!(adapted.schema, schema);
        assert!(adapted.changes.is_empty());
    }
    let adapted = strict(&schema);
    let validator = jsonschema::validator_for(&adapted.schema).unwrap();
    assert!(validator.is_valid(&json!({
        "query": "q", "limit": null, "maybe": null, "mode": "fast", "documented": "beta",
        "inner": {"name": "n", "note": null}, "list": [], "labels": {}
    })));
}

#[test]
fn schemars_option_fields_keep_their_null() {
    let adapted = strict(&args_schema());
    assert_eq!(
        adapted.schema["properties"]["maybe"],
        json!({"type": ["integer", "null"]})
    );
    assert!(changes(&adapted).contains(&(
        "/properties/maybe".to_string(),
        "made optional property `maybe` required (it already accepts null, which stands for absent)".to_string(),
        None
    )));
    let mut arguments = json!({"maybe": null, "inner": {"name": "n", "note": null}});
    adapted.restore_arguments(&mut arguments);
    assert_eq!(
        arguments,
        json!({"maybe": null, "inner": {"name": "n", "note": null}})
    );
}

#[test]
fn schemars_serde_default_fields_become_nullable_and_restore() {
    let adapted = strict(&args_schema());
    assert_eq!(
        adapted.schema["properties"]["limit"],
        json!({"description": "Most results. Default: 0.", "type": ["integer", "null"], "minimum": 0})
    );
    let mut arguments = json!({"query": "q", "limit": null});
    adapted.restore_arguments(&mut arguments);
    assert_eq!(arguments, json!({"query": "q"}));
}

#[test]
fn schemars_enums_are_kept_or_become_any_of() {
    let adapted = strict(&args_schema());
    assert_eq!(
        adapted.schema["$defs"]["Mode"],
        json!({"type": "string", "enum": ["fast", "slow"]})
    );
    assert_eq!(
        adapted.schema["$defs"]["Documented"],
        json!({"anyOf": [
            {"description": "First.", "type": "string", "const": "alpha"},
            {"description": "Second.", "type": "string", "const": "beta"}
        ]})
    );
}

#[test]
fn schemars_nested_structs_stay_in_defs() {
    let adapted = strict(&args_schema());
    assert_eq!(
        adapted.schema["properties"]["inner"],
        json!({"$ref": "#/$defs/Inner"})
    );
    assert_eq!(
        adapted.schema["properties"]["list"]["items"],
        json!({"$ref": "#/$defs/Inner"})
    );
    assert_eq!(
        adapted.schema["$defs"]["Inner"]["required"],
        json!(["name", "note"])
    );
    assert_eq!(
        adapted.schema["$defs"]["Inner"]["additionalProperties"],
        false
    );
}

#[test]
fn schemars_hash_maps_are_the_only_loss() {
    let adapted = strict(&args_schema());
    assert_eq!(
        lossy_paths(&adapted),
        vec!["/properties/labels/additionalProperties"]
    );
    assert_eq!(
        adapted.lossy_changes().next().unwrap().lost.as_deref(),
        Some("entries beyond the declared properties (a map whose values match {\"type\":\"integer\",\"format\":\"uint32\",\"minimum\":0})")
    );
}

#[test]
fn schemars_root_refs_and_tagged_enums() {
    #[derive(Deserialize, JsonSchema)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Tagged {
        Move { to: String },
        Stop,
    }
    let tagged = serde_json::to_value(schema_for!(Tagged)).unwrap();
    for dialect in [SchemaDialect::OpenAiStrict, SchemaDialect::Anthropic] {
        let error = adapt_schema(&tagged, dialect).unwrap_err();
        assert!(
            error.help.contains("put an enum or a list in a field"),
            "{error}"
        );
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Wrapper {
        tagged: Tagged,
        #[serde(default)]
        tags: Vec<String>,
    }
    let wrapped = serde_json::to_value(schema_for!(Wrapper)).unwrap();
    let adapted = strict(&wrapped);
    assert!(adapted.is_lossless(), "{:?}", adapted.changes);
    let mut arguments = json!({"tagged": {"kind": "move", "to": "x"}, "tags": null});
    adapted.restore_arguments(&mut arguments);
    assert_eq!(arguments, json!({"tagged": {"kind": "move", "to": "x"}}));
    for dialect in [SchemaDialect::OpenAi, SchemaDialect::Anthropic] {
        adapt_schema(&wrapped, dialect).unwrap();
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(dead_code)]
enum Step {
    Move { to: String },
    Stop,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Flattened {
    name: String,
    #[serde(flatten)]
    step: Step,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct HoldsFlattened {
    flat: Flattened,
}

#[test]
fn a_flattened_enum_beside_fields_is_a_reported_loss() {
    // `additionalProperties: false` on the object forbids the alternatives' fields, and on
    // each alternative forbids the object's own: no answer fits, so it is not lossless.
    let adapted = strict(&serde_json::to_value(schema_for!(HoldsFlattened)).unwrap());
    assert!(!adapted.is_lossless(), "{:?}", adapted.changes);
    assert!(
        lossy_paths(&adapted).contains(&"/$defs/Flattened".to_string()),
        "{:?}",
        lossy_paths(&adapted)
    );
}

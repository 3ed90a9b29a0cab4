//! The strict-mode rewrite, rule by rule.

use serde_json::json;

use super::{changes, lossy_paths, strict};
use crate::model::{adapt_schema, SchemaDialect};

fn c(path: &str, change: &str, lost: Option<&str>) -> (String, String, Option<String>) {
    (
        path.to_string(),
        change.to_string(),
        lost.map(ToString::to_string),
    )
}

#[test]
fn every_object_gets_additional_properties_false_and_every_property_is_required() {
    let adapted = strict(&json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "limit": {"type": "integer"},
            "nested": {"type": "object", "properties": {"x": {"type": "boolean"}}, "required": ["x"], "additionalProperties": false}
        },
        "required": ["path", "nested"]
    }));
    assert_eq!(
        adapted.schema,
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "limit": {"type": ["integer", "null"]},
                "nested": {"type": "object", "properties": {"x": {"type": "boolean"}}, "required": ["x"], "additionalProperties": false}
            },
            "required": ["path", "limit", "nested"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        changes(&adapted),
        vec![
            c(
                "/properties/limit",
                "made optional property `limit` required and nullable",
                None
            ),
            c("", "added `additionalProperties: false`", None),
        ]
    );
    assert!(adapted.is_lossless());
}

#[test]
fn optional_properties_without_a_plain_type_are_wrapped_in_any_of() {
    let adapted = strict(&json!({
        "type": "object",
        "properties": {
            "r": {"$ref": "#/$defs/R"},
            "c": {"const": "x", "type": "string", "description": "Fixed."},
            "u": {"anyOf": [{"type": "string"}, {"type": "integer"}], "description": "Either."},
            "e": {"type": "string", "enum": ["a", "b"]},
            "t": {"type": ["string", "integer"]},
            "o": {"type": "object", "properties": {}, "description": "Options."}
        },
        "$defs": {"R": {"type": "string"}}
    }));
    assert_eq!(
        adapted.schema["properties"]["o"],
        json!({"anyOf": [{"type": "object", "properties": {}, "required": [], "additionalProperties": false}, {"type": "null"}], "description": "Options."})
    );
    let properties = &adapted.schema["properties"];
    assert_eq!(
        properties["r"],
        json!({"anyOf": [{"$ref": "#/$defs/R"}, {"type": "null"}]})
    );
    assert_eq!(
        properties["c"],
        json!({"anyOf": [{"const": "x", "type": "string"}, {"type": "null"}], "description": "Fixed."})
    );
    assert_eq!(
        properties["u"],
        json!({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}], "description": "Either."})
    );
    assert_eq!(
        properties["e"],
        json!({"type": ["string", "null"], "enum": ["a", "b", null]})
    );
    assert_eq!(
        properties["t"],
        json!({"type": ["string", "integer", "null"]})
    );
    assert!(adapted.is_lossless());
}

#[test]
fn extra_properties_the_original_allowed_are_a_reported_loss() {
    let adapted = strict(&json!({
        "type": "object",
        "properties": {
            "open": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": true},
            "map": {"type": "object", "additionalProperties": {"type": "integer"}},
            "free": {"type": "object"}
        },
        "required": ["open", "map", "free"]
    }));
    assert_eq!(
        changes(&adapted),
        vec![
            c("/properties/open/additionalProperties", "replaced `additionalProperties: true` with `false`", Some("properties beyond the declared ones")),
            c("/properties/map/additionalProperties", "replaced the `additionalProperties` schema with `false`", Some("entries beyond the declared properties (a map whose values match {\"type\":\"integer\"})")),
            c("/properties/free", "added `additionalProperties: false` to an object with no declared properties", Some("any properties: the object was free-form")),
            c("", "added `additionalProperties: false`", None),
        ]
    );
    assert_eq!(
        adapted.schema["properties"]["map"],
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
}

#[test]
fn one_of_becomes_any_of_losslessly() {
    let adapted = strict(&json!({
        "type": "object",
        "properties": {"k": {"oneOf": [{"const": "a"}, {"const": "b"}]}},
        "required": ["k"]
    }));
    assert_eq!(
        adapted.schema["properties"]["k"],
        json!({"anyOf": [{"const": "a"}, {"const": "b"}]})
    );
    assert_eq!(
        changes(&adapted)[0],
        c(
            "/properties/k/oneOf",
            "replaced `oneOf` with `anyOf` (the tool still checks that exactly one matches)",
            None
        )
    );
    assert!(adapted.is_lossless());
}

#[test]
fn a_ref_with_siblings_moves_into_a_one_branch_any_of() {
    let adapted = strict(&json!({
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/A", "description": "The A."},
            "b": {"$ref": "#/$defs/A"}
        },
        "required": ["a", "b"],
        "$defs": {"A": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}}
    }));
    assert_eq!(
        adapted.schema["properties"]["a"],
        json!({"anyOf": [{"$ref": "#/$defs/A"}], "description": "The A."})
    );
    assert_eq!(
        adapted.schema["properties"]["b"],
        json!({"$ref": "#/$defs/A"})
    );
    assert_eq!(adapted.schema["$defs"]["A"]["additionalProperties"], false);
    assert!(adapted.is_lossless());
}

#[test]
fn schemars_0_8_style_all_of_ref_becomes_any_of() {
    let adapted = strict(&json!({
        "type": "object",
        "properties": {"m": {"allOf": [{"$ref": "#/definitions/M"}], "description": "Mode."}},
        "required": ["m"],
        "definitions": {"M": {"type": "string", "enum": ["x"]}}
    }));
    assert_eq!(
        adapted.schema["properties"]["m"],
        json!({"anyOf": [{"$ref": "#/definitions/M"}], "description": "Mode."})
    );
    assert!(adapted.schema.get("definitions").is_some());
    assert!(adapted.is_lossless());
}

#[test]
fn recursion_through_defs_and_the_root_is_kept() {
    let schema = json!({
        "type": "object",
        "properties": {
            "tree": {"$ref": "#/$defs/Node"},
            "again": {"$ref": "#"}
        },
        "required": ["tree"],
        "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}
    });
    let adapted = strict(&schema);
    // An optional array is wrapped to accept null, not given `type: [array, null]`.
    assert_eq!(
        adapted.schema["$defs"]["Node"]["properties"]["children"],
        json!({"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/Node"}}, {"type": "null"}]})
    );
    assert_eq!(
        adapted.schema["properties"]["again"],
        json!({"anyOf": [{"$ref": "#"}, {"type": "null"}]})
    );
    assert!(adapted.is_lossless());
}

#[test]
fn keywords_strict_mode_lacks_move_into_the_description() {
    let adapted = strict(&json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Who", "minLength": 1, "maxLength": 40, "default": "me", "format": "uri", "examples": ["a", "b"]},
            "id": {"type": "string", "format": "uuid"},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "minItems": 1},
            "n": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255, "deprecated": true}
        },
        "required": ["name", "id", "tags", "n"]
    }));
    assert_eq!(
        adapted.schema["properties"]["name"],
        json!({"type": "string", "description": "Who. At least 1 characters. At most 40 characters. Default: \"me\". Format: uri. Examples: \"a\", \"b\"."})
    );
    assert_eq!(
        adapted.schema["properties"]["id"],
        json!({"type": "string", "format": "uuid"})
    );
    assert_eq!(
        adapted.schema["properties"]["tags"],
        json!({"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "Items must be unique."})
    );
    assert_eq!(
        adapted.schema["properties"]["n"],
        json!({"type": "integer", "minimum": 0, "maximum": 255, "description": "Deprecated."})
    );
    assert!(adapted.is_lossless());
    assert!(changes(&adapted).contains(&c(
        "/properties/name/format",
        "moved `format: uri` into the description",
        None
    )));
    assert!(changes(&adapted).contains(&c(
        "/properties/n/format",
        "removed `format: uint8`",
        None
    )));
    assert!(changes(&adapted).contains(&c(
        "/properties/name/default",
        "moved `default: me` into the description",
        None
    )));
}

#[test]
fn keywords_whose_meaning_cannot_be_kept_are_reported_lost() {
    let adapted = strict(&json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "a": {"type": "string", "not": {"const": ""}},
            "b": {"type": "object", "properties": {}, "patternProperties": {"^x": {"type": "string"}}, "minProperties": 1},
            "c": {"type": "integer", "if": {"minimum": 0}, "then": {"maximum": 9}, "else": {"maximum": -9}},
            "d": {"type": "array", "items": {"type": "integer"}, "contains": {"const": 1}},
            "e": {"type": "string", "x-vendor": true},
            "f": {"allOf": [{"type": "string"}, {"pattern": "^a"}]}
        },
        "required": ["a", "b", "c", "d", "e", "f"],
        "dependentRequired": {"a": ["b"]}
    }));
    assert_eq!(
        lossy_paths(&adapted),
        vec![
            "/properties/a/not",
            "/properties/b/patternProperties",
            "/properties/b/minProperties",
            "/properties/c/if",
            "/properties/c/then",
            "/properties/c/else",
            "/properties/d/contains",
            "/properties/e/x-vendor",
            "/properties/f/allOf",
            // With its `allOf` gone, `f` says nothing about its values.
            "/properties/f",
            "/dependentRequired",
        ]
    );
    let lost: Vec<_> = adapted
        .lossy_changes()
        .map(|change| change.lost.clone().unwrap())
        .collect();
    assert_eq!(lost[0], "a schema the value must not match");
    assert_eq!(lost[7], "an unknown keyword's meaning");
    assert_eq!(
        adapted.lossy_changes().next().unwrap().change,
        "removed `not`"
    );
    assert!(adapted.schema["properties"]["a"].get("not").is_none());
    assert!(adapted.schema.get("$schema").is_none());
    assert!(adapted.schema.get("dependentRequired").is_none());
}

#[test]
fn all_of_of_plain_objects_merges_and_keeps_original_paths() {
    let adapted = strict(&json!({
        "type": "object",
        "properties": {"x": {"allOf": [
            {"type": "object", "properties": {"p": {"type": "string"}}, "required": ["p"]},
            {"type": "object", "properties": {"q": {"type": "boolean"}}}
        ]}},
        "required": ["x"]
    }));
    assert_eq!(
        adapted.schema["properties"]["x"],
        json!({"type": "object", "properties": {"p": {"type": "string"}, "q": {"type": ["boolean", "null"]}}, "required": ["p", "q"], "additionalProperties": false})
    );
    assert!(adapted.is_lossless());
    assert!(changes(&adapted).contains(&c(
        "/properties/x/allOf/1/properties/q",
        "made optional property `q` required and nullable",
        None
    )));
}

#[test]
fn tuples_become_one_items_schema_and_lose_their_positions() {
    let adapted = strict(&json!({
        "type": "object",
        "properties": {"pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "minItems": 2, "maxItems": 2, "items": false}},
        "required": ["pair"]
    }));
    assert_eq!(
        adapted.schema["properties"]["pair"],
        json!({"type": "array", "minItems": 2, "maxItems": 2, "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}})
    );
    assert_eq!(lossy_paths(&adapted), vec!["/properties/pair/prefixItems"]);
}

#[test]
fn any_value_schemas_are_narrowed_and_reported() {
    let adapted = strict(&json!({"type": "object", "properties": {"v": true}, "required": ["v"]}));
    assert_eq!(
        adapted.schema["properties"]["v"],
        json!({"type": ["string", "number", "boolean", "null"]})
    );
    assert_eq!(lossy_paths(&adapted), vec!["/properties/v"]);
}

#[test]
fn false_properties_are_dropped_when_optional_and_refused_when_required() {
    let adapted = strict(
        &json!({"type": "object", "properties": {"never": false, "a": {"type": "string"}}, "required": ["a"]}),
    );
    assert_eq!(
        adapted.schema["properties"],
        json!({"a": {"type": "string"}})
    );
    assert!(adapted.is_lossless());
    let error = adapt_schema(
        &json!({"type": "object", "properties": {"never": false}, "required": ["never"]}),
        SchemaDialect::OpenAiStrict,
    )
    .unwrap_err();
    assert_eq!(error.path, "/properties/never");
}

#[test]
fn remote_refs_are_refused() {
    let error = adapt_schema(
        &json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}),
        SchemaDialect::OpenAiStrict,
    )
    .unwrap_err();
    assert_eq!(error.path, "/properties/a/$ref");
    assert!(error.reason.contains("only local ones"), "{error}");
}

#[test]
fn too_many_properties_or_too_deep_objects_are_refused() {
    let properties: serde_json::Map<String, serde_json::Value> = (0..5_001)
        .map(|index| (format!("p{index}"), json!({"type": "string"})))
        .collect();
    let error = adapt_schema(
        &json!({"type": "object", "properties": properties}),
        SchemaDialect::OpenAiStrict,
    )
    .unwrap_err();
    assert!(
        error.reason.contains("more than 5000 properties"),
        "{error}"
    );

    let mut schema = json!({"type": "string"});
    for _ in 0..11 {
        schema = json!({"type": "object", "properties": {"a": schema}, "required": ["a"]});
    }
    strict(&schema);
    let deeper = json!({"type": "object", "properties": {"a": schema}, "required": ["a"]});
    let error = adapt_schema(&deeper, SchemaDialect::OpenAiStrict).unwrap_err();
    assert!(error.reason.contains("nest more than 10 levels"), "{error}");
}

#[test]
fn the_output_is_deterministic_and_keeps_key_order() {
    let schema = json!({"type": "object", "title": "T", "properties": {"z": {"type": "string"}, "a": {"type": "string"}}, "description": "D."});
    let first = strict(&schema);
    let second = strict(&schema);
    assert_eq!(first, second);
    let keys: Vec<_> = first.schema.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        [
            "type",
            "title",
            "properties",
            "required",
            "additionalProperties",
            "description"
        ]
    );
    let names: Vec<_> = first.schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(names, ["z", "a"]);
}

#[test]
fn the_adapted_schema_compiles_and_accepts_restored_answers() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string", "minLength": 2}, "n": {"type": "integer", "default": 3}},
        "required": ["a"]
    });
    let adapted = strict(&schema);
    let validator = jsonschema::validator_for(&adapted.schema).unwrap();
    let mut answer = json!({"a": "hello", "n": null});
    assert!(validator.is_valid(&answer));
    adapted.restore_arguments(&mut answer);
    assert_eq!(answer, json!({"a": "hello"}));
    assert!(jsonschema::validator_for(&schema)
        .unwrap()
        .is_valid(&answer));
}

#[test]
fn untyped_schemas_are_narrowed_and_optional_ones_keep_their_null() {
    let adapted = strict(&json!({
        "type": "object",
        "properties": {"anything": {"description": "Any value.", "default": null}},
        "required": []
    }));
    assert_eq!(
        adapted.schema["properties"]["anything"],
        json!({"type": ["string", "number", "boolean", "null"], "description": "Any value."})
    );
    assert_eq!(lossy_paths(&adapted), vec!["/properties/anything"]);
    let mut arguments = json!({"anything": null});
    adapted.restore_arguments(&mut arguments);
    assert_eq!(arguments, json!({"anything": null}));
}

#[test]
fn arrays_without_items_get_scalar_items() {
    let adapted = strict(
        &json!({"type": "object", "properties": {"list": {"type": "array"}}, "required": ["list"]}),
    );
    assert_eq!(
        adapted.schema["properties"]["list"],
        json!({"type": "array", "items": {"type": ["string", "number", "boolean", "null"]}})
    );
    assert_eq!(lossy_paths(&adapted), vec!["/properties/list"]);
}

#[test]
fn refs_to_missing_definitions_are_refused() {
    // The provider refuses a schema whose local `$ref` names nothing.
    for schema in [
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing", "description": "A."}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"$ref": "#/$defs/Gone"}}}),
    ] {
        let error = adapt_schema(&schema, SchemaDialect::OpenAiStrict).unwrap_err();
        assert!(error.path.ends_with("/$ref"), "{error}");
        assert!(error.reason.contains("names nothing"), "{error}");
    }
    // References that resolve, the root and escaped names included, are kept.
    let adapted = strict(&json!({
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/a~1b"}, "r": {"$ref": "#"}},
        "required": ["a", "r"],
        "$defs": {"a/b": {"type": "string"}}
    }));
    assert_eq!(
        adapted.schema["properties"]["a"],
        json!({"$ref": "#/$defs/a~1b"})
    );
}

#[test]
fn more_enum_values_or_name_characters_than_strict_mode_takes_are_refused() {
    // 1000 enum values across the schema is the most strict mode takes.
    let values: Vec<String> = (0..600).map(|index| format!("v{index}")).collect();
    let two_enums = json!({
        "type": "object",
        "properties": {
            "a": {"type": "string", "enum": values},
            "b": {"type": "string", "enum": values}
        },
        "required": ["a", "b"]
    });
    let error = adapt_schema(&two_enums, SchemaDialect::OpenAiStrict).unwrap_err();
    assert!(error.reason.contains("1000 enum values"), "{error}");
    assert!(adapt_schema(&two_enums, SchemaDialect::OpenAi).is_ok());
    strict(&json!({"type": "object", "properties": {"a": {"enum": values}}, "required": ["a"]}));

    // More than 250 string values of one enum may hold at most 15,000 characters.
    let long: Vec<String> = (0..300).map(|index| format!("{index:0>60}")).collect();
    let error = adapt_schema(
        &json!({"type": "object", "properties": {"a": {"type": "string", "enum": long}}, "required": ["a"]}),
        SchemaDialect::OpenAiStrict,
    )
    .unwrap_err();
    assert_eq!(error.path, "/properties/a/enum");
    assert!(error.reason.contains("15000 characters"), "{error}");

    // Property names, definition names and enum and const values: 120,000 characters at most.
    let properties: serde_json::Map<String, serde_json::Value> = (0..1_000)
        .map(|index| (format!("{index:0>121}"), json!({"type": "string"})))
        .collect();
    let error = adapt_schema(
        &json!({"type": "object", "properties": properties}),
        SchemaDialect::OpenAiStrict,
    )
    .unwrap_err();
    assert!(error.reason.contains("120000 characters"), "{error}");
}

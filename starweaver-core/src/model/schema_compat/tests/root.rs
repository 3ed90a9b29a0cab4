//! The root every dialect needs, and the non-strict dialects.

use serde_json::{json, Value};

use super::strict;
use crate::model::{adapt_schema, SchemaDialect, SchemaIncompatible};

const ALL: [SchemaDialect; 3] = [
    SchemaDialect::OpenAiStrict,
    SchemaDialect::OpenAi,
    SchemaDialect::Anthropic,
];

fn refused(schema: &Value, dialect: SchemaDialect) -> SchemaIncompatible {
    adapt_schema(schema, dialect).expect_err("the dialect refuses the schema")
}

#[test]
fn an_object_root_is_unchanged_by_the_non_strict_dialects() {
    let schema = json!({"type": "object", "properties": {"a": {"type": "string", "format": "uri", "not": {"const": ""}}}});
    for dialect in [SchemaDialect::OpenAi, SchemaDialect::Anthropic] {
        let adapted = adapt_schema(&schema, dialect).unwrap();
        assert_eq!(adapted.schema, schema);
        assert!(adapted.changes.is_empty());
        assert!(adapted.is_lossless());
        let mut arguments = json!({"a": null});
        adapted.restore_arguments(&mut arguments);
        assert_eq!(arguments, json!({"a": null}));
    }
}

#[test]
fn roots_that_are_not_objects_are_refused_by_every_dialect() {
    for schema in [
        json!({"type": "string"}),
        json!({"type": ["array", "null"]}),
        json!({"enum": [1, 2]}),
        json!({"items": {"type": "string"}}),
        json!(false),
        json!(null),
        json!([{"type": "object"}]),
        json!("object"),
    ] {
        for dialect in ALL {
            let error = refused(&schema, dialect);
            assert_eq!(error.path, "", "{schema} {dialect:?}");
            assert!(error.reason.contains("must be an object schema"), "{error}");
            assert!(
                error.help.contains("make the arguments a struct"),
                "{}",
                error.help
            );
            assert!(error.to_string().starts_with("at ``: "), "{error}");
        }
    }
}

#[test]
fn a_root_without_type_gets_type_object_when_it_says_nothing_else() {
    for schema in [
        json!({"properties": {"a": {"type": "string"}}}),
        json!({}),
        json!({"description": "No arguments."}),
    ] {
        for dialect in ALL {
            let adapted = adapt_schema(&schema, dialect).unwrap();
            assert_eq!(adapted.schema["type"], "object", "{dialect:?}");
            assert_eq!(
                adapted.schema.as_object().unwrap().keys().next().unwrap(),
                "type"
            );
            assert!(adapted
                .changes
                .iter()
                .any(|change| change.change.contains("`type: object`")));
        }
    }
    // Free-form under strict: only `{}` fits now, which is a loss.
    let adapted = strict(&json!({}));
    assert!(!adapted.is_lossless());
}

#[test]
fn a_true_root_becomes_an_object() {
    let adapted = adapt_schema(&json!(true), SchemaDialect::Anthropic).unwrap();
    assert_eq!(adapted.schema, json!({"type": "object"}));
    assert!(adapted.is_lossless());
}

#[test]
fn a_root_list_of_types_with_object_is_narrowed() {
    let adapted = adapt_schema(
        &json!({"type": ["object", "null"], "properties": {}}),
        SchemaDialect::Anthropic,
    )
    .unwrap();
    assert_eq!(adapted.schema, json!({"type": "object", "properties": {}}));
    assert!(adapted.is_lossless());
}

#[test]
fn a_root_ref_is_inlined_losslessly() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": "#/$defs/Args",
        "$defs": {
            "Args": {"title": "Args", "type": "object", "properties": {"n": {"$ref": "#/$defs/N"}}, "required": ["n"]},
            "N": {"type": "integer"}
        }
    });
    for dialect in [SchemaDialect::OpenAi, SchemaDialect::Anthropic] {
        let adapted = adapt_schema(&schema, dialect).unwrap();
        assert_eq!(adapted.schema["type"], "object");
        assert_eq!(
            adapted.schema["properties"]["n"],
            json!({"$ref": "#/$defs/N"})
        );
        assert!(adapted.schema.get("$ref").is_none());
        assert_eq!(adapted.schema["$defs"], schema["$defs"]);
        assert!(adapted.is_lossless());
        assert_eq!(adapted.changes[0].path, "/$ref");
        assert_eq!(
            adapted.changes[0].change,
            "inlined the root `$ref` to `#/$defs/Args`"
        );
    }
    let adapted = strict(&schema);
    assert_eq!(adapted.schema["type"], "object");
    assert_eq!(adapted.schema["title"], "Args");
    assert_eq!(adapted.schema["additionalProperties"], false);
    assert!(adapted.schema.get("$ref").is_none());
    assert!(adapted.is_lossless());
}

#[test]
fn a_root_ref_that_names_nothing_is_refused() {
    for schema in [
        json!({"$ref": "#/$defs/Missing"}),
        json!({"$ref": "https://example.com/schema.json"}),
        json!({"$ref": "#/$defs/N", "$defs": {"N": true}}),
    ] {
        for dialect in ALL {
            let error = refused(&schema, dialect);
            assert_eq!(error.path, "/$ref", "{schema} {dialect:?}");
        }
    }
}

#[test]
fn a_root_all_of_of_objects_is_merged() {
    let schema = json!({"allOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        {"type": "object", "properties": {"b": {"type": "integer"}}}
    ]});
    for dialect in [SchemaDialect::OpenAi, SchemaDialect::Anthropic] {
        let adapted = adapt_schema(&schema, dialect).unwrap();
        assert_eq!(
            adapted.schema,
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]})
        );
        assert!(adapted.is_lossless());
    }
    let adapted = strict(&schema);
    assert_eq!(adapted.schema["required"], json!(["a", "b"]));
    assert_eq!(
        adapted.schema["properties"]["b"]["type"],
        json!(["integer", "null"])
    );
    assert!(adapted.is_lossless(), "{:?}", adapted.changes);
    assert!(adapted
        .changes
        .iter()
        .any(|change| change.path == "/allOf/1/properties/b"));
}

#[test]
fn providers_refuse_root_combinators_they_cannot_merge() {
    for (schema, keyword) in [
        (
            json!({"type": "object", "anyOf": [{"properties": {"a": {}}}, {"properties": {"b": {}}}]}),
            "anyOf",
        ),
        (
            json!({"oneOf": [{"type": "object"}, {"type": "object"}], "type": "object"}),
            "oneOf",
        ),
        (
            json!({"type": "object", "allOf": [{"type": "object", "not": {"required": ["a"]}}]}),
            "allOf",
        ),
    ] {
        for (dialect, provider) in [
            (SchemaDialect::Anthropic, "Anthropic"),
            (SchemaDialect::OpenAi, "OpenAI"),
        ] {
            let error = refused(&schema, dialect);
            assert_eq!(
                error.reason,
                format!("{provider} refuses `{keyword}` at the top of a tool's arguments schema")
            );
            assert!(error.help.contains("put an enum or a list in a field"));
        }
    }
    let error = refused(
        &json!({"anyOf": [{"type": "object"}, {"type": "null"}]}),
        SchemaDialect::Anthropic,
    );
    assert!(error.reason.contains("must be an object schema"), "{error}");
    assert!(error.reason.contains("its `anyOf` makes it"), "{error}");
}

#[test]
fn openai_also_refuses_a_root_enum_or_not() {
    for (schema, keyword) in [
        (json!({"type": "object", "enum": [{}]}), "enum"),
        (
            json!({"type": "object", "properties": {}, "not": {"required": ["a"]}}),
            "not",
        ),
    ] {
        let error = refused(&schema, SchemaDialect::OpenAi);
        assert!(error.reason.contains(&format!("`{keyword}`")), "{error}");
        adapt_schema(&schema, SchemaDialect::Anthropic).unwrap();
    }
    refused(
        &json!({"type": "object", "enum": [{}]}),
        SchemaDialect::OpenAiStrict,
    );
}

#[test]
fn strict_mode_refuses_a_root_any_of_or_one_of() {
    for schema in [
        json!({"type": "object", "anyOf": [{"properties": {"a": {"type": "string"}}}]}),
        json!({"type": "object", "oneOf": [{"properties": {"a": {"type": "string"}}}]}),
    ] {
        let error = refused(&schema, SchemaDialect::OpenAiStrict);
        assert_eq!(error.path, "");
        assert!(error.reason.contains("strict mode refuses"), "{error}");
    }
}

#[test]
fn a_depth_bomb_is_refused_without_overflowing_the_stack() {
    let mut schema = json!({"type": "string"});
    for _ in 0..100_000 {
        // Built by hand: `json!` would serialize the nested value
        // recursively.
        let mut properties = serde_json::Map::new();
        properties.insert("a".to_string(), schema);
        let mut object = serde_json::Map::new();
        object.insert("type".to_string(), json!("object"));
        object.insert("properties".to_string(), Value::Object(properties));
        schema = Value::Object(object);
    }
    for dialect in ALL {
        let error = refused(&schema, dialect);
        assert!(
            error.reason.contains("nests more than 128 levels"),
            "{error}"
        );
    }
    crate::bounds::drop_deep(schema);
}

#[test]
fn a_wide_schema_is_handled_linearly() {
    let properties: serde_json::Map<String, Value> = (0..4_000)
        .map(|index| {
            (
                format!("p{index}"),
                json!({"type": "string", "default": "x"}),
            )
        })
        .collect();
    let schema = json!({"type": "object", "properties": properties});
    let adapted = strict(&schema);
    assert_eq!(adapted.schema["required"].as_array().unwrap().len(), 4_000);
    assert!(adapted.is_lossless());
}

#[test]
fn tool_names_follow_the_provider_rule() {
    use crate::model::check_tool_name;
    assert!(check_tool_name("read_file").is_ok());
    assert!(check_tool_name("a-B_9").is_ok());
    assert!(check_tool_name(&"x".repeat(64)).is_ok());
    let long = check_tool_name(&"x".repeat(65)).unwrap_err();
    assert!(long.reason.contains("65 characters"), "{long}");
    let empty = check_tool_name("").unwrap_err();
    assert_eq!(empty.reason, "the tool name is empty");
    let bad = check_tool_name("my tool").unwrap_err();
    assert!(bad.reason.contains("' '"), "{bad}");
    assert!(bad.help.contains("rename the tool"));
    assert!(check_tool_name("café").is_err());
}

#[test]
fn hostile_shapes_are_handled_without_quadratic_or_exponential_work() {
    // One node with very many keywords, an object with very many
    // properties (all required), and branches that refer to each other.
    let mut keywords = serde_json::Map::new();
    keywords.insert("type".to_string(), json!("object"));
    keywords.insert("properties".to_string(), json!({}));
    for index in 0..100_000 {
        keywords.insert(format!("x-{index}"), json!(index));
    }
    let adapted = strict(&Value::Object(keywords));
    assert_eq!(adapted.lossy_changes().count(), 100_000);

    let names: Vec<String> = (0..100_000).map(|index| format!("p{index}")).collect();
    let properties: serde_json::Map<String, Value> = names
        .iter()
        .map(|name| (name.clone(), json!({"type": "string"})))
        .collect();
    let wide = json!({"type": "object", "properties": properties, "required": names});
    let error = adapt_schema(&wide, SchemaDialect::OpenAiStrict).unwrap_err();
    assert!(
        error.reason.contains("more than 5000 properties"),
        "{error}"
    );
    for dialect in [SchemaDialect::OpenAi, SchemaDialect::Anthropic] {
        adapt_schema(&wide, dialect).unwrap();
    }

    let mut defs = serde_json::Map::new();
    for level in 0..40 {
        let next = format!("#/$defs/D{}", level + 1);
        let branches: Vec<Value> = (0..50).map(|_| json!({"$ref": next})).collect();
        defs.insert(format!("D{level}"), json!({"anyOf": branches}));
    }
    defs.insert("D40".to_string(), json!({"type": "string"}));
    let tangled =
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/D0"}}, "$defs": defs});
    let adapted = strict(&tangled);
    assert_eq!(
        adapted.schema["properties"]["a"],
        json!({"anyOf": [{"$ref": "#/$defs/D0"}, {"type": "null"}]})
    );
}

#[test]
fn changes_display_with_their_path_and_loss() {
    use crate::model::SchemaChange;
    let lossless = SchemaChange {
        path: String::new(),
        change: "added `type: object` to the root".to_string(),
        lost: None,
    };
    assert_eq!(
        lossless.to_string(),
        "`(root)`: added `type: object` to the root"
    );
    let lossy = SchemaChange {
        path: "/properties/a/not".to_string(),
        change: "removed `not`".to_string(),
        lost: Some("a schema the value must not match".to_string()),
    };
    assert_eq!(
        lossy.to_string(),
        "`/properties/a/not`: removed `not` (loses a schema the value must not match)"
    );
}

#[test]
fn a_root_ref_target_is_reported_and_counted_once() {
    let properties: serde_json::Map<String, Value> = (0..3_000)
        .map(|index| (format!("p{index}"), json!({"type": "string"})))
        .collect();
    let schema = json!({
        "$ref": "#/$defs/Args",
        "$defs": {"Args": {"type": "object", "properties": properties, "additionalProperties": {"type": "string"}}}
    });
    let adapted = strict(&schema);
    assert_eq!(
        super::lossy_paths(&adapted),
        vec!["/$defs/Args/additionalProperties"]
    );
    assert_eq!(
        adapted
            .changes
            .iter()
            .filter(|change| change.path == "/$defs/Args/properties/p0")
            .count(),
        1
    );
}

#[test]
fn openai_gets_items_on_every_array_that_has_none() {
    // OpenAI refuses any function schema with an array that has no `items`, strict or not.
    let schema = json!({
        "type": "object",
        "properties": {
            "tags": {"type": "array"},
            "either": {"type": ["string", "array"]},
            "typed": {"type": "array", "items": {"type": "string"}},
            "nested": {"anyOf": [{"type": "array"}, {"type": "null"}]},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}]}
        },
        "$defs": {"D": {"type": "object", "properties": {"list": {"type": "array"}}}}
    });
    let adapted = adapt_schema(&schema, SchemaDialect::OpenAi).unwrap();
    let properties = &adapted.schema["properties"];
    assert_eq!(properties["tags"], json!({"type": "array", "items": {}}));
    assert_eq!(properties["either"]["items"], json!({}));
    assert_eq!(properties["typed"]["items"], json!({"type": "string"}));
    assert_eq!(properties["nested"]["anyOf"][0]["items"], json!({}));
    assert_eq!(properties["pair"]["items"], json!({}));
    assert_eq!(
        adapted.schema["$defs"]["D"]["properties"]["list"]["items"],
        json!({})
    );
    assert!(adapted.is_lossless());
    let paths: Vec<&str> = adapted
        .changes
        .iter()
        .map(|change| change.path.as_str())
        .collect();
    assert_eq!(
        paths,
        [
            "/properties/tags",
            "/properties/either",
            "/properties/nested/anyOf/0",
            "/properties/pair",
            "/$defs/D/properties/list"
        ]
    );
    // Anthropic takes such arrays as they are.
    let adapted = adapt_schema(&schema, SchemaDialect::Anthropic).unwrap();
    assert_eq!(adapted.schema, schema);
}

//! Undoing strict mode's nullable optionals on the model's answer.

use serde::Deserialize;
use serde_json::json;

use super::strict;

#[test]
fn nulls_for_made_nullable_properties_are_removed_at_every_depth() {
    let adapted = strict(&json!({
        "type": "object",
        "properties": {
            "limit": {"type": "integer"},
            "kept": {"type": ["string", "null"]},
            "inner": {"type": "object", "properties": {"deep": {"type": "string"}, "keep": {"anyOf": [{"type": "string"}, {"type": "null"}]}}},
            "list": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}, "required": ["y"]}},
            "node": {"$ref": "#/$defs/Node"}
        },
        "required": ["inner", "list"],
        "$defs": {"Node": {"type": "object", "properties": {"label": {"type": "string"}, "next": {"$ref": "#/$defs/Node"}}}}
    }));
    let mut arguments = json!({
        "limit": null,
        "kept": null,
        "inner": {"deep": null, "keep": null},
        "list": [{"x": null, "y": 1}, {"x": 2, "y": null}],
        "node": {"label": null, "next": {"label": "b", "next": {"label": null, "next": null}}}
    });
    adapted.restore_arguments(&mut arguments);
    assert_eq!(
        arguments,
        json!({
            "kept": null,
            "inner": {"keep": null},
            "list": [{"y": 1}, {"x": 2, "y": null}],
            "node": {"next": {"label": "b", "next": {}}}
        })
    );
}

#[test]
fn restored_arguments_deserialize_into_serde_default_fields() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Args {
        path: String,
        #[serde(default)]
        limit: usize,
        #[serde(default)]
        options: Options,
    }
    #[derive(Deserialize, Debug, PartialEq, Default)]
    struct Options {
        #[serde(default)]
        verbose: bool,
    }
    let adapted = strict(&json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "limit": {"type": "integer", "default": 0},
            "options": {"type": "object", "properties": {"verbose": {"type": "boolean"}}}
        },
        "required": ["path"]
    }));
    let mut arguments = json!({"path": "a", "limit": null, "options": {"verbose": null}});
    assert!(serde_json::from_value::<Args>(arguments.clone()).is_err());
    adapted.restore_arguments(&mut arguments);
    let args: Args = serde_json::from_value(arguments).unwrap();
    assert_eq!(
        args,
        Args {
            path: "a".into(),
            limit: 0,
            options: Options::default()
        }
    );
}

#[test]
fn the_branch_an_answer_came_from_is_the_one_restored() {
    let adapted = strict(&json!({
        "type": "object",
        "properties": {"action": {"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "move"}, "to": {"type": "string"}, "speed": {"type": "integer"}}, "required": ["kind", "to"]},
            {"type": "object", "properties": {"kind": {"const": "stop"}, "speed": {"type": ["integer", "null"]}}, "required": ["kind"]}
        ]}},
        "required": ["action"]
    }));
    let mut moving = json!({"action": {"kind": "move", "to": "x", "speed": null}});
    adapted.restore_arguments(&mut moving);
    assert_eq!(moving, json!({"action": {"kind": "move", "to": "x"}}));
    // `speed` was nullable in the `stop` branch: its null stays.
    let mut stopping = json!({"action": {"kind": "stop", "speed": null}});
    adapted.restore_arguments(&mut stopping);
    assert_eq!(stopping, json!({"action": {"kind": "stop", "speed": null}}));
}

#[test]
fn arrays_of_arrays_and_nullable_objects_are_restored() {
    let adapted = strict(&json!({
        "type": "object",
        "properties": {
            "grid": {"type": "array", "items": {"type": "array", "items": {"type": "object", "properties": {"v": {"type": "number"}}}}},
            "maybe": {"type": "object", "properties": {"w": {"type": "string"}}}
        },
        "required": ["grid"]
    }));
    let mut arguments = json!({"grid": [[{"v": null}, {"v": 1.5}]], "maybe": {"w": null}});
    adapted.restore_arguments(&mut arguments);
    assert_eq!(arguments, json!({"grid": [[{}, {"v": 1.5}]], "maybe": {}}));
    let mut absent = json!({"grid": [], "maybe": null});
    adapted.restore_arguments(&mut absent);
    assert_eq!(absent, json!({"grid": []}));
}

#[test]
fn a_deep_or_odd_answer_does_not_break_restoring() {
    let adapted = strict(&json!({
        "type": "object",
        "properties": {"node": {"$ref": "#/$defs/N"}},
        "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}, "v": {"type": "string"}}}}
    }));
    let mut deep = json!({"v": null});
    for _ in 0..10_000 {
        let mut object = serde_json::Map::new();
        object.insert("next".to_string(), deep);
        object.insert("v".to_string(), serde_json::Value::Null);
        deep = serde_json::Value::Object(object);
    }
    let mut top = serde_json::Map::new();
    top.insert("node".to_string(), deep);
    let mut arguments = serde_json::Value::Object(top);
    adapted.restore_arguments(&mut arguments);
    assert!(arguments["node"].get("v").is_none());
    crate::bounds::drop_deep(arguments);
    for mut odd in [
        json!(null),
        json!([1, 2]),
        json!("text"),
        json!({"node": 5}),
    ] {
        let before = odd.clone();
        adapted.restore_arguments(&mut odd);
        assert_eq!(odd, before);
    }
}

#[test]
fn restoring_through_ref_cycles_with_siblings_stays_bounded() {
    // `$ref`s beside other keywords that lead back to their own definition: each level of
    // the answer used to be walked once per hop still allowed by the depth bound, so a
    // ten-level answer took longer than any run lasts.
    let adapted = strict(&json!({
        "type": "object",
        "properties": {"n": {"$ref": "#/$defs/N"}},
        "required": ["n"],
        "$defs": {"N": {
            "$ref": "#/$defs/N",
            "type": "object",
            "properties": {"x": {"$ref": "#/$defs/N"}, "o": {"type": "string"}}
        }}
    }));
    let mut answer = json!({"x": null, "o": null});
    for _ in 0..12 {
        answer = json!({"x": answer, "o": null});
    }
    let mut arguments = json!({ "n": answer });
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        adapted.restore_arguments(&mut arguments);
        let _ = sender.send(arguments);
    });
    // A generous bound only so a regression fails instead of hanging the suite.
    let restored = receiver
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("restoring finishes");
    let mut inner = &restored["n"];
    for _ in 0..12 {
        assert!(inner.get("o").is_none(), "{inner}");
        inner = &inner["x"];
    }
    assert_eq!(inner, &json!({}));
}

#[test]
fn a_ref_branch_whose_definition_needs_no_undoing_still_counts_when_choosing() {
    // `A` requires all of `a`, a nullable `b` and `c`; `B` has `b` optional. An answer
    // from `A` with `b: null` keeps its null: `A` is the branch with the most fitting keys.
    let adapted = strict(&json!({
        "type": "object",
        "properties": {"v": {"anyOf": [{"$ref": "#/$defs/B"}, {"$ref": "#/$defs/A"}]}},
        "required": ["v"],
        "$defs": {
            "A": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": ["string", "null"]}, "c": {"type": "string"}}, "required": ["a", "b", "c"]},
            "B": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["a"]}
        }
    }));
    let mut from_a = json!({"v": {"a": "x", "b": null, "c": "y"}});
    adapted.restore_arguments(&mut from_a);
    assert_eq!(from_a, json!({"v": {"a": "x", "b": null, "c": "y"}}));
    let mut from_b = json!({"v": {"a": 1, "b": null}});
    adapted.restore_arguments(&mut from_b);
    assert_eq!(from_b, json!({"v": {"a": 1}}));
}

#[test]
fn an_array_branch_behind_a_ref_is_restored() {
    let adapted = strict(&json!({
        "type": "object",
        "properties": {"v": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/L"}]}},
        "required": ["v"],
        "$defs": {"L": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "integer"}}}}}
    }));
    let mut arguments = json!({"v": [{"x": null}, {"x": 1}]});
    adapted.restore_arguments(&mut arguments);
    assert_eq!(arguments, json!({"v": [{}, {"x": 1}]}));
}

#[test]
fn a_null_type_whose_enum_leaves_null_out_is_made_nullable() {
    // `type` allows null but `enum` does not, so the original never took null: the
    // property is made nullable (null joins the enum) and its null removed again.
    let adapted = strict(&json!({
        "type": "object",
        "properties": {"unit": {"type": ["string", "null"], "enum": ["c", "f"]}}
    }));
    assert_eq!(
        adapted.schema["properties"]["unit"]["enum"],
        json!(["c", "f", null])
    );
    let mut arguments = json!({"unit": null});
    adapted.restore_arguments(&mut arguments);
    assert_eq!(arguments, json!({}));
}

//! The root every provider needs: an object schema. Shared by all
//! dialects; the only transform the non-strict dialects apply.

use serde_json::{Map, Value};

use super::pointer::{child, resolve_chain};
use super::{SchemaChange, SchemaDialect, SchemaIncompatible};

/// The help every "the root is not an object" error gives.
pub(super) const ROOT_HELP: &str =
    "make the arguments a struct (an object with named fields); put an enum or a list in a field";

/// Keys a plain object schema in an `allOf` may have and still merge.
const PLAIN_OBJECT_KEYS: [&str; 7] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "title",
    "description",
    "$comment",
];

/// Keys that make a schema without `type` something other than an
/// object, so a root without `type` cannot simply be called an object.
const NON_OBJECT_KEYS: [&str; 16] = [
    "items",
    "prefixItems",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "not",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
];

/// One object schema merged into another, with its pointer into the
/// original schema.
pub(super) struct Part<'a> {
    /// The part's keywords.
    pub map: &'a Map<String, Value>,
    /// Where the part is in the original schema.
    pub path: String,
}

/// The parts of an `allOf` at `path` when every one is a plain object
/// schema (only `type: object`, `properties`, `required`,
/// `additionalProperties`, annotations) and no property is declared twice
/// with different schemas. `refs` lets a part be a local `$ref` (only at
/// the root, so no target is copied more than once).
pub(super) fn mergeable_parts<'a>(
    root: &'a Value,
    all_of: &'a [Value],
    path: &str,
    refs: bool,
) -> Option<Vec<Part<'a>>> {
    let mut parts = Vec::with_capacity(all_of.len());
    let mut seen: Map<String, Value> = Map::new();
    for (index, part) in all_of.iter().enumerate() {
        let (map, part_path) = match part.get("$ref").and_then(Value::as_str) {
            Some(reference) if refs && part.as_object().is_some_and(|map| map.len() == 1) => {
                let (target, pointer) = resolve_chain(root, reference)?;
                (target.as_object()?, pointer)
            }
            _ => (
                part.as_object()?,
                child(&child(path, "allOf"), &index.to_string()),
            ),
        };
        if !is_plain_object(map) {
            return None;
        }
        if let Some(properties) = map.get("properties").and_then(Value::as_object) {
            for (name, schema) in properties {
                match seen.get(name) {
                    Some(earlier) if earlier != schema => return None,
                    Some(_) => {}
                    None => {
                        seen.insert(name.clone(), schema.clone());
                    }
                }
            }
        }
        parts.push(Part {
            map,
            path: part_path,
        });
    }
    Some(parts)
}

fn is_plain_object(map: &Map<String, Value>) -> bool {
    map.keys()
        .all(|key| PLAIN_OBJECT_KEYS.contains(&key.as_str()))
        && map
            .get("type")
            .is_none_or(|kind| kind.as_str() == Some("object"))
        && map.get("properties").is_none_or(Value::is_object)
        && map.get("required").is_none_or(Value::is_array)
        && map
            .get("additionalProperties")
            .is_none_or(Value::is_boolean)
}

/// True when a schema without `type` says it is something other than an
/// object.
pub(super) fn implies_non_object(map: &Map<String, Value>) -> bool {
    !map.contains_key("properties") && NON_OBJECT_KEYS.iter().any(|key| map.contains_key(*key))
}

/// The error for a root that is not an object schema.
pub(super) fn not_an_object(what: &str) -> SchemaIncompatible {
    SchemaIncompatible::new(
        "",
        format!("the arguments schema must be an object schema (`type: object`), but {what}"),
        ROOT_HELP,
    )
}

/// The error for a root combinator a provider refuses.
pub(super) fn root_combinator(keyword: &str, provider: &str) -> SchemaIncompatible {
    SchemaIncompatible::new(
        "",
        format!("{provider} refuses `{keyword}` at the top of a tool's arguments schema"),
        ROOT_HELP,
    )
}

/// A description of a root that is not an object map, for errors.
pub(super) fn describe_non_map(schema: &Value) -> &'static str {
    match schema {
        Value::Bool(false) => "it is `false` (nothing matches)",
        Value::Bool(true) => "it is `true`",
        Value::Null => "it is `null`",
        Value::Array(_) => "it is an array",
        Value::String(_) => "it is a string",
        Value::Number(_) => "it is a number",
        Value::Object(_) => "it is an object",
    }
}

/// The root of `schema` made an object schema for the non-strict
/// dialects: `true` becomes `{type: object}`, a root `$ref` is inlined, a
/// root `allOf` of plain objects merged, a missing `type` added.
pub(super) fn normalize(
    schema: &Value,
    dialect: SchemaDialect,
) -> Result<(Value, Vec<SchemaChange>), SchemaIncompatible> {
    let mut changes = Vec::new();
    let map = match schema {
        Value::Object(map) => map,
        Value::Bool(true) => {
            changes.push(SchemaChange {
                path: String::new(),
                change: "replaced the `true` schema with `type: object`".to_string(),
                lost: None,
            });
            let mut object = Map::new();
            object.insert("type".to_string(), Value::from("object"));
            return Ok((Value::Object(object), changes));
        }
        other => return Err(not_an_object(describe_non_map(other))),
    };
    let mut out = match map.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let target = inline_root_ref(schema, map, reference)?;
            changes.push(inlined_change(reference));
            target
        }
        None => map.clone(),
    };
    if let Some(all_of) = out.get("allOf").and_then(Value::as_array) {
        if let Some(parts) = mergeable_parts(schema, all_of, "", true) {
            let merged = merge_parts(&out, &parts);
            out = merged;
            changes.push(SchemaChange {
                path: "/allOf".to_string(),
                change: "merged the root `allOf` of object schemas into one object".to_string(),
                lost: None,
            });
        }
    }
    ensure_object_type(&mut out, &mut changes)?;
    refuse_root_keywords(&out, dialect)?;
    Ok((Value::Object(out), changes))
}

/// Refuses the keywords `dialect`'s provider does not take at the top of
/// an arguments schema, even beside `type: object`: OpenAI refuses
/// `oneOf`, `anyOf`, `allOf`, `enum` and `not`; Anthropic `oneOf`, `anyOf`
/// and `allOf`.
pub(super) fn refuse_root_keywords(
    out: &Map<String, Value>,
    dialect: SchemaDialect,
) -> Result<(), SchemaIncompatible> {
    let (keywords, provider): (&[&str], &str) = match dialect {
        SchemaDialect::OpenAi => (&["anyOf", "oneOf", "allOf", "enum", "not"], "OpenAI"),
        SchemaDialect::OpenAiStrict => (
            &["anyOf", "oneOf", "allOf", "enum", "not"],
            "OpenAI strict mode",
        ),
        SchemaDialect::Anthropic => (&["anyOf", "oneOf", "allOf"], "Anthropic"),
    };
    match keywords.iter().find(|keyword| out.contains_key(**keyword)) {
        Some(keyword) => Err(root_combinator(keyword, provider)),
        None => Ok(()),
    }
}

/// The change reported for an inlined root `$ref`.
pub(super) fn inlined_change(reference: &str) -> SchemaChange {
    SchemaChange {
        path: "/$ref".to_string(),
        change: format!("inlined the root `$ref` to `{reference}`"),
        lost: None,
    }
}

/// The root's target with the root's other keywords (`$defs`, `$schema`,
/// annotations) kept beside it; the root's own annotations win.
fn inline_root_ref(
    schema: &Value,
    map: &Map<String, Value>,
    reference: &str,
) -> Result<Map<String, Value>, SchemaIncompatible> {
    let unresolved = || {
        SchemaIncompatible::new(
            "/$ref",
            format!("the root `$ref` `{reference}` does not name an object schema in this schema"),
            "point the root `$ref` at a definition under `$defs`, or inline the object",
        )
    };
    let (target, _) = resolve_chain(schema, reference).ok_or_else(unresolved)?;
    let mut out = target.as_object().ok_or_else(unresolved)?.clone();
    for (key, value) in map {
        if key != "$ref" {
            out.insert(key.clone(), value.clone());
        }
    }
    Ok(out)
}

/// `base` (minus its `allOf`) with every part's properties and required
/// names added.
pub(super) fn merge_parts(base: &Map<String, Value>, parts: &[Part<'_>]) -> Map<String, Value> {
    let mut out = Map::new();
    let mut properties = base
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut required: Vec<Value> = base
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut seen: std::collections::HashSet<String> = required
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    for part in parts {
        if let Some(part_properties) = part.map.get("properties").and_then(Value::as_object) {
            for (name, property) in part_properties {
                properties
                    .entry(name.clone())
                    .or_insert_with(|| property.clone());
            }
        }
        for name in part
            .map
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if name
                .as_str()
                .is_some_and(|text| seen.insert(text.to_owned()))
            {
                required.push(name.clone());
            }
        }
    }
    for (key, value) in base {
        if key != "allOf" && key != "properties" && key != "required" {
            out.insert(key.clone(), value.clone());
        }
    }
    for part in parts {
        for key in ["title", "description", "additionalProperties"] {
            if let Some(value) = part.map.get(key) {
                out.entry(key.to_string()).or_insert_with(|| value.clone());
            }
        }
    }
    out.insert("type".to_string(), Value::from("object"));
    out.insert("properties".to_string(), Value::Object(properties));
    out.insert("required".to_string(), Value::Array(required));
    out
}

/// Checks the root's `type` is `object`, adding it when missing and the
/// schema says nothing else, narrowing `["object", ...]` to `object`.
pub(super) fn ensure_object_type(
    out: &mut Map<String, Value>,
    changes: &mut Vec<SchemaChange>,
) -> Result<(), SchemaIncompatible> {
    match out.get("type") {
        None if implies_non_object(out) => {
            let keyword = NON_OBJECT_KEYS
                .iter()
                .find(|key| out.contains_key(**key))
                .copied()
                .unwrap_or("type");
            Err(not_an_object(&format!(
                "it has no `type`, and its `{keyword}` makes it something other than one object"
            )))
        }
        None => {
            let mut typed = Map::with_capacity(out.len() + 1);
            typed.insert("type".to_string(), Value::from("object"));
            typed.extend(std::mem::take(out));
            *out = typed;
            changes.push(SchemaChange {
                path: String::new(),
                change: "added `type: object` to the root".to_string(),
                lost: None,
            });
            Ok(())
        }
        Some(Value::String(kind)) if kind == "object" => Ok(()),
        Some(Value::Array(kinds)) if kinds.iter().any(|kind| kind == "object") => {
            out.insert("type".to_string(), Value::from("object"));
            changes.push(SchemaChange {
                path: "/type".to_string(),
                change: "narrowed the root `type` to `object` (arguments are always an object)"
                    .to_string(),
                lost: None,
            });
            Ok(())
        }
        Some(Value::String(kind)) => Err(not_an_object(&format!("its `type` is `{kind}`"))),
        Some(_) => Err(not_an_object("its `type` does not include `object`")),
    }
}

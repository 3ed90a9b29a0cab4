//! The strict-mode transform: the whole schema rewritten to the subset
//! OpenAI enforces with `strict: true`, every change reported.

mod combinators;
mod keywords;
mod limits;
mod nullable;
mod object;

use std::collections::{HashMap, HashSet};

use serde_json::{json, Map, Value};

use super::pointer::child;
use super::restore::{Restore, RestoreNode};
use super::root::{
    describe_non_map, ensure_object_type, implies_non_object, inlined_change, mergeable_parts,
    not_an_object, refuse_root_keywords, Part,
};
use super::{AdaptedSchema, SchemaChange, SchemaDialect, SchemaIncompatible};
use crate::bounds::MAX_JSON_DEPTH;
use keywords::{classify, describe, plain, Action};
use nullable::is_untyped;
use object::ObjectParts;

/// Most object properties strict mode takes in one schema.
const MAX_PROPERTIES: usize = 5_000;

/// Deepest object nesting strict mode takes below the root.
const MAX_OBJECT_NESTING: usize = 10;

/// What strict mode takes for "any value": it has no way to say "any
/// object" or "any array" (objects need every property declared).
const ANY_SCALAR: [&str; 4] = ["string", "number", "boolean", "null"];

/// What replacing "any value" with [`ANY_SCALAR`] loses.
const ANY_VALUE_LOST: &str = "objects and arrays: the schema accepted any JSON value";

/// Longest tuple whose repeated position schemas are merged into one.
const MAX_DEDUPED_TUPLE: usize = 32;

/// How many schemas telling whether one accepts null may look at.
const NULL_CHECK_BUDGET: usize = 64;

/// Adapts `schema` to strict mode.
pub(super) fn adapt(schema: &Value) -> Result<AdaptedSchema, SchemaIncompatible> {
    let mut walker = Walker {
        root: schema,
        changes: Vec::new(),
        defs: HashMap::new(),
        properties: 0,
        sizes: limits::Sizes::default(),
        inlined: None,
    };
    let any_object = json!({"type": "object"});
    let start = match schema {
        Value::Object(_) => schema,
        Value::Bool(true) => {
            walker.changes.push(SchemaChange {
                path: String::new(),
                change: "replaced the `true` schema with `type: object`".to_string(),
                lost: None,
            });
            &any_object
        }
        other => return Err(not_an_object(describe_non_map(other))),
    };
    let (mut adapted, root) = walker.node(start, "", 0, Level::Root)?;
    if let Value::Object(map) = &mut adapted {
        ensure_object_type(map, &mut walker.changes)?;
        refuse_root_keywords(map, SchemaDialect::OpenAiStrict)?;
    }
    walker.sizes.check()?;
    let mut defs = walker.defs;
    defs.shrink_to_fit();
    Ok(AdaptedSchema {
        schema: adapted,
        changes: walker.changes,
        restore: Restore { root, defs },
    })
}

/// Where a node sits, for the rules that differ at the root.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    /// The arguments schema itself.
    Root,
    /// Inside it, `objects` object schemas deep.
    Nested { objects: usize },
}

impl Level {
    fn objects(self) -> usize {
        match self {
            Self::Root => 0,
            Self::Nested { objects } => objects,
        }
    }
}

struct Walker<'a> {
    root: &'a Value,
    changes: Vec<SchemaChange>,
    defs: HashMap<String, RestoreNode>,
    properties: usize,
    /// What counts toward strict mode's limits on enum values and name lengths.
    sizes: limits::Sizes,
    /// Where the root `$ref` pointed: that definition is walked twice (as
    /// the root and under `$defs`), and reported and counted once.
    inlined: Option<String>,
}

impl<'a> Walker<'a> {
    fn change(&mut self, path: impl Into<String>, change: impl Into<String>) {
        self.changes.push(SchemaChange {
            path: path.into(),
            change: change.into(),
            lost: None,
        });
    }

    fn loss(
        &mut self,
        path: impl Into<String>,
        change: impl Into<String>,
        lost: impl Into<String>,
    ) {
        self.changes.push(SchemaChange {
            path: path.into(),
            change: change.into(),
            lost: Some(lost.into()),
        });
    }

    fn node(
        &mut self,
        schema: &'a Value,
        path: &str,
        depth: usize,
        level: Level,
    ) -> Result<(Value, RestoreNode), SchemaIncompatible> {
        if depth > MAX_JSON_DEPTH {
            return Err(SchemaIncompatible::new(
                path,
                format!("the schema nests more than {MAX_JSON_DEPTH} levels deep"),
                "flatten the argument types; no provider takes schemas this deep",
            ));
        }
        match schema {
            Value::Object(map) => self.object_node(map, path, depth, level),
            Value::Bool(true) => {
                self.loss(
                    path,
                    "replaced the `true` schema (any value) with `type: [string, number, boolean, null]`",
                    ANY_VALUE_LOST,
                );
                Ok((json!({ "type": ANY_SCALAR }), RestoreNode::default()))
            }
            Value::Bool(false) => Err(SchemaIncompatible::new(
                path,
                "a `false` schema accepts no value; strict mode cannot express it",
                "remove the field, or give it a type",
            )),
            _ => Err(SchemaIncompatible::new(
                path,
                "a schema must be an object or a boolean",
                "fix the tool's parameter schema",
            )),
        }
    }

    #[allow(clippy::too_many_lines)]
    fn object_node(
        &mut self,
        map: &'a Map<String, Value>,
        path: &str,
        depth: usize,
        level: Level,
    ) -> Result<(Value, RestoreNode), SchemaIncompatible> {
        let root = level == Level::Root;
        let mut parts = vec![Part {
            map,
            path: path.to_string(),
        }];
        if root {
            if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                let target = self.root_target(reference)?;
                self.inlined = Some(target.path.clone());
                parts.push(target);
                self.changes.push(inlined_change(reference));
            }
        }
        let mut merged_all_of = false;
        if let Some(all_of) = map.get("allOf").and_then(Value::as_array) {
            if let Some(more) = mergeable_parts(self.root, all_of, path, root) {
                parts.extend(more);
                merged_all_of = true;
                self.change(
                    child(path, "allOf"),
                    "merged `allOf` of object schemas into one object",
                );
            }
        }

        // The keywords of all parts, the first part's winning; object
        // keywords gathered across parts and emitted where the first was.
        let mut entries: Vec<(&'a str, &'a Value, String)> = Vec::new();
        let mut seen_keys: HashSet<&'a str> = HashSet::new();
        let mut object = ObjectParts::default();
        let mut object_at: Option<usize> = None;
        for part in &parts {
            for (key, value) in part.map {
                let key = key.as_str();
                if (root && key == "$ref" && std::ptr::eq(part.map, map))
                    || (merged_all_of && key == "allOf")
                {
                    continue;
                }
                let key_path = child(&part.path, key);
                match key {
                    "properties" => {
                        object.declares_properties = true;
                        if let Some(properties) = value.as_object() {
                            for (name, property) in properties {
                                if object.names.insert(name) {
                                    let property_path = child(&key_path, name);
                                    object.properties.push((name, property, property_path));
                                }
                            }
                        }
                    }
                    "required" => object.required.extend(
                        value
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_str),
                    ),
                    "additionalProperties" => {
                        if object.additional.is_none() {
                            object.additional = Some((value, key_path));
                        }
                    }
                    _ => {
                        if seen_keys.insert(key) {
                            entries.push((key, value, key_path));
                        }
                        continue;
                    }
                }
                object_at.get_or_insert(entries.len());
            }
        }
        let kind = map
            .get("type")
            .or_else(|| parts.iter().find_map(|part| part.map.get("type")));
        let says_object = match kind {
            Some(Value::String(kind)) => kind == "object",
            Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "object"),
            _ => false,
        };
        let is_object = says_object
            || object_at.is_some()
            || (root && kind.is_none() && !implies_non_object(map));

        let mut out = Map::new();
        let mut restore = RestoreNode::default();
        let mut notes: Vec<String> = Vec::new();
        if is_object && kind.is_none() {
            out.insert("type".to_string(), Value::from("object"));
            self.change(path, "added `type: object`");
        }
        let objects = if is_object {
            level.objects() + 1
        } else {
            level.objects()
        };
        if objects > MAX_OBJECT_NESTING + 1 {
            return Err(SchemaIncompatible::new(
                path,
                format!("objects nest more than {MAX_OBJECT_NESTING} levels deep, more than strict mode allows"),
                "flatten the argument types, or turn strict mode off for this tool",
            ));
        }
        let inner = Level::Nested { objects };
        let has_combinator = map.contains_key("anyOf") || map.contains_key("oneOf");
        object.beside_alternatives = has_combinator;
        let mut prefix_items: Option<(Vec<Value>, Vec<RestoreNode>, String)> = None;

        for (index, (key, value, key_path)) in entries.iter().enumerate() {
            if object_at == Some(index) {
                self.emit_object(&object, path, depth, inner, &mut out, &mut restore)?;
            }
            let key = *key;
            match key {
                "$defs" | "definitions" => {
                    let mut adapted = Map::new();
                    if let Some(defs) = value.as_object() {
                        for (name, def) in defs {
                            self.sizes.name(name);
                            let def_path = child(key_path, name);
                            let again = self.inlined.as_deref() == Some(def_path.as_str());
                            let (reported, counted, sizes) =
                                (self.changes.len(), self.properties, self.sizes);
                            let (schema, node) = self.node(def, &def_path, depth + 1, Level::Nested { objects: 0 })?;
                            if again {
                                self.changes.truncate(reported);
                                self.properties = counted;
                                self.sizes = sizes;
                            }
                            // An object definition is kept even with nothing to undo:
                            // its keys tell `anyOf` branches that refer to it apart.
                            if node.has_work() || node.object.is_some() {
                                self.defs.insert(format!("#{def_path}"), node);
                            }
                            adapted.insert(name.clone(), schema);
                        }
                    }
                    out.insert(key.to_string(), Value::Object(adapted));
                }
                "items" => match value {
                    Value::Array(tuple) => {
                        prefix_items = Some(self.tuple(tuple, key_path, depth, inner)?);
                    }
                    Value::Bool(false) if map.contains_key("prefixItems") => {}
                    _ => {
                        let (schema, node) = self.node(value, key_path, depth + 1, inner)?;
                        if node.has_work() {
                            restore.items = Some(Box::new(node));
                        }
                        out.insert("items".to_string(), schema);
                    }
                },
                "prefixItems" => match value.as_array() {
                    Some(tuple) if !map.get("items").is_some_and(|items| items.is_object()) => {
                        prefix_items = Some(self.tuple(tuple, key_path, depth, inner)?);
                    }
                    _ => self.loss(
                        key_path.clone(),
                        "removed `prefixItems`",
                        "the schema of each tuple position",
                    ),
                },
                "anyOf" => {
                    let branches = self.branches(value, key_path, depth, inner, &mut restore)?;
                    out.insert("anyOf".to_string(), branches);
                }
                "oneOf" if map.contains_key("anyOf") => self.loss(
                    key_path.clone(),
                    "removed `oneOf` beside `anyOf`",
                    "the `oneOf` alternatives (strict mode has only `anyOf`)",
                ),
                "oneOf" => {
                    let branches = self.branches(value, key_path, depth, inner, &mut restore)?;
                    out.insert("anyOf".to_string(), branches);
                    self.change(
                        key_path.clone(),
                        "replaced `oneOf` with `anyOf` (the tool still checks that exactly one matches)",
                    );
                }
                "allOf" => match value.as_array() {
                    Some(single) if single.len() == 1 && !has_combinator && !map.contains_key("$ref") => {
                        let branches = self.branches(value, key_path, depth, inner, &mut restore)?;
                        out.insert("anyOf".to_string(), branches);
                        self.change(
                            key_path.clone(),
                            "replaced a one-schema `allOf` with a one-branch `anyOf`",
                        );
                    }
                    _ => self.loss(
                        key_path.clone(),
                        "removed `allOf`",
                        "the schemas the value must also match (`allOf` is not supported and these do not merge)",
                    ),
                },
                "$ref" => self.reference(map, value, key_path, has_combinator, &mut out, &mut restore)?,
                "type" => {
                    out.insert("type".to_string(), (*value).clone());
                }
                _ => match classify(key, value) {
                    Action::Keep => {
                        self.sizes.keyword(key, value, key_path)?;
                        out.insert(key.to_string(), (*value).clone());
                    }
                    Action::Describe(note) => {
                        notes.push(note);
                        self.change(
                            key_path.clone(),
                            format!("moved `{key}: {}` into the description", plain(value)),
                        );
                    }
                    Action::Drop => {
                        self.change(key_path.clone(), format!("removed `{key}: {}`", plain(value)));
                    }
                    Action::Lose(lost) => {
                        self.loss(key_path.clone(), format!("removed `{key}`"), lost);
                    }
                },
            }
        }
        if object_at == Some(entries.len()) || (is_object && object_at.is_none()) {
            self.emit_object(&object, path, depth, inner, &mut out, &mut restore)?;
        }
        if let Some((branches, nodes, tuple_path)) = prefix_items {
            let items = if branches.len() == 1 {
                branches.into_iter().next().unwrap_or(Value::Bool(true))
            } else {
                json!({ "anyOf": branches })
            };
            out.insert("items".to_string(), items);
            if nodes.iter().any(RestoreNode::has_work) {
                restore.items = Some(Box::new(RestoreNode {
                    branches: nodes,
                    ..RestoreNode::default()
                }));
            }
            self.loss(
                tuple_path,
                "replaced the tuple's per-position schemas with one `items` schema",
                "which position holds which type",
            );
        }
        let says_array = match out.get("type") {
            Some(Value::String(kind)) => kind == "array",
            Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "array"),
            _ => false,
        };
        if says_array && !out.contains_key("items") {
            out.insert("items".to_string(), json!({ "type": ANY_SCALAR }));
            self.loss(
                path,
                "gave the array without `items` the items `type: [string, number, boolean, null]`",
                "objects and arrays as items: the array took items of any kind",
            );
        }
        if !root && is_untyped(&out) {
            let mut typed = Map::with_capacity(out.len() + 1);
            typed.insert("type".to_string(), json!(ANY_SCALAR));
            typed.extend(out);
            out = typed;
            self.loss(
                path,
                "gave the untyped schema (any value) `type: [string, number, boolean, null]`",
                ANY_VALUE_LOST,
            );
        }
        if !notes.is_empty() {
            let text = describe(out.get("description").and_then(Value::as_str), &notes);
            out.insert("description".to_string(), Value::from(text));
        }
        Ok((Value::Object(out), restore))
    }
}

//! The walker's object rules: every property required (optional ones
//! nullable), `additionalProperties: false`, and what that loses.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::super::restore::{ObjectRestore, RestoreNode};
use super::super::SchemaIncompatible;
use super::keywords::compact;
use super::nullable::{accepts_null, make_nullable};
use super::{Level, Walker, MAX_PROPERTIES, NULL_CHECK_BUDGET};

/// The object keywords of a node and its merged parts, gathered with
/// their paths in the original schema.
#[derive(Default)]
pub(super) struct ObjectParts<'a> {
    pub properties: Vec<(&'a str, &'a Value, String)>,
    /// The names in `properties`, to keep the first of a repeated one.
    pub names: HashSet<&'a str>,
    pub required: HashSet<&'a str>,
    pub additional: Option<(&'a Value, String)>,
    pub declares_properties: bool,
    /// The object also has `anyOf`/`oneOf` alternatives (a flattened enum).
    pub beside_alternatives: bool,
}

impl<'a> Walker<'a> {
    /// `properties` (every one required, optional ones nullable),
    /// `required` and `additionalProperties: false`.
    pub(super) fn emit_object(
        &mut self,
        object: &ObjectParts<'a>,
        path: &str,
        depth: usize,
        level: Level,
        out: &mut Map<String, Value>,
        restore: &mut RestoreNode,
    ) -> Result<(), SchemaIncompatible> {
        self.properties += object.properties.len();
        if self.properties > MAX_PROPERTIES {
            return Err(SchemaIncompatible::new(
                path,
                format!("the schema has more than {MAX_PROPERTIES} properties, more than strict mode allows"),
                "split the tool, or turn strict mode off for it",
            ));
        }
        let mut properties = Map::new();
        let mut required = Vec::with_capacity(object.properties.len());
        let mut undo = ObjectRestore::default();
        for (name, schema, property_path) in &object.properties {
            let is_required = object.required.contains(name);
            if *schema == &Value::Bool(false) {
                if is_required {
                    return Err(SchemaIncompatible::new(
                        property_path.clone(),
                        format!("required property `{name}` has the schema `false`, so no arguments are valid"),
                        "remove the property, or give it a type",
                    ));
                }
                self.change(
                    property_path.clone(),
                    format!("removed optional property `{name}` whose schema is `false` (it can never be sent)"),
                );
                continue;
            }
            self.sizes.name(name);
            let (mut adapted, node) = self.node(schema, property_path, depth + 2, level)?;
            if !is_required {
                if accepts_null(schema, self.root, &mut NULL_CHECK_BUDGET.clone()) {
                    self.change(
                        property_path.clone(),
                        format!("made optional property `{name}` required (it already accepts null, which stands for absent)"),
                    );
                } else {
                    adapted = make_nullable(adapted);
                    self.sizes.null_joined_enum(schema, &adapted);
                    undo.drop_null.push((*name).to_string());
                    self.change(
                        property_path.clone(),
                        format!("made optional property `{name}` required and nullable"),
                    );
                }
            }
            if let Some(fixed) = tag(schema) {
                undo.tags.push(((*name).to_string(), fixed.clone()));
            }
            if node.has_work() {
                undo.children.push(((*name).to_string(), node));
            }
            undo.keys.push((*name).to_string());
            required.push(Value::from(*name));
            properties.insert((*name).to_string(), adapted);
        }
        out.insert("properties".to_string(), Value::Object(properties));
        out.insert("required".to_string(), Value::Array(required));
        self.additional_properties(object, path);
        out.insert("additionalProperties".to_string(), Value::Bool(false));
        restore.object = Some(undo);
        Ok(())
    }

    /// Reports what forcing `additionalProperties: false` changes.
    fn additional_properties(&mut self, object: &ObjectParts<'a>, path: &str) {
        match &object.additional {
            Some((Value::Bool(false), _)) => {}
            Some((Value::Bool(true), at)) => self.loss(
                at.clone(),
                "replaced `additionalProperties: true` with `false`",
                "properties beyond the declared ones",
            ),
            Some((schema, at)) => self.loss(
                at.clone(),
                "replaced the `additionalProperties` schema with `false`",
                format!(
                    "entries beyond the declared properties (a map whose values match {})",
                    crate::bounds::shorten(&compact(schema), 120)
                ),
            ),
            None if object.declares_properties && object.beside_alternatives => self.loss(
                path,
                "added `additionalProperties: false` to an object that also has `anyOf`/`oneOf` alternatives",
                "the alternatives' properties beside the object's own: each side now forbids the other's (a flattened enum needs strict mode off, or its fields in each alternative)",
            ),
            None if object.declares_properties => {
                self.change(path, "added `additionalProperties: false`");
            }
            None => self.loss(
                path,
                "added `additionalProperties: false` to an object with no declared properties",
                "any properties: the object was free-form",
            ),
        }
    }
}

/// The fixed value of a property (`const`, or a one-value `enum`), which
/// tells tagged `anyOf` branches apart.
fn tag(schema: &Value) -> Option<&Value> {
    schema.get("const").or_else(|| {
        schema
            .get("enum")
            .and_then(Value::as_array)
            .filter(|values| values.len() == 1)
            .and_then(|values| values.first())
    })
}

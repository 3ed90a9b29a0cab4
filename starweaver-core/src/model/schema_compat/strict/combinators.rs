//! The walker's combinators and references: `$ref`, `anyOf`/`oneOf`/`allOf`
//! branches, tuples and the root's `$ref` target.

use serde_json::{json, Map, Value};

use super::super::pointer::{child, local_pointer, resolve, resolve_chain};
use super::super::restore::RestoreNode;
use super::super::root::Part;
use super::super::SchemaIncompatible;
use super::{Level, Walker, MAX_DEDUPED_TUPLE};

impl<'a> Walker<'a> {
    /// The part a root `$ref` contributes: its target, inlined.
    pub(super) fn root_target(&self, reference: &str) -> Result<Part<'a>, SchemaIncompatible> {
        let (target, pointer) = resolve_chain(self.root, reference)
            .and_then(|(target, pointer)| Some((target.as_object()?, pointer)))
            .ok_or_else(|| {
                SchemaIncompatible::new(
                    "/$ref",
                    format!("the root `$ref` `{reference}` does not name an object schema in this schema"),
                    "point the root `$ref` at a definition under `$defs`, or inline the object",
                )
            })?;
        Ok(Part {
            map: target,
            path: pointer,
        })
    }

    /// A `$ref` inside the schema: kept alone, or moved into a one-branch
    /// `anyOf` when it has sibling keywords.
    pub(super) fn reference(
        &mut self,
        map: &Map<String, Value>,
        value: &Value,
        key_path: &str,
        has_combinator: bool,
        out: &mut Map<String, Value>,
        restore: &mut RestoreNode,
    ) -> Result<(), SchemaIncompatible> {
        let reference = value.as_str().unwrap_or_default();
        let Some(pointer) = local_pointer(reference) else {
            return Err(SchemaIncompatible::new(
                key_path,
                format!("`$ref` `{}` is not a reference inside this schema; strict mode resolves only local ones", crate::bounds::echo(reference)),
                "inline the referenced schema, or move it under `$defs` and refer to `#/$defs/NAME`",
            ));
        };
        let kept = map.len() == 1 || !has_combinator;
        if kept && resolve(self.root, reference).is_none() {
            // The provider refuses the whole schema over a reference it cannot follow.
            return Err(SchemaIncompatible::new(
                key_path,
                format!(
                    "`$ref` `{}` names nothing in this schema",
                    crate::bounds::echo(reference)
                ),
                "add the definition under `$defs`, or fix the reference's name (`#/$defs/NAME`)",
            ));
        }
        restore.reference = Some(format!("#{pointer}"));
        if map.len() == 1 {
            out.insert("$ref".to_string(), value.clone());
        } else if has_combinator {
            restore.reference = None;
            self.loss(
                key_path,
                "removed `$ref` beside `anyOf`/`oneOf`",
                "the referenced schema the value must also match",
            );
        } else {
            out.insert("anyOf".to_string(), json!([{ "$ref": reference }]));
            self.change(
                key_path,
                "moved `$ref` into a one-branch `anyOf` (strict mode refuses `$ref` beside other keywords)",
            );
        }
        Ok(())
    }

    /// The adapted branches of an `anyOf`/`oneOf`/`allOf`, their restore
    /// nodes kept on `restore` when any has work.
    pub(super) fn branches(
        &mut self,
        value: &'a Value,
        key_path: &str,
        depth: usize,
        level: Level,
        restore: &mut RestoreNode,
    ) -> Result<Value, SchemaIncompatible> {
        let mut adapted = Vec::new();
        let mut nodes = Vec::new();
        for (index, branch) in value.as_array().into_iter().flatten().enumerate() {
            let (schema, node) = self.node(
                branch,
                &child(key_path, &index.to_string()),
                depth + 1,
                level,
            )?;
            adapted.push(schema);
            nodes.push(node);
        }
        if nodes.iter().any(RestoreNode::has_work) {
            restore.branches = nodes;
        }
        Ok(Value::Array(adapted))
    }

    /// The adapted positions of a tuple.
    pub(super) fn tuple(
        &mut self,
        tuple: &'a [Value],
        key_path: &str,
        depth: usize,
        level: Level,
    ) -> Result<(Vec<Value>, Vec<RestoreNode>, String), SchemaIncompatible> {
        let mut adapted = Vec::with_capacity(tuple.len());
        let mut nodes = Vec::with_capacity(tuple.len());
        for (index, item) in tuple.iter().enumerate() {
            let (schema, node) =
                self.node(item, &child(key_path, &index.to_string()), depth + 1, level)?;
            // Positions of one type are listed once; a long tuple is not compared pairwise.
            if tuple.len() > MAX_DEDUPED_TUPLE || !adapted.contains(&schema) {
                adapted.push(schema);
                nodes.push(node);
            }
        }
        Ok((adapted, nodes, key_path.to_string()))
    }
}

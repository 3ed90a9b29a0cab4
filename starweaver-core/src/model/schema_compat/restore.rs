//! Undoing the strict transform on the arguments a model returns.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::bounds::MAX_JSON_DEPTH;

/// What to undo at one schema node, mirroring the arguments' shape.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct RestoreNode {
    /// The node is (also) an object schema.
    pub object: Option<ObjectRestore>,
    /// What to undo in each array item.
    pub items: Option<Box<RestoreNode>>,
    /// `anyOf` branches; the one the value matches is undone.
    pub branches: Vec<RestoreNode>,
    /// A local `$ref` whose target's node applies too.
    pub reference: Option<String>,
}

/// What to undo in one object.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct ObjectRestore {
    /// Properties made nullable by the transform: a `null` here means
    /// "absent" and is removed.
    pub drop_null: Vec<String>,
    /// Properties with something to undo inside.
    pub children: Vec<(String, RestoreNode)>,
    /// Every property the adapted object requires, to tell `anyOf`
    /// branches apart.
    pub keys: Vec<String>,
    /// Properties whose value is fixed (`const`), to tell tagged
    /// branches apart.
    pub tags: Vec<(String, Value)>,
}

impl RestoreNode {
    /// True when undoing this node can change something.
    pub fn has_work(&self) -> bool {
        self.reference.is_some()
            || self.items.is_some()
            || !self.branches.is_empty()
            || self
                .object
                .as_ref()
                .is_some_and(|object| !object.drop_null.is_empty() || !object.children.is_empty())
    }
}

/// The undo information of a whole adapted schema.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Restore {
    /// The root node.
    pub root: RestoreNode,
    /// Nodes of `$defs`/`definitions` entries by the `$ref` naming them
    /// (`#/$defs/X`); `#` is the root.
    pub defs: HashMap<String, RestoreNode>,
}

impl Restore {
    /// Undoes the transform on `arguments`.
    pub fn apply(&self, arguments: &mut Value) {
        if self.root.has_work() {
            self.apply_node(arguments, &self.root, 0);
        }
    }

    fn lookup(&self, reference: &str) -> Option<&RestoreNode> {
        if reference == "#" {
            return Some(&self.root);
        }
        self.defs.get(reference)
    }

    /// `depth` counts both argument levels and `$ref` hops, so a cycle of
    /// references stops too.
    fn apply_node(&self, value: &mut Value, node: &RestoreNode, depth: usize) {
        if depth > MAX_JSON_DEPTH {
            return;
        }
        if let Some(target) = node.reference.as_deref().and_then(|r| self.lookup(r)) {
            self.apply_node(value, target, depth + 1);
        }
        match value {
            Value::Object(map) => {
                if let Some(object) = &node.object {
                    self.apply_object(map, object, depth);
                }
            }
            Value::Array(items) => {
                if let Some(item_node) = &node.items {
                    for item in items {
                        self.apply_node(item, item_node, depth + 1);
                    }
                }
            }
            _ => {}
        }
        if let Some(branch) = self.choose_branch(value, &node.branches, depth) {
            self.apply_node(value, branch, depth + 1);
        }
    }

    fn apply_object(&self, map: &mut Map<String, Value>, object: &ObjectRestore, depth: usize) {
        for name in &object.drop_null {
            if map.get(name).is_some_and(Value::is_null) {
                map.shift_remove(name);
            }
        }
        for (name, child) in &object.children {
            if let Some(value) = map.get_mut(name) {
                self.apply_node(value, child, depth + 1);
            }
        }
    }

    /// The branch `value` was generated from: for an object, the branch
    /// with the most properties whose properties are all present and whose
    /// fixed values match; for an array, the first branch with items.
    fn choose_branch<'a>(
        &'a self,
        value: &Value,
        branches: &'a [RestoreNode],
        depth: usize,
    ) -> Option<&'a RestoreNode> {
        match value {
            Value::Object(map) => branches
                .iter()
                .filter_map(|branch| {
                    let object = self.object_of(branch, depth)?;
                    let present = object.keys.iter().all(|key| map.contains_key(key));
                    let tagged = object
                        .tags
                        .iter()
                        .all(|(key, fixed)| map.get(key) == Some(fixed));
                    (present && tagged).then_some((object.keys.len(), branch))
                })
                // The first of equally good branches wins.
                .rev()
                .max_by_key(|(keys, _)| *keys)
                .map(|(_, branch)| branch),
            Value::Array(_) => branches.iter().find(|branch| branch.items.is_some()),
            _ => None,
        }
    }

    /// A branch's object restore, following a few `$ref` hops.
    fn object_of<'a>(&'a self, node: &'a RestoreNode, depth: usize) -> Option<&'a ObjectRestore> {
        let mut node = node;
        for _ in 0..8 {
            if let Some(object) = &node.object {
                return Some(object);
            }
            if depth > MAX_JSON_DEPTH {
                return None;
            }
            node = self.lookup(node.reference.as_deref()?)?;
        }
        None
    }
}

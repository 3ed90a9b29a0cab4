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

/// Node applications allowed per value of the arguments: a value is
/// reached by a handful of nodes in any real schema, and references that
/// loop through sibling keywords cannot make restoring exponential.
const WORK_PER_VALUE: usize = 64;

/// The state of one restoring walk.
struct Walk<'a> {
    /// Node applications left.
    budget: usize,
    /// The references already followed at the current value.
    here: Vec<&'a str>,
}

/// How many JSON values `value` holds, itself included (no recursion).
fn count_values(value: &Value) -> usize {
    let mut count = 0usize;
    let mut stack = vec![value];
    while let Some(next) = stack.pop() {
        count += 1;
        match next {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    count
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
            let mut walk = Walk {
                budget: WORK_PER_VALUE
                    .saturating_mul(count_values(arguments))
                    .saturating_add(WORK_PER_VALUE),
                here: Vec::new(),
            };
            self.apply_node(arguments, &self.root, 0, &mut walk);
        }
    }

    fn lookup(&self, reference: &str) -> Option<&RestoreNode> {
        if reference == "#" {
            return Some(&self.root);
        }
        self.defs.get(reference)
    }

    /// `depth` counts both argument levels and `$ref` hops, so a chain of
    /// references stops too; a reference already followed at this value
    /// is not followed again (a cycle adds nothing), and `walk.budget`
    /// bounds the rest.
    fn apply_node<'a>(
        &'a self,
        value: &mut Value,
        node: &'a RestoreNode,
        depth: usize,
        walk: &mut Walk<'a>,
    ) {
        if depth > MAX_JSON_DEPTH || walk.budget == 0 {
            return;
        }
        walk.budget -= 1;
        if let Some(reference) = node.reference.as_deref() {
            if !walk.here.contains(&reference) {
                if let Some(target) = self.lookup(reference) {
                    walk.here.push(reference);
                    self.apply_node(value, target, depth + 1, walk);
                }
            }
        }
        match value {
            Value::Object(map) => {
                if let Some(object) = &node.object {
                    self.apply_object(map, object, depth, walk);
                }
            }
            Value::Array(items) => {
                if let Some(item_node) = &node.items {
                    for item in items {
                        self.apply_child(item, item_node, depth + 1, walk);
                    }
                }
            }
            _ => {}
        }
        if let Some(branch) = self.choose_branch(value, &node.branches) {
            self.apply_node(value, branch, depth + 1, walk);
        }
    }

    /// Applies `node` to a value one level down, where no reference has
    /// been followed yet.
    fn apply_child<'a>(
        &'a self,
        value: &mut Value,
        node: &'a RestoreNode,
        depth: usize,
        walk: &mut Walk<'a>,
    ) {
        let here = std::mem::take(&mut walk.here);
        self.apply_node(value, node, depth, walk);
        walk.here = here;
    }

    fn apply_object<'a>(
        &'a self,
        map: &mut Map<String, Value>,
        object: &'a ObjectRestore,
        depth: usize,
        walk: &mut Walk<'a>,
    ) {
        for name in &object.drop_null {
            if map.get(name).is_some_and(Value::is_null) {
                map.shift_remove(name);
            }
        }
        for (name, child) in &object.children {
            if let Some(value) = map.get_mut(name) {
                self.apply_child(value, child, depth + 1, walk);
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
    ) -> Option<&'a RestoreNode> {
        match value {
            Value::Object(map) => branches
                .iter()
                .filter_map(|branch| {
                    let object = self.object_of(branch)?;
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
            Value::Array(_) => branches
                .iter()
                .find(|branch| self.resolved(branch, |node| node.items.is_some()).is_some()),
            _ => None,
        }
    }

    /// A branch's object restore, following a few `$ref` hops.
    fn object_of<'a>(&'a self, node: &'a RestoreNode) -> Option<&'a ObjectRestore> {
        self.resolved(node, |node| node.object.is_some())?
            .object
            .as_ref()
    }

    /// `node`, or the node a few `$ref` hops from it, that `fits`.
    fn resolved<'a>(
        &'a self,
        node: &'a RestoreNode,
        fits: impl Fn(&RestoreNode) -> bool,
    ) -> Option<&'a RestoreNode> {
        let mut node = node;
        for _ in 0..8 {
            if fits(node) {
                return Some(node);
            }
            node = self.lookup(node.reference.as_deref()?)?;
        }
        None
    }
}

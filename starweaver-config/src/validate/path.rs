//! Where in the manifest the walk is, so messages can name the field (`toolsets[1].name`).

use std::fmt;

/// One step from the root: a mapping key or a sequence index.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

/// The path from the root to the node being checked.
#[derive(Clone, Debug, Default)]
pub(super) struct FieldPath {
    steps: Vec<Step>,
}

impl FieldPath {
    /// Whether the walk is at the root mapping.
    pub(super) fn is_root(&self) -> bool {
        self.steps.is_empty()
    }

    /// Where the innermost step is: the root, a key's value or a list item.
    pub(super) fn place(&self) -> super::hint::Place<'_> {
        match self.steps.last() {
            None => super::hint::Place::Root,
            Some(Step::Key(key)) => super::hint::Place::Key(key),
            Some(Step::Index(_)) => super::hint::Place::Item,
        }
    }

    /// Enters the value under `key`.
    pub(super) fn push_key(&mut self, key: &str) {
        self.steps.push(Step::Key(key.to_owned()));
    }

    /// Enters item `index` of a sequence.
    pub(super) fn push_index(&mut self, index: usize) {
        self.steps.push(Step::Index(index));
    }

    /// Leaves the innermost step.
    pub(super) fn pop(&mut self) {
        self.steps.pop();
    }

    /// The path with `key` appended, as text, for messages about a key of this mapping.
    pub(super) fn child(&self, key: &str) -> String {
        let mut path = self.clone();
        path.push_key(key);
        path.to_string()
    }

    /// "in `model`", or "at the top level" for the root, for messages about a mapping's keys.
    pub(super) fn location(&self) -> String {
        if self.is_root() {
            "at the top level".to_owned()
        } else {
            format!("in `{self}`")
        }
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, step) in self.steps.iter().enumerate() {
            match step {
                Step::Key(key) if index == 0 => f.write_str(key)?,
                Step::Key(key) => write!(f, ".{key}")?,
                Step::Index(item) => write!(f, "[{item}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_read_like_field_references() {
        let mut path = FieldPath::default();
        assert!(path.is_root());
        assert_eq!(path.location(), "at the top level");
        path.push_key("toolsets");
        path.push_index(1);
        assert_eq!(path.child("name"), "toolsets[1].name");
        assert_eq!(path.location(), "in `toolsets[1]`");
        path.pop();
        path.pop();
        assert!(path.is_root());
    }
}

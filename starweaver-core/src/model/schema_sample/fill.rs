//! Hooks through which a caller chooses the strings (and a few optional
//! properties) of a sample, while the sampler keeps the value valid.

use serde_json::{Map, Value};

/// A place in the schema where the sampler wants a value.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Field<'a> {
    /// The nearest property name above the value (`pattern`, `args`),
    /// `None` at the root.
    pub(crate) name: Option<&'a str>,
    /// The value's own schema (its `description`, `format`, ...).
    pub(crate) schema: &'a Map<String, Value>,
}

impl Field<'_> {
    /// The property name, lower case (empty at the root).
    pub(crate) fn name(&self) -> String {
        self.name.unwrap_or_default().to_ascii_lowercase()
    }

    /// The description, lower case (empty when there is none).
    pub(crate) fn description(&self) -> String {
        self.schema
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_lowercase()
    }
}

/// Chooses values where the schema leaves a choice. The sampler still
/// applies lengths and `pattern` to what it returns, and falls back to its
/// own sample when a choice does not fit.
pub(crate) trait Fill {
    /// A string for `field`, or `None` for the plain sample.
    fn string(&mut self, field: &Field<'_>) -> Option<String> {
        let _ = field;
        None
    }

    /// The items of a string array at `field`, or `None` for the plain
    /// sample.
    fn strings(&mut self, field: &Field<'_>) -> Option<Vec<String>> {
        let _ = field;
        None
    }

    /// Optional properties to fill in the top-level object when it
    /// requires none (a tool whose schema says "give either `command` or
    /// `program`" only in words).
    fn optional(&mut self, properties: &Map<String, Value>) -> Vec<String> {
        let _ = properties;
        Vec::new()
    }
}

/// No choices: the plain sample.
pub(crate) struct Plain;

impl Fill for Plain {}

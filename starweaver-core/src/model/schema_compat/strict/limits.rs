//! The size limits strict mode documents beyond properties and nesting:
//! enum values in the whole schema, the characters of one long enum, and
//! the characters of every name and fixed value together. A schema past
//! any of them is refused by the provider, with the whole request.

use serde_json::Value;

use super::super::SchemaIncompatible;

/// Most enum values one schema may hold, all enums together.
const MAX_ENUM_VALUES: usize = 1_000;

/// An enum with more string values than this ...
const LONG_ENUM: usize = 250;

/// ... may hold at most this many characters in them.
const MAX_LONG_ENUM_CHARS: usize = 15_000;

/// Most characters of property names, definition names, enum values and
/// const values together.
const MAX_NAME_CHARS: usize = 120_000;

/// What the walk counted toward the limits.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Sizes {
    enum_values: usize,
    chars: usize,
}

impl Sizes {
    /// Counts a property or definition name.
    pub fn name(&mut self, name: &str) {
        self.chars = self.chars.saturating_add(name.chars().count());
    }

    /// Counts a kept keyword's values (`enum`, `const`); refuses one enum
    /// past the long-enum limit, at `path`.
    pub fn keyword(
        &mut self,
        key: &str,
        value: &Value,
        path: &str,
    ) -> Result<(), SchemaIncompatible> {
        match key {
            "enum" => {
                let values = value.as_array().map_or(&[][..], Vec::as_slice);
                self.enum_values = self.enum_values.saturating_add(values.len());
                let chars: usize = values.iter().map(value_chars).sum();
                self.chars = self.chars.saturating_add(chars);
                let strings = values.iter().filter(|value| value.is_string()).count();
                if strings > LONG_ENUM && chars > MAX_LONG_ENUM_CHARS {
                    return Err(SchemaIncompatible::new(
                        path,
                        format!(
                            "an enum of {strings} strings holds {chars} characters; strict mode takes at most {MAX_LONG_ENUM_CHARS} characters in an enum of more than {LONG_ENUM} strings"
                        ),
                        "shorten the values, split the enum, or turn strict mode off for this tool",
                    ));
                }
            }
            "const" => self.chars = self.chars.saturating_add(value_chars(value)),
            _ => {}
        }
        Ok(())
    }

    /// Counts the `null` that making `original` nullable added to its enum.
    pub fn null_joined_enum(&mut self, original: &Value, adapted: &Value) {
        let length = |schema: &Value| schema.get("enum").and_then(Value::as_array).map(Vec::len);
        if let (Some(before), Some(after)) = (length(original), length(adapted)) {
            self.enum_values = self
                .enum_values
                .saturating_add(after.saturating_sub(before));
        }
    }

    /// Refuses a schema past the whole-schema limits.
    pub fn check(&self) -> Result<(), SchemaIncompatible> {
        if self.enum_values > MAX_ENUM_VALUES {
            return Err(SchemaIncompatible::new(
                "",
                format!(
                    "the schema holds {} enum values; strict mode takes at most {MAX_ENUM_VALUES} enum values in one schema",
                    self.enum_values
                ),
                "use fewer or shorter enums (a string with the values in its description), or turn strict mode off for this tool",
            ));
        }
        if self.chars > MAX_NAME_CHARS {
            return Err(SchemaIncompatible::new(
                "",
                format!(
                    "the property names, definition names and enum and const values hold {} characters; strict mode takes at most {MAX_NAME_CHARS} characters",
                    self.chars
                ),
                "use shorter names and fewer enum values, or turn strict mode off for this tool",
            ));
        }
        Ok(())
    }
}

/// The characters a value counts for: a string's own, anything else as JSON.
fn value_chars(value: &Value) -> usize {
    match value {
        Value::String(text) => text.chars().count(),
        other => other.to_string().chars().count(),
    }
}

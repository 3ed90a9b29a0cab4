//! What strict mode does with each keyword the walker does not handle
//! structurally.

use serde_json::Value;

/// String formats strict mode enforces.
const SUPPORTED_FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Formats schema generators add for Rust number widths; the `type`
/// (and `minimum: 0` for unsigned ones) already says what matters.
const NUMBER_FORMATS: [&str; 13] = [
    "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
    "float", "double", "int128",
];

/// What happens to one keyword.
pub(super) enum Action {
    /// Kept as it is.
    Keep,
    /// Removed, its meaning appended to the description as this text.
    Describe(String),
    /// Removed without losing meaning.
    Drop,
    /// Removed; the text says what the model no longer sees.
    Lose(&'static str),
}

/// The action for `keyword` with `value`.
pub(super) fn classify(keyword: &str, value: &Value) -> Action {
    match keyword {
        "type" | "description" | "title" | "enum" | "const" | "pattern" | "minimum" | "maximum"
        | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" | "minItems" | "maxItems" => {
            Action::Keep
        }
        "format" => format_action(value),
        // `null` says nothing once every optional property is nullable.
        "default" if value.is_null() => Action::Drop,
        "default" => Action::Describe(format!("Default: {}.", compact(value))),
        "examples" => Action::Describe(examples(value)),
        "minLength" => Action::Describe(format!("At least {} characters.", compact(value))),
        "maxLength" => Action::Describe(format!("At most {} characters.", compact(value))),
        "uniqueItems" if value == &Value::Bool(true) => {
            Action::Describe("Items must be unique.".to_string())
        }
        "deprecated" if value == &Value::Bool(true) => Action::Describe("Deprecated.".to_string()),
        "contentEncoding" => Action::Describe(format!("Encoding: {}.", plain(value))),
        "contentMediaType" => Action::Describe(format!("Media type: {}.", plain(value))),
        "uniqueItems" | "deprecated" | "$schema" | "$id" | "$comment" | "readOnly"
        | "writeOnly" => Action::Drop,
        "not" => Action::Lose("a schema the value must not match"),
        "if" | "then" | "else" => Action::Lose("a conditional schema"),
        "patternProperties" => Action::Lose("schemas for properties whose names match a pattern"),
        "propertyNames" => Action::Lose("the rule property names must follow"),
        "unevaluatedProperties" => Action::Lose("the rule for properties no other keyword covers"),
        "unevaluatedItems" => Action::Lose("the rule for items no other keyword covers"),
        "dependentRequired" | "dependencies" => {
            Action::Lose("properties required when another property is present")
        }
        "dependentSchemas" => Action::Lose("schemas that apply when a property is present"),
        "contains" | "minContains" | "maxContains" => {
            Action::Lose("the rule some of the array's items must match")
        }
        "minProperties" | "maxProperties" => {
            Action::Lose("the bound on how many properties the object has")
        }
        _ => Action::Lose("an unknown keyword's meaning"),
    }
}

fn format_action(value: &Value) -> Action {
    match value.as_str() {
        Some(format) if SUPPORTED_FORMATS.contains(&format) => Action::Keep,
        Some(format) if NUMBER_FORMATS.contains(&format) => Action::Drop,
        _ => Action::Describe(format!("Format: {}.", plain(value))),
    }
}

fn examples(value: &Value) -> String {
    match value {
        Value::Array(examples) => {
            let listed: Vec<String> = examples.iter().map(compact).collect();
            format!("Examples: {}.", listed.join(", "))
        }
        other => format!("Example: {}.", compact(other)),
    }
}

/// A value as compact JSON.
pub(super) fn compact(value: &Value) -> String {
    value.to_string()
}

/// A string as itself, anything else as JSON.
pub(super) fn plain(value: &Value) -> String {
    value
        .as_str()
        .map_or_else(|| compact(value), ToString::to_string)
}

/// `description` with `notes` appended as sentences.
pub(super) fn describe(description: Option<&str>, notes: &[String]) -> String {
    let mut text = description.unwrap_or_default().trim_end().to_string();
    for note in notes {
        if !text.is_empty() {
            if !text.ends_with(['.', '!', '?', ':']) {
                text.push('.');
            }
            text.push(' ');
        }
        text.push_str(note);
    }
    text
}

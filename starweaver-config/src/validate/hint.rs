//! Fix hints read from the schema: what a field takes, written as the line the user should
//! write (`timeout_ms: 5000`), so every value the structure pass refuses, and every field it
//! finds missing, comes with a concrete fix rather than a restated rule.
//!
//! The example values come from the schema's `examples` (the types' `#[schemars(example)]`),
//! then `const`, `enum` and `default`, then a placeholder of the right kind.

use serde_json::Value as Json;

use super::kinds;
use crate::yaml::Value;

/// Plain words YAML 1.1 read as booleans and YAML 1.2 (which manifests use) reads as strings.
const OLD_BOOLEANS: [&str; 8] = ["yes", "no", "on", "off", "y", "n", "Yes", "No"];

/// Longest example quoted in a hint; a longer one is cut.
const MAX_EXAMPLE_CHARS: usize = 60;

/// Where a value sits, which decides how the line to write looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place<'a> {
    /// The whole document.
    Root,
    /// The value of the key `0` (`timeout_ms: 5000`).
    Key(&'a str),
    /// An item of a list (`- 5000`).
    Item,
}

impl Place<'_> {
    /// The line that sets this place to `value`, in backticks.
    fn line(self, value: &str) -> String {
        match self {
            Self::Key(field) => format!("`{field}: {value}`"),
            Self::Item | Self::Root => format!("`- {value}`"),
        }
    }
}

/// The hint for a value of the wrong kind at `place`, where `schema` describes what it takes.
pub(super) fn wrong_kind(place: Place<'_>, schema: &Json, found: &Value) -> String {
    if place == Place::Root {
        return ROOT.to_owned();
    }
    let field = match place {
        Place::Key(field) => field,
        _ => "",
    };
    let names = types(schema);
    let wants = |name: &str| names.contains(&name);
    let example = example(schema);
    let line = |value: &str| place.line(value);
    // A value of the right kind inside quotes: the quotes are the only problem.
    if let Value::String { text, .. } = found {
        let text = text.trim();
        if (wants("integer") && text.parse::<i64>().is_ok())
            || (wants("number") && text.parse::<f64>().is_ok_and(f64::is_finite))
            || (wants("boolean") && matches!(text, "true" | "false"))
        {
            return format!("remove the quotes: {}", line(text));
        }
    }
    if wants("boolean") {
        return match found {
            Value::String { text, .. } if OLD_BOOLEANS.contains(&text.as_str()) => format!(
                "write {} or {}: YAML 1.2, which manifests use, reads `{text}` as a string, not \
                 a boolean",
                line("true"),
                line("false")
            ),
            _ => format!("write {} or {}", line("true"), line("false")),
        };
    }
    if wants("integer") {
        let unit = unit(field, schema);
        let example = example.unwrap_or_else(|| "10".to_owned());
        return format!(
            "it takes a whole number{unit}, without quotes: {}",
            line(&example)
        );
    }
    if wants("number") {
        let example = example.unwrap_or_else(|| "1.0".to_owned());
        return format!("it takes a number, without quotes: {}", line(&example));
    }
    if wants("string") {
        return match found {
            Value::Bool(_) | Value::Int(_) | Value::Float(_) => {
                "quote the value to make it a string".to_owned()
            }
            _ => format!(
                "write one text value: {}",
                line(&example.unwrap_or_else(|| "text".to_owned()))
            ),
        };
    }
    if wants("array") {
        // A lone scalar where a list of such scalars belongs: the same value as a list of one.
        let items_take_it = schema
            .get("items")
            .is_some_and(|items| items.get("type").is_some() && kinds::admits(items, found));
        let single = match found {
            _ if !items_take_it => None,
            Value::String { text, .. } if is_plain(text) => Some(text.clone()),
            Value::Int(number) => Some(number.to_string()),
            _ => None,
        };
        let shown = single
            .map(|item| format!("[{item}]"))
            .or(example)
            .unwrap_or_else(|| "[...]".to_owned());
        return format!(
            "write a list (`[a, b]`, or one `- item` per line), even of one item: {}",
            line(&shown)
        );
    }
    if wants("object") {
        return format!(
            "write its fields as `key: value` pairs, indented on the lines below or in braces: {}",
            line(&example.unwrap_or_else(|| mapping_placeholder(schema)))
        );
    }
    format!("write {}", kinds::expected(schema).unwrap_or_default())
}

/// What the document's root must look like.
pub(super) const ROOT: &str =
    "a manifest is a mapping of fields, one per line at the left margin: \
     `version: 1`, `name: scout`, `model: {id: test}` and the optional sections";

/// The hint for a value outside the allowed set, when none of them is a likely typo.
pub(super) fn not_allowed(place: Place<'_>, allowed: &[&str]) -> String {
    let first = allowed.first().copied().unwrap_or_default();
    format!(
        "write one of the values listed, for example {}",
        place.line(first)
    )
}

/// The hint for an integer outside `low..=high`.
pub(super) fn out_of_range(place: Place<'_>, schema: &Json, low: i128, high: i128) -> String {
    let range = match (low, high) {
        (low, i128::MAX) => format!("{low} or more"),
        (i128::MIN, high) => format!("{high} or less"),
        (low, high) => format!("from {low} to {high}"),
    };
    let example = example(schema)
        .filter(|text| {
            text.parse::<i128>()
                .is_ok_and(|n| (low..=high).contains(&n))
        })
        .unwrap_or_else(|| low.max(0).min(high).to_string());
    let field = match place {
        Place::Key(field) => field,
        _ => "",
    };
    let unit = unit(field, schema);
    format!(
        "use a whole number{unit} {range}, such as {}",
        place.line(&example)
    )
}

/// The help of a missing required field: the line to add, and what the field is for.
pub(super) fn missing(name: &str, schema: Option<&Json>) -> String {
    let value = schema
        .and_then(example)
        .or_else(|| schema.map(placeholder))
        .unwrap_or_else(|| "...".to_owned());
    match schema.and_then(about) {
        Some(about) => format!("add `{name}: {value}` ({about})"),
        None => format!("add `{name}: {value}`"),
    }
}

/// The schema's type names, without `null` (an optional field's `null` is never the fix).
fn types(schema: &Json) -> Vec<&str> {
    let names: Vec<&str> = match schema.get("type") {
        Some(Json::String(name)) => vec![name.as_str()],
        Some(Json::Array(names)) => names.iter().filter_map(Json::as_str).collect(),
        _ => Vec::new(),
    };
    names.into_iter().filter(|name| *name != "null").collect()
}

/// " of milliseconds", " of bytes" or "" from the field's name and description.
fn unit(field: &str, schema: &Json) -> &'static str {
    let description = schema
        .get("description")
        .and_then(Json::as_str)
        .unwrap_or_default();
    if field.ends_with("_ms") || description.contains("milliseconds") {
        " of milliseconds"
    } else if field.ends_with("_bytes") || description.contains("in bytes") {
        " of bytes"
    } else {
        ""
    }
}

/// An example value for `schema`, as YAML would write it inline.
pub(super) fn example(schema: &Json) -> Option<String> {
    let value = schema
        .get("examples")
        .and_then(Json::as_array)
        .and_then(|examples| examples.first())
        .or_else(|| schema.get("const"))
        .or_else(|| {
            schema
                .get("enum")
                .and_then(Json::as_array)
                .and_then(|values| values.first())
        })
        .or_else(|| schema.get("default").filter(|value| !value.is_null()))?;
    let text = inline(value);
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(MAX_EXAMPLE_CHARS).collect();
    Some(if chars.next().is_some() {
        format!("{head}...")
    } else {
        head
    })
}

/// A placeholder of the schema's kind when it has no example.
fn placeholder(schema: &Json) -> String {
    if let Some(options) = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Json::as_array)
    {
        if let Some(first) = options.iter().find_map(example) {
            return first;
        }
    }
    match types(schema).first().copied() {
        Some("object") => mapping_placeholder(schema),
        Some("array") => "[...]".to_owned(),
        Some("boolean") => "true".to_owned(),
        Some("integer" | "number") => "1".to_owned(),
        _ => "...".to_owned(),
    }
}

/// `{id: test}` for a mapping: its required fields with their examples.
fn mapping_placeholder(schema: &Json) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Json::as_array)
        .map(|names| names.iter().filter_map(Json::as_str).collect())
        .unwrap_or_default();
    let fields: Vec<String> = required
        .iter()
        .map(|name| {
            let value = schema
                .get("properties")
                .and_then(|properties| properties.get(*name))
                .map_or_else(
                    || "...".to_owned(),
                    |property| example(property).unwrap_or_else(|| placeholder(property)),
                );
            format!("{name}: {value}")
        })
        .collect();
    if fields.is_empty() {
        "{...}".to_owned()
    } else {
        format!("{{{}}}", fields.join(", "))
    }
}

/// A JSON value in YAML's inline style: `[a, b]`, `{id: test}`, strings unquoted when plain.
fn inline(value: &Json) -> String {
    match value {
        Json::String(text) if is_plain(text) => text.clone(),
        Json::String(text) => Json::String(text.clone()).to_string(),
        Json::Array(items) => format!(
            "[{}]",
            items.iter().map(inline).collect::<Vec<_>>().join(", ")
        ),
        Json::Object(fields) => format!(
            "{{{}}}",
            fields
                .iter()
                .map(|(key, value)| format!("{key}: {}", inline(value)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}

/// Whether `text` reads back as the same string when written unquoted in a flow collection.
fn is_plain(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ':' | '<' | '>'))
        && !text.ends_with(':')
        && !matches!(text, "true" | "false" | "null" | "~")
        && text.parse::<f64>().is_err()
}

/// What a field is for, from its description, as a phrase to follow the line to add: the
/// first clause, without its examples in parentheses, starting in lower case. `None` when the
/// description does not start as a phrase (a list of values, for example).
fn about(schema: &Json) -> Option<String> {
    let description = schema.get("description").and_then(Json::as_str)?;
    let flat = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let sentence = flat.split(". ").next().unwrap_or_default();
    let clause = sentence
        .split([';', ':'])
        .next()
        .unwrap_or_default()
        .trim_end_matches('.');
    let mut phrase = String::new();
    let mut depth = 0_usize;
    for c in clause.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => phrase.push(c),
            _ => {}
        }
    }
    let phrase = phrase.split_whitespace().collect::<Vec<_>>().join(" ");
    let phrase = phrase.trim_end_matches([',', ' ']);
    let mut chars = phrase.chars();
    let first = chars.next()?;
    if !first.is_alphabetic() || phrase.chars().count() > 80 {
        return None;
    }
    Some(first.to_lowercase().chain(chars).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn string(text: &str) -> Value {
        Value::String {
            text: text.to_owned(),
            style: crate::yaml::ScalarStyle::Plain,
        }
    }

    #[test]
    fn hints_show_the_line_to_write() {
        let millis = json!({"type": ["integer", "null"], "examples": [5000],
            "description": "Time limit, in milliseconds."});
        assert_eq!(
            wrong_kind(Place::Key("timeout_ms"), &millis, &string("five seconds")),
            "it takes a whole number of milliseconds, without quotes: `timeout_ms: 5000`"
        );
        assert_eq!(
            wrong_kind(Place::Key("timeout_ms"), &millis, &string("5000")),
            "remove the quotes: `timeout_ms: 5000`"
        );
        let flag = json!({"type": "boolean"});
        let hint = wrong_kind(Place::Key("allow_execute"), &flag, &string("yes"));
        assert!(hint.starts_with("write `allow_execute: true` or `allow_execute: false`"));
        assert!(hint.contains("YAML 1.2"), "{hint}");
        let list = json!({"type": "array", "items": {"type": "string"}});
        assert_eq!(
            wrong_kind(Place::Key("tools"), &list, &string("lookup")),
            "write a list (`[a, b]`, or one `- item` per line), even of one item: `tools: [lookup]`"
        );
        assert!(
            wrong_kind(Place::Root, &json!({"type": "object"}), &Value::Int(1))
                .contains("version: 1")
        );
    }

    #[test]
    fn missing_fields_read_as_sentences() {
        let version = json!({"type": "integer", "examples": [1],
            "description": "The manifest format's version; `1`."});
        assert_eq!(
            missing("version", Some(&version)),
            "add `version: 1` (the manifest format's version)"
        );
        let name = json!({"type": "string", "examples": ["repo-helper"],
            "description": "The agent's name (`repo-helper`)."});
        assert_eq!(
            missing("name", Some(&name)),
            "add `name: repo-helper` (the agent's name)"
        );
        let model = json!({"type": "object", "required": ["id"],
            "properties": {"id": {"type": "string", "description": "`test` or ..."}}});
        assert_eq!(missing("model", Some(&model)), "add `model: {id: ...}`");
        assert_eq!(missing("x", None), "add `x: ...`");
    }
}

//! The schema walked into sections: one per object (the top level, `model`, `shell`, ...),
//! one per item shape of a list (`skills.scopes[]`), and one per toolset `type`, each a table
//! of its fields.

use serde_json::Value;

use super::cells::{
    allowed_values, alternatives, default_value, description, example, resolve, type_name,
};

/// One row of a section's table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Field {
    /// The key, as written in YAML.
    pub name: String,
    /// The type in words.
    pub kind: String,
    /// `required`, the default value, or `unset`.
    pub default: String,
    /// `key: value`, from the schema's examples; `None` when the schema has none.
    pub example: Option<String>,
    /// The description, with the allowed values of an enumeration.
    pub description: String,
    /// Whether leaving it out is described (a field without a default must say what unset
    /// means).
    pub optional_without_default: bool,
}

/// A heading and the table under it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Section {
    /// Where the fields sit: `""` for the top level, `model`, `toolsets[]` with `type: tools`.
    pub path: String,
    /// The `type` value for a toolset entry section.
    pub variant: Option<String>,
    /// Text under the heading (a variant's description).
    pub intro: String,
    /// The table rows, in schema order.
    pub fields: Vec<Field>,
}

/// Every section of `schema`, the top level first, then each nested object after its parent
/// (after all the variants of a list of variants).
pub(super) fn sections(schema: &Value) -> Vec<Section> {
    let mut found = Vec::new();
    object(schema, schema, "", None, String::new(), &mut found);
    found
}

fn object(
    schema: &Value,
    root: &Value,
    path: &str,
    variant: Option<String>,
    intro: String,
    found: &mut Vec<Section>,
) {
    let schema = resolve(schema, root);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let index = found.len();
    found.push(Section {
        path: path.to_string(),
        variant,
        intro,
        fields: Vec::new(),
    });
    let mut fields = Vec::new();
    for (name, property) in properties {
        let property = resolve(property, root);
        let is_required = required.contains(&name.as_str());
        fields.push(field(name, property, root, is_required));
        let child = if path.is_empty() {
            name.clone()
        } else {
            format!("{path}.{name}")
        };
        nested(property, root, &child, found);
    }
    if let Some(section) = found.get_mut(index) {
        section.fields = fields;
    }
}

/// The sections under one property: its own object, or its list items' shapes.
fn nested(property: &Value, root: &Value, path: &str, found: &mut Vec<Section>) {
    if property.get("properties").is_some() {
        object(property, root, path, None, String::new(), found);
        return;
    }
    let Some(items) = property.get("items").map(|items| resolve(items, root)) else {
        return;
    };
    let list = format!("{path}[]");
    if items.get("properties").is_some() {
        object(items, root, &list, None, String::new(), found);
        return;
    }
    // Every variant's own section first, under one heading, then the objects nested in them.
    let mut nested_in_variants = Vec::new();
    for variant in alternatives(items).into_iter().flatten() {
        let variant = resolve(variant, root);
        let tag = variant
            .pointer("/properties/type/const")
            .and_then(Value::as_str)
            .map(str::to_string);
        let mut own = Vec::new();
        object(variant, root, &list, tag, description(variant), &mut own);
        let mut own = own.into_iter();
        found.extend(own.next());
        nested_in_variants.extend(own);
    }
    found.extend(nested_in_variants);
}

fn field(name: &str, schema: &Value, root: &Value, required: bool) -> Field {
    let mut text = description(schema);
    if schema.get("const").is_some() && text.is_empty() {
        text = "Selects this entry type.".to_string();
    }
    if let Some(values) = allowed_values(schema, root) {
        let described: Vec<String> = values
            .iter()
            .map(|(value, meaning)| {
                let meaning = meaning.trim_end_matches('.');
                if meaning.is_empty() {
                    format!("`{value}`")
                } else {
                    format!("`{value}`: {meaning}")
                }
            })
            .collect();
        let mut listed = described.join("; ");
        if !listed.ends_with('.') {
            listed.push('.');
        }
        text = format!("{text} Allowed: {listed}").trim().to_string();
    }
    let default = default_value(schema, root, required);
    Field {
        name: name.to_string(),
        kind: type_name(schema, root),
        optional_without_default: default == "unset",
        default,
        example: example(name, schema, root),
        description: text,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn nested_objects_lists_and_tagged_variants_become_sections() {
        let schema = json!({
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "description": "The name.", "examples": ["x"]},
                "inner": {"$ref": "#/$defs/Inner"},
                "items": {"type": "array", "items": {"oneOf": [
                    {"description": "A.", "type": "object", "properties": {"type": {"const": "a"}}},
                    {"description": "B.", "type": "object", "properties": {"type": {"const": "b"}, "n": {"type": "integer"}}}
                ]}}
            },
            "$defs": {"Inner": {"type": "object", "properties": {"flag": {"type": "boolean", "default": false}}}}
        });
        let found = sections(&schema);
        let paths: Vec<(&str, Option<&str>)> = found
            .iter()
            .map(|section| (section.path.as_str(), section.variant.as_deref()))
            .collect();
        assert_eq!(
            paths,
            [
                ("", None),
                ("inner", None),
                ("items[]", Some("a")),
                ("items[]", Some("b"))
            ]
        );
        assert_eq!(found[0].fields[0].default, "required");
        assert_eq!(found[0].fields[0].example.as_deref(), Some("`name: x`"));
        assert_eq!(found[1].fields[0].default, "`false`");
        assert_eq!(found[3].intro, "B.");
        assert_eq!(found[3].fields[0].kind, "`b`");
    }
}

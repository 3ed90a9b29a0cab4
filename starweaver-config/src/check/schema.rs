//! The manifest's JSON Schema, generated from the format's types, for editors
//! (`# yaml-language-server: $schema=...`) and other tools; `starweaver schema` prints it.

use serde_json::{Map, Value};
use starweaver_core::tools::schema_for_type;

use super::catalog::CatalogNames;
use crate::manifest::Manifest;

/// The JSON Schema dialect the generated schema declares. The generator writes draft 2020-12,
/// which current YAML language servers read.
pub const SCHEMA_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The toolset types whose `tools` entries name catalog tools.
const CATALOG_TOOLSETS: [&str; 2] = ["tools", "deferred"];

/// The manifest schema with `$schema` and `title`; with a catalog, `tools` entries of `tools`
/// and `deferred` toolsets are restricted to the catalog's names.
#[must_use]
pub fn manifest_schema(catalog: Option<&CatalogNames>) -> Value {
    let generated = schema_for_type::<Manifest>();
    let mut root = Map::new();
    root.insert("$schema".into(), Value::from(SCHEMA_DIALECT));
    root.insert("title".into(), Value::from("Starweaver agent manifest"));
    if let Value::Object(fields) = generated {
        for (key, value) in fields {
            root.entry(key).or_insert(value);
        }
    }
    let mut schema = Value::Object(root);
    if let Some(catalog) = catalog {
        restrict_tools(&mut schema, catalog);
    }
    schema
}

/// Adds the catalog's names as an `enum` on each catalog toolset variant's `tools` items.
fn restrict_tools(schema: &mut Value, catalog: &CatalogNames) {
    let names: Vec<Value> = catalog.tools.iter().cloned().map(Value::from).collect();
    let Some(variants) = schema
        .pointer_mut("/properties/toolsets/items")
        .and_then(variants_mut)
    else {
        return;
    };
    for variant in variants {
        let kind = variant
            .pointer("/properties/type/const")
            .or_else(|| variant.pointer("/properties/type/enum/0"))
            .and_then(Value::as_str);
        if !kind.is_some_and(|kind| CATALOG_TOOLSETS.contains(&kind)) {
            continue;
        }
        let mut allowed = names.clone();
        if kind == Some("deferred") {
            // A deferred set may name first-party tools too.
            allowed.extend(first_party_names().into_iter().map(Value::from));
        }
        if let Some(Value::Object(items)) = variant.pointer_mut("/properties/tools/items") {
            items.insert("enum".into(), Value::Array(allowed));
        }
    }
}

/// The names of every first-party bundle tool (filesystem, shell, user input).
fn first_party_names() -> Vec<String> {
    use starweaver_core::bundles::{filesystem_tools, shell_tools, user_input_tools};
    [filesystem_tools(), shell_tools(), user_input_tools()]
        .iter()
        .flat_map(|bundle| bundle.get_tools())
        .map(|tool| tool.name().to_string())
        .collect()
}

fn variants_mut(items: &mut Value) -> Option<&mut Vec<Value>> {
    let object = items.as_object_mut()?;
    let key = ["oneOf", "anyOf"]
        .into_iter()
        .find(|key| object.contains_key(*key))?;
    object.get_mut(key)?.as_array_mut()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_names_restrict_only_catalog_toolsets() {
        let catalog = CatalogNames {
            tools: vec!["lookup".into(), "weather".into()],
        };
        let schema = manifest_schema(Some(&catalog));
        assert_eq!(schema["$schema"], SCHEMA_DIALECT);
        let text = schema.to_string();
        // `tools` entries take the catalog's names; `deferred` ones first-party names too.
        let restricted = text.matches(r#""enum":["lookup","weather"]"#).count();
        assert_eq!(restricted, 1, "{text}");
        let deferred = text
            .matches(r#""enum":["lookup","weather","ls","read_file""#)
            .count();
        assert_eq!(deferred, 1, "{text}");
        assert!(text.contains(r#""shell_exec","#) && text.contains(r#""ask_user_question"]"#));
        assert!(!manifest_schema(None).to_string().contains("weather"));
    }
}

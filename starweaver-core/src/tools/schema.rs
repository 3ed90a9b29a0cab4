//! Argument schemas: generated for typed tools, compiled for manual ones.

use std::sync::OnceLock;

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::Value;

use super::ToolError;

/// The model-facing JSON Schema of an argument type.
///
/// Subschemas are inlined, `$schema` and the top-level `title` are
/// removed, and an object schema always has `properties` and `required`
/// (some providers reject schemas without them).
#[must_use]
pub fn schema_for_type<T: JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings.meta_schema = None;
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut value = schema.to_value();
    if let Value::Object(map) = &mut value {
        map.remove("$schema");
        map.remove("title");
        if map.get("type").and_then(Value::as_str) == Some("object") {
            map.entry("properties")
                .or_insert_with(|| Value::Object(serde_json::Map::new()));
            map.entry("required")
                .or_insert_with(|| Value::Array(Vec::new()));
        }
    }
    value
}

/// A JSON Schema compiled once, on first use, and reused for every call.
#[derive(Debug, Default)]
pub struct CompiledSchema {
    compiled: OnceLock<Result<jsonschema::Validator, String>>,
}

impl CompiledSchema {
    /// Validates `instance` against `schema`, compiling `schema` on the
    /// first call only.
    ///
    /// # Errors
    /// [`ToolError::InvalidArguments`] listing up to five violations with
    /// their JSON pointers, or [`ToolError::UserError`] when the tool's
    /// own schema does not compile.
    pub fn validate(&self, tool: &str, schema: &Value, instance: &Value) -> Result<(), ToolError> {
        let compiled = self
            .compiled
            .get_or_init(|| jsonschema::validator_for(schema).map_err(|error| error.to_string()));
        let validator = compiled.as_ref().map_err(|error| {
            ToolError::user_error(format!(
                "the parameter schema of tool `{tool}` is not a valid JSON Schema: {error}; fix the schema passed to the tool constructor"
            ))
        })?;
        if validator.is_valid(instance) {
            return Ok(());
        }
        Err(ToolError::invalid_arguments(
            tool,
            schema_problems(validator, instance).join("; "),
        ))
    }
}

/// The first five ways `instance` breaks the schema `validator` was built from, each with the
/// place it occurs (``at `/path`: ...``): the wording every schema check a model reads uses.
#[must_use]
pub fn schema_problems(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .take(5)
        .map(|error| {
            let path = error.instance_path().to_string();
            if path.is_empty() {
                error.to_string()
            } else {
                format!("at `{path}`: {error}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Args {
        /// Query text.
        query: String,
        limit: Option<u32>,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Empty {}

    #[test]
    fn generated_schema_is_provider_friendly() {
        let schema = schema_for_type::<Args>();
        assert!(schema.get("$schema").is_none());
        assert!(schema.get("title").is_none());
        assert_eq!(schema["required"], serde_json::json!(["query"]));
        assert_eq!(schema["properties"]["query"]["description"], "Query text.");
        let empty = schema_for_type::<Empty>();
        assert_eq!(empty["required"], serde_json::json!([]));
        assert!(empty["properties"].is_object());
    }

    #[test]
    fn compiled_schema_reports_paths() {
        let schema = serde_json::json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
        let compiled = CompiledSchema::default();
        assert!(compiled
            .validate("t", &schema, &serde_json::json!({"n": 1}))
            .is_ok());
        let error = compiled
            .validate("t", &schema, &serde_json::json!({"n": "x"}))
            .err()
            .map(|error| error.to_string())
            .unwrap_or_default();
        assert!(error.contains("/n"), "{error}");
        let broken = CompiledSchema::default();
        let result = broken.validate(
            "t",
            &serde_json::json!({"type": 12}),
            &serde_json::json!({}),
        );
        assert!(matches!(result, Err(ToolError::UserError { .. })));
    }
}

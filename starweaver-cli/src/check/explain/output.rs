//! The answer's contract, from `output:` and the schema the check read (inline or from
//! `schema_file`): the same schema the loader gives the agent.

use serde_json::Value;
use starweaver_config::manifest::Manifest;
use starweaver_core::agent::{DEFAULT_OUTPUT_RETRIES, OUTPUT_TOOL_NAME};

use super::facts::OutputFacts;

/// The contract of `manifest`'s answer, `None` without `output:` (or without the schema the
/// check read for it).
pub(super) fn output(manifest: &Manifest, schema: Option<&Value>) -> Option<OutputFacts> {
    let spec = manifest.output.as_ref()?;
    let schema = schema?;
    let names = |key: &str| -> Vec<String> {
        match schema.get(key) {
            Some(Value::Object(map)) => map.keys().cloned().collect(),
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        }
    };
    Some(OutputFacts {
        tool: OUTPUT_TOOL_NAME.to_string(),
        source: if spec.schema_file.is_some() {
            "file"
        } else {
            "inline"
        },
        schema_file: spec.schema_file.clone(),
        schema: schema.clone(),
        properties: names("properties"),
        required: names("required"),
        retries: spec.retries.unwrap_or(DEFAULT_OUTPUT_RETRIES),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    fn manifest(output: Option<Value>) -> Manifest {
        let mut value = json!({"version": 1, "name": "a", "model": {"id": "test"}});
        if let Some(output) = output {
            value["output"] = output;
        }
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn an_inline_schema_shows_its_properties_required_ones_and_the_default_retries() {
        let schema = json!({
            "type": "object",
            "properties": {"severity": {"enum": ["low", "high"]}, "summary": {"type": "string"}},
            "required": ["severity"]
        });
        let facts = output(
            &manifest(Some(json!({"schema": {"type": "object"}}))),
            Some(&schema),
        )
        .unwrap();
        assert_eq!(facts.tool, "final_answer");
        assert_eq!((facts.source, facts.schema_file), ("inline", None));
        assert_eq!(facts.properties, ["severity", "summary"]);
        assert_eq!(facts.required, ["severity"]);
        assert_eq!(facts.retries, DEFAULT_OUTPUT_RETRIES);
        assert_eq!(facts.schema, schema);
    }

    #[test]
    fn a_schema_file_is_named_and_an_answer_that_is_no_object_has_no_properties() {
        let facts = output(
            &manifest(Some(
                json!({"schema_file": "schemas/count.json", "retries": 0}),
            )),
            Some(&json!({"type": "integer"})),
        )
        .unwrap();
        assert_eq!(facts.source, "file");
        assert_eq!(facts.schema_file.as_deref(), Some("schemas/count.json"));
        assert!(facts.properties.is_empty() && facts.required.is_empty());
        assert_eq!(facts.retries, 0);
    }

    #[test]
    fn without_output_there_is_no_contract() {
        assert!(output(&manifest(None), Some(&json!({}))).is_none());
    }
}

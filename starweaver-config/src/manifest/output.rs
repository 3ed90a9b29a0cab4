//! `output:`: the shape of the agent's answer, and how often an answer that breaks it is sent
//! back to the model.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The output section: exactly one of `schema` and `schema_file`, and the retries.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StructuredOutputSpec {
    /// The answer's JSON Schema, written inline as a mapping. The model finishes by calling
    /// the `final_answer` tool with arguments the schema accepts (offered on every request
    /// beside the agent's other tools); `check` requires a valid JSON Schema that the
    /// manifest's model provider can take. Unset: `schema_file` gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = serde_json::json!({"type": "object", "properties": {"severity": {"enum": ["low", "high"]}, "summary": {"type": "string"}}, "required": ["severity", "summary"]}))]
    pub schema: Option<serde_json::Map<String, serde_json::Value>>,
    /// A JSON file holding the answer's JSON Schema, relative to the manifest's folder and
    /// inside it. Unset: `schema` gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"schemas/triage.json")]
    pub schema_file: Option<String>,
    /// Invalid answers sent back to the model with their schema errors before the run fails
    /// (`2` is three answers in all); an answer in text without the output tool counts as
    /// invalid. Unset: 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = 2)]
    pub retries: Option<u32>,
}

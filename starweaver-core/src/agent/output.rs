//! Structured output: an answer with a declared shape, asked for through an output tool the
//! model calls to finish, validated against a JSON Schema, and retried while it is invalid.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};

use super::{AgentError, AgentRunResult};
use crate::model::ToolReturnPart;
use crate::tools::{schema_for_type, string_tool, DynTool, ToolKind, ToolResult};

/// The name of the output tool an agent with an [`OutputSpec`] offers on every request.
pub const OUTPUT_TOOL_NAME: &str = "final_answer";

/// Invalid answers an [`OutputSpec`] allows by default before the run fails (`2`: three
/// answers in all).
pub const DEFAULT_OUTPUT_RETRIES: u32 = 2;

/// The private-metadata key of the output tool's return that holds the validated value.
const VALUE_KEY: &str = "structured_output";

/// The property a schema that does not describe an object is wrapped in: tool arguments are
/// always an object.
const WRAPPED_PROPERTY: &str = "value";

/// What an agent's answer must look like: a JSON Schema and how many invalid answers are
/// sent back to the model with their errors before the run fails.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputSpec {
    schema: Value,
    retries: u32,
}

impl OutputSpec {
    /// An answer matching `schema`, with [`DEFAULT_OUTPUT_RETRIES`] retries.
    #[must_use]
    pub fn new(schema: Value) -> Self {
        Self {
            schema,
            retries: DEFAULT_OUTPUT_RETRIES,
        }
    }

    /// An answer in the shape of `T`, its schema from [`schema_for_type`].
    #[must_use]
    pub fn for_type<T: JsonSchema>() -> Self {
        Self::new(schema_for_type::<T>())
    }

    /// Invalid answers sent back to the model before the run fails (`retries + 1` answers in
    /// all).
    #[must_use]
    pub fn with_retries(mut self, retries: u32) -> Self {
        self.retries = retries;
        self
    }

    /// The schema answers are validated against.
    #[must_use]
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// Invalid answers allowed before the run fails.
    #[must_use]
    pub fn retries(&self) -> u32 {
        self.retries
    }

    /// The argument schema the output tool is offered with: the schema itself when it
    /// describes an object, otherwise an object whose one property `value` holds the answer
    /// (tool arguments are always an object). Checkers adapt this one for providers.
    #[must_use]
    pub fn tool_parameters(&self) -> Value {
        parameters_of(&self.schema).0
    }
}

/// An output spec made into its tool, once per agent (or per typed run): the tool's schema is
/// compiled on its first call and reused for every later one.
#[derive(Clone)]
pub(crate) struct OutputTool {
    tool: DynTool,
    wrapped: bool,
    retries: u32,
}

impl std::fmt::Debug for OutputTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputTool")
            .field("wrapped", &self.wrapped)
            .field("retries", &self.retries)
            .finish_non_exhaustive()
    }
}

impl OutputTool {
    pub(crate) fn new(spec: &OutputSpec) -> Self {
        let (parameters, wrapped) = parameters_of(&spec.schema);
        let description = format!(
            "Give your final answer by calling this tool, once you have everything you need; \
             its arguments are the answer and must match its schema. The run ends when the \
             answer is accepted.{}",
            if wrapped {
                format!(" Put the answer in `{WRAPPED_PROPERTY}`.")
            } else {
                String::new()
            }
        );
        let tool = string_tool(
            OUTPUT_TOOL_NAME,
            Some(description),
            parameters,
            |_context, arguments| async move {
                Ok(ToolResult::new(json!({"accepted": true}))
                    .with_private_metadata(VALUE_KEY, arguments))
            },
        )
        .with_kind(ToolKind::Output)
        .with_max_retries(spec.retries);
        Self {
            tool: Arc::new(tool),
            wrapped,
            retries: spec.retries,
        }
    }

    /// The tool to register for a run.
    pub(crate) fn tool(&self) -> DynTool {
        self.tool.clone()
    }

    /// Invalid answers allowed before the run fails.
    pub(crate) fn retries(&self) -> u32 {
        self.retries
    }

    /// The validated answer a return of the output tool carries, if it accepted one.
    pub(crate) fn value_of(&self, part: &ToolReturnPart) -> Option<Value> {
        if part.tool_name != OUTPUT_TOOL_NAME || !part.is_success() {
            return None;
        }
        let arguments = part.private_metadata.get(VALUE_KEY)?;
        if self.wrapped {
            arguments.get(WRAPPED_PROPERTY).cloned()
        } else {
            Some(arguments.clone())
        }
    }
}

/// The accepted answer of a typed run as a `T`; `None` while the run waits.
pub(crate) fn typed_value<T: DeserializeOwned>(
    result: &AgentRunResult,
) -> Result<Option<T>, AgentError> {
    let Some(value) = &result.structured_output else {
        return Ok(None);
    };
    T::deserialize(value)
        .map(Some)
        .map_err(|error| AgentError::OutputType {
            type_name: std::any::type_name::<T>().to_string(),
            message: error.to_string(),
        })
}

/// The output tool's argument schema: `schema` itself when it describes an object, otherwise
/// an object with the answer in [`WRAPPED_PROPERTY`] (its `$defs` kept at the root, so local
/// references still resolve). `true` when wrapped.
fn parameters_of(schema: &Value) -> (Value, bool) {
    if schema.get("type").and_then(Value::as_str) == Some("object") {
        return (schema.clone(), false);
    }
    let mut inner = schema.clone();
    let mut root = Map::new();
    root.insert("type".into(), Value::from("object"));
    if let Value::Object(map) = &mut inner {
        for key in ["$defs", "definitions"] {
            if let Some(defs) = map.remove(key) {
                root.insert(key.into(), defs);
            }
        }
    }
    root.insert("properties".into(), json!({ WRAPPED_PROPERTY: inner }));
    root.insert("required".into(), json!([WRAPPED_PROPERTY]));
    root.insert("additionalProperties".into(), Value::Bool(false));
    (Value::Object(root), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_schemas_are_the_arguments_and_others_are_wrapped() {
        let object = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert_eq!(parameters_of(&object), (object.clone(), false));
        let list = json!({"type": "array", "items": {"$ref": "#/$defs/item"}, "$defs": {"item": {"type": "string"}}});
        let (wrapped, was_wrapped) = parameters_of(&list);
        assert!(was_wrapped);
        assert_eq!(wrapped["required"], json!(["value"]));
        assert_eq!(wrapped["$defs"]["item"]["type"], "string");
        assert!(wrapped["properties"]["value"].get("$defs").is_none());
        assert!(jsonschema::validator_for(&wrapped)
            .map(|validator| validator.is_valid(&json!({"value": ["x"]})))
            .unwrap_or(false));
    }

    #[test]
    fn the_spec_defaults_to_two_retries() {
        let spec = OutputSpec::new(json!({"type": "object"}));
        assert_eq!(spec.retries(), 2);
        assert_eq!(spec.clone().with_retries(0).retries(), 0);
        let tool = OutputTool::new(&spec);
        assert_eq!(tool.tool().name(), OUTPUT_TOOL_NAME);
        assert_eq!(tool.retries(), 2);
    }
}

//! The model-facing description of a tool.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::JsonMap;

/// Name, description, argument schema and provider-neutral metadata of a
/// tool, as a model (and a UI) sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    /// Unique tool name.
    pub name: String,
    /// What the tool does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
    /// JSON Schema of a successful result, if published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_schema: Option<Value>,
    /// Provider strict-schema preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
    /// Whether calls must run in model order, never in parallel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequential: Option<bool>,
    /// Provider-neutral metadata (tags, kind, dependency profile, ...).
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub metadata: JsonMap,
}

impl ToolDefinition {
    /// A definition with no return schema, preferences or metadata.
    pub fn new(name: impl Into<String>, description: Option<String>, parameters: Value) -> Self {
        Self {
            name: name.into(),
            description,
            parameters,
            return_schema: None,
            strict: None,
            sequential: None,
            metadata: JsonMap::new(),
        }
    }

    /// True when the definition asks for sequential execution.
    #[must_use]
    pub fn is_sequential(&self) -> bool {
        self.sequential == Some(true)
    }
}

//! A successful tool result.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ResultMetadata, ToolError};

/// What a tool returns on success: model-visible content plus public and
/// host-only metadata.
///
/// The metadata maps are [`ResultMetadata`]s, which read and write as
/// [`crate::JsonMap`]s but take one pointer while empty: a result is moved
/// through every layer of a dispatch, and most carry no metadata.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// Model-visible JSON content.
    pub content: Value,
    /// Public metadata, copied onto the tool return.
    #[serde(default)]
    pub metadata: ResultMetadata,
    /// Host-only metadata, never shown to the model.
    #[serde(default)]
    pub private_metadata: ResultMetadata,
}

impl ToolResult {
    /// A result with this content.
    #[must_use]
    pub fn new(content: Value) -> Self {
        Self {
            content,
            metadata: ResultMetadata::new(),
            private_metadata: ResultMetadata::new(),
        }
    }

    /// Serializes any value into a result.
    ///
    /// # Errors
    /// Returns an execution error when the value cannot be serialized
    /// (for example a map with non-string keys).
    pub fn from_serialize<T: Serialize + ?Sized>(value: &T) -> Result<Self, ToolError> {
        serde_json::to_value(value)
            .map(Self::new)
            .map_err(|error| ToolError::Execution {
                message: format!("tool result is not valid JSON: {error}"),
                source: Some(std::sync::Arc::new(error)),
            })
    }

    /// Adds public metadata.
    #[must_use]
    pub fn with_metadata(mut self, key: impl Into<String>, value: Value) -> Self {
        self.metadata.insert(key.into(), value);
        self
    }

    /// Adds host-only metadata.
    #[must_use]
    pub fn with_private_metadata(mut self, key: impl Into<String>, value: Value) -> Self {
        self.private_metadata.insert(key.into(), value);
        self
    }
}

//! The result of preprocessing human input supplied with an approval.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::JsonMap;

/// Replacement arguments and approval metadata produced by a tool's
/// user-input preprocessor before an approved call runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolUserInputPreprocessResult {
    /// Arguments that replace the model's arguments, if any.
    pub override_arguments: Option<Value>,
    /// Metadata recorded on the approval.
    pub approval_metadata: JsonMap,
}

impl ToolUserInputPreprocessResult {
    /// An empty result: keep the model's arguments.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Replaces the call's arguments.
    #[must_use]
    pub fn with_override_arguments(mut self, arguments: Value) -> Self {
        self.override_arguments = Some(arguments);
        self
    }

    /// Records approval metadata.
    #[must_use]
    pub fn with_approval_metadata(mut self, key: impl Into<String>, value: Value) -> Self {
        self.approval_metadata.insert(key.into(), value);
        self
    }
}

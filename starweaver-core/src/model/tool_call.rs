//! A model's request to call one tool.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Arguments of a tool call as the model sent them.
///
/// Providers deliver either parsed JSON or the raw argument string; the raw
/// form is kept so malformed JSON becomes a clear retry prompt instead of a
/// transport error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolCallArguments {
    /// Already-parsed JSON arguments.
    Json(Value),
    /// Raw argument text, parsed when the call is dispatched.
    Raw(String),
}

impl ToolCallArguments {
    /// The parsed JSON, when the arguments arrived parsed.
    #[must_use]
    pub fn as_json(&self) -> Option<&Value> {
        match self {
            Self::Json(value) => Some(value),
            Self::Raw(_) => None,
        }
    }

    /// Parses the arguments into JSON. An empty raw string means `{}`.
    ///
    /// # Errors
    /// Returns the JSON parser's message when the raw text is not valid JSON.
    pub fn to_json(&self) -> Result<Value, String> {
        match self {
            Self::Json(value) => Ok(value.clone()),
            Self::Raw(text) if text.trim().is_empty() => Ok(Value::Object(serde_json::Map::new())),
            Self::Raw(text) => serde_json::from_str(text).map_err(|error| error.to_string()),
        }
    }
}

impl Default for ToolCallArguments {
    fn default() -> Self {
        Self::Json(Value::Object(serde_json::Map::new()))
    }
}

impl From<Value> for ToolCallArguments {
    fn from(value: Value) -> Self {
        Self::Json(value)
    }
}

impl From<String> for ToolCallArguments {
    fn from(value: String) -> Self {
        Self::Raw(value)
    }
}

impl From<&str> for ToolCallArguments {
    fn from(value: &str) -> Self {
        Self::Raw(value.to_string())
    }
}

/// One tool call proposed by a model.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolCallPart {
    /// Provider call id, echoed back on the matching return.
    pub id: String,
    /// Name of the tool to call.
    pub name: String,
    /// Arguments as sent by the model.
    pub arguments: ToolCallArguments,
}

impl ToolCallPart {
    /// Creates a call part.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<ToolCallArguments>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_arguments_parse_and_report_errors() {
        assert_eq!(
            ToolCallArguments::from("{\"a\":1}").to_json(),
            Ok(serde_json::json!({"a": 1}))
        );
        assert_eq!(
            ToolCallArguments::from("  ").to_json(),
            Ok(serde_json::json!({}))
        );
        assert!(ToolCallArguments::from("{oops").to_json().is_err());
    }

    #[test]
    fn raw_and_json_arguments_survive_serialization() {
        for arguments in [
            ToolCallArguments::from("{oops"),
            ToolCallArguments::from(serde_json::json!("{oops")),
            ToolCallArguments::from(serde_json::json!({"a": [1, 2]})),
        ] {
            let text = serde_json::to_string(&arguments).unwrap_or_default();
            let back: Result<ToolCallArguments, _> = serde_json::from_str(&text);
            assert_eq!(back.ok(), Some(arguments));
        }
    }
}

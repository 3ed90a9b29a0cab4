//! A tool return as the text both protocols carry.

use std::borrow::Cow;

use serde_json::Value;

use crate::model::ToolReturnPart;

/// The return's content: a string as it is, other JSON serialized compactly.
pub(crate) fn return_text(part: &ToolReturnPart) -> Cow<'_, str> {
    match &part.content {
        Value::String(text) => Cow::Borrowed(text),
        other => Cow::Owned(other.to_string()),
    }
}

//! A tool return as the text both protocols carry.

use std::borrow::Cow;

use serde_json::Value;

use starweaver_core::model::ToolReturnPart;

/// The return's content: a string as it is, other JSON serialized compactly.
pub(crate) fn return_text(part: &ToolReturnPart) -> Cow<'_, str> {
    match &part.content {
        Value::String(text) => Cow::Borrowed(text),
        other => Cow::Owned(compact(other)),
    }
}

/// `value` as compact JSON text. `serde_json::to_string` writes straight into the string;
/// `Value`'s `Display` (`to_string()`) goes through a formatter per token and is several
/// times slower on the large returns every request carries again.
pub(crate) fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| value.to_string())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn compact_text_is_what_display_writes() {
        let value = json!({
            "entries": [{"name": "a \"quoted\"\nname", "size": 1.5e3, "ok": true}, null],
            "unicode": "héllo \u{1F600} \u{0007}",
            "big": u64::MAX,
            "negative": -12,
        });
        assert_eq!(compact(&value), value.to_string());
        assert_eq!(compact(&json!("plain")), "\"plain\"");
    }
}

//! Bounds on what hostile input may cost. A model, a manifest or a file
//! on disk can send values of any size or depth; these helpers keep what
//! is echoed back and what is walked bounded, without recursion.

use std::borrow::Cow;

use serde_json::Value;

/// At most this many bytes of any value an error echoes back (a path, a
/// tool name, a pattern, an argument name, parser text).
pub const MAX_ECHO_BYTES: usize = 256;

/// How deeply JSON may nest where nobody configured a limit: the depth
/// `serde_json` itself allows when it parses text.
pub const MAX_JSON_DEPTH: usize = 128;

/// `text` cut to at most `max_bytes` bytes on a character boundary, with
/// a marker saying how long it was. Borrowed when it already fits.
///
/// ```
/// use starweaver_core::bounds::shorten;
/// assert_eq!(shorten("short", 16), "short");
/// let long = "x".repeat(1_000);
/// let cut = shorten(&long, 64);
/// assert!(cut.len() <= 64 && cut.ends_with("[1000 bytes, shortened]"));
/// ```
#[must_use]
pub fn shorten(text: &str, max_bytes: usize) -> Cow<'_, str> {
    if text.len() <= max_bytes {
        return Cow::Borrowed(text);
    }
    let marker = format!("… [{} bytes, shortened]", text.len());
    if marker.len() >= max_bytes {
        return Cow::Owned(head(text, max_bytes).to_string());
    }
    let mut shortened = head(text, max_bytes - marker.len()).to_string();
    shortened.push_str(&marker);
    Cow::Owned(shortened)
}

/// `text` cut to at most `max_chars` characters (not bytes), the last
/// one an ellipsis when it was cut: for text people read in characters
/// (skill names and descriptions, the test model's summaries). Borrowed
/// when it already fits; a cut always keeps the ellipsis, even at 0.
///
/// ```
/// use starweaver_core::bounds::shorten_chars;
/// assert_eq!(shorten_chars("héllo wörld", 5), "héll…");
/// assert_eq!(shorten_chars("héllo", 5), "héllo");
/// ```
#[must_use]
pub fn shorten_chars(text: &str, max_chars: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max_chars) {
        None => Cow::Borrowed(text),
        Some(_) => {
            let mut shortened: String = text.chars().take(max_chars.saturating_sub(1)).collect();
            shortened.push('…');
            Cow::Owned(shortened)
        }
    }
}

/// A value for an error message: at most [`MAX_ECHO_BYTES`] bytes.
#[must_use]
pub fn echo(value: &str) -> Cow<'_, str> {
    shorten(value, MAX_ECHO_BYTES)
}

/// The longest prefix of `text` of at most `max_bytes` bytes that ends on
/// a character boundary.
#[must_use]
pub fn head(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut cut = max_bytes;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    &text[..cut]
}

/// True when `value` nests arrays and objects more than `max_depth`
/// levels deep (a scalar is depth 0, `[1]` depth 1). Walks without
/// recursion, and stops at the first level past the limit.
#[must_use]
pub fn exceeds_depth(value: &Value, max_depth: usize) -> bool {
    if !is_container(value) {
        return false;
    }
    // A container of scalars (the common case: flat arguments, a flat
    // result) is depth 1: one pass over its children, no walk.
    if max_depth >= 1 && nested(value).next().is_none() {
        return false;
    }
    let mut pending = Vec::new();
    let mut next = Some((value, 1));
    while let Some((value, depth)) = next.take().or_else(|| pending.pop()) {
        if depth > max_depth {
            return true;
        }
        pending.extend(nested(value).map(|child| (child, depth + 1)));
    }
    false
}

/// The arrays and objects directly inside `value`.
fn nested(value: &Value) -> impl Iterator<Item = &Value> {
    let (items, values) = match value {
        Value::Array(items) => (Some(items.iter()), None),
        Value::Object(map) => (None, Some(map.values())),
        _ => (None, None),
    };
    items
        .into_iter()
        .flatten()
        .chain(values.into_iter().flatten())
        .filter(|child| is_container(child))
}

fn is_container(value: &Value) -> bool {
    matches!(value, Value::Array(_) | Value::Object(_))
}

/// Drops a JSON value of any depth without recursion. `serde_json`'s own
/// drop recurses once per level and overflows the stack on values a
/// hundred thousand levels deep.
pub fn drop_deep(value: Value) {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Array(items) => pending.extend(items),
            Value::Object(map) => pending.extend(map.into_iter().map(|(_, child)| child)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortening_keeps_char_boundaries_and_the_limit() {
        let text = "é".repeat(500);
        for max in [0, 1, 3, 10, 40, 255, 256, 999] {
            let cut = shorten(&text, max);
            assert!(cut.len() <= max, "{max}: {}", cut.len());
        }
        assert_eq!(echo("name"), "name");
        assert!(echo(&"n".repeat(100_000)).len() <= MAX_ECHO_BYTES);
        assert_eq!(head("aé", 2), "a");
    }

    fn nested(depth: usize) -> Value {
        let mut value = Value::Null;
        for _ in 0..depth {
            value = Value::Array(vec![value]);
        }
        value
    }

    #[test]
    fn depth_is_measured_without_recursion() {
        assert!(!exceeds_depth(&serde_json::json!(1), 0));
        assert!(exceeds_depth(&serde_json::json!([1]), 0));
        assert!(exceeds_depth(&serde_json::json!({"a": 1}), 0));
        assert!(!exceeds_depth(&serde_json::json!({"a": 1, "b": "x"}), 1));
        assert!(!exceeds_depth(&serde_json::json!([]), 1));
        assert!(exceeds_depth(&serde_json::json!({"a": 1, "b": {}}), 1));
        assert!(!exceeds_depth(&serde_json::json!({"a": [1]}), 2));
        assert!(exceeds_depth(&serde_json::json!({"a": [[1]]}), 2));
        let deep = nested(200_000);
        assert!(exceeds_depth(&deep, 128));
        assert!(!exceeds_depth(&nested(128), 128));
        drop_deep(deep);
    }
}

//! The one place that bounds what goes back to the model: error
//! messages, the values they echo, and the size of any return's content
//! (see [`ToolLimits`]).

use serde_json::{json, Value};

use crate::bounds::{head, shorten};
use crate::tools::ToolLimits;
use crate::JsonMap;

/// Metadata key set on a return whose content was shortened.
pub(crate) const SHORTENED_METADATA_KEY: &str = "shortened";

/// An error message for the model: every quoted span (between backticks
/// or double quotes, as messages quote paths, names, patterns and parser
/// input) at most `max_echo_bytes`, then the whole message at most
/// `max_message_bytes`, keeping its head and its tail (where messages
/// usually say how to fix the problem).
pub(crate) fn bound_message(message: &str, limits: &ToolLimits) -> String {
    let message = shorten_quoted(message, limits.max_echo_bytes);
    let max = limits.max_message_bytes;
    if message.len() <= max {
        return message;
    }
    let marker = format!(" … [{} bytes shortened] … ", message.len());
    let Some(room) = max.checked_sub(marker.len()) else {
        return head(&message, max).to_string();
    };
    let tail_len = room / 4;
    let front = head(&message, room - tail_len);
    let mut start = message.len() - tail_len;
    while !message.is_char_boundary(start) {
        start += 1;
    }
    format!("{front}{marker}{}", &message[start..])
}

/// Shortens every quoted span longer than `max_echo_bytes`. One pass,
/// linear in the message.
fn shorten_quoted(message: &str, max_echo_bytes: usize) -> String {
    let mut out = String::with_capacity(message.len().min(64 * 1024));
    let mut rest = message;
    while let Some(open) = rest.find(['`', '"']) {
        let quote = &rest[open..=open];
        out.push_str(&rest[..=open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find(quote) else {
            rest = after;
            break;
        };
        out.push_str(&shorten(&after[..close], max_echo_bytes));
        out.push_str(quote);
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// Shortens every string (and object key) inside `value` to
/// `max_echo_bytes`, without recursion.
pub(crate) fn bound_echoes(value: &mut Value, max_echo_bytes: usize) {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::String(text) => {
                if let std::borrow::Cow::Owned(short) = shorten(text, max_echo_bytes) {
                    *text = short;
                }
            }
            Value::Array(items) => pending.extend(items.iter_mut()),
            Value::Object(map) => {
                if map.keys().any(|key| key.len() > max_echo_bytes) {
                    *map = std::mem::take(map)
                        .into_iter()
                        .map(|(key, child)| (shorten(&key, max_echo_bytes).into_owned(), child))
                        .collect();
                }
                pending.extend(map.values_mut());
            }
            _ => {}
        }
    }
}

/// Content nested deeper than `max_argument_depth` is dropped (it could
/// not be serialized without overflowing the stack); content larger than
/// `max_return_bytes` when serialized becomes the head of its JSON text.
/// `metadata` says what was cut. Small content is measured without
/// serializing it, in one pass that allocates nothing for flat values.
pub(crate) fn bound_content(content: Value, metadata: &mut JsonMap, limits: &ToolLimits) -> Value {
    let max = limits.max_return_bytes;
    match verdict(&content, limits.max_argument_depth, max) {
        Verdict::Fits => return content,
        Verdict::TooDeep => {
            crate::bounds::drop_deep(content);
            metadata.insert(
                SHORTENED_METADATA_KEY.to_string(),
                json!({"reason": "too_deep", "max_depth": limits.max_argument_depth}),
            );
            return Value::String(format!(
                "the tool returned JSON nested more than {} levels deep; it was dropped",
                limits.max_argument_depth
            ));
        }
        Verdict::MayBeLarge => {}
    }
    let text = serde_json::to_string(&content).unwrap_or_default();
    if text.len() <= max {
        return content;
    }
    metadata.insert(
        SHORTENED_METADATA_KEY.to_string(),
        json!({"reason": "too_large", "original_bytes": text.len(), "max_return_bytes": max}),
    );
    // The text is JSON, so quotes are escaped once more when the string
    // is serialized: shrink until the serialized string fits.
    let mut budget = max;
    loop {
        let short = shorten(&text, budget).into_owned();
        let serialized = serde_json::to_string(&short).map_or(usize::MAX, |json| json.len());
        if serialized <= max || budget == 0 {
            return Value::String(short);
        }
        budget = budget.saturating_sub((serialized - max).max(budget / 8));
    }
}

/// What one pass over content found.
enum Verdict {
    /// Within both limits.
    Fits,
    /// Nested past the depth limit.
    TooDeep,
    /// An upper bound on its serialized size (strings count six bytes a
    /// byte, the worst escape) is over the size limit: serialize to know.
    MayBeLarge,
}

/// Depth and an upper bound on serialized size in one pass, without
/// recursion. Deep content is reported even when it is also large, since
/// serializing it would overflow the stack.
fn verdict(value: &Value, max_depth: usize, max_bytes: usize) -> Verdict {
    let mut total = 0usize;
    let mut large = false;
    // `Vec::new` does not allocate until a nested container is met.
    let mut pending: Vec<(&Value, usize)> = Vec::new();
    let mut next = Some((value, 0usize));
    while let Some((value, depth)) = next.take().or_else(|| pending.pop()) {
        match value {
            Value::Array(items) => {
                if depth + 1 > max_depth {
                    return Verdict::TooDeep;
                }
                total = total.saturating_add(2);
                for child in items {
                    let cost = account(child, depth, &mut pending);
                    total = total.saturating_add(cost.saturating_add(1));
                }
            }
            Value::Object(map) => {
                if depth + 1 > max_depth {
                    return Verdict::TooDeep;
                }
                total = total.saturating_add(2);
                for (key, child) in map {
                    let cost = account(child, depth, &mut pending);
                    let key = key.len().saturating_mul(6).saturating_add(4);
                    total = total.saturating_add(cost.saturating_add(key));
                }
            }
            scalar => total = total.saturating_add(scalar_size(scalar)),
        }
        // Past the size bound, keep walking only to rule out depth.
        large = large || total > max_bytes;
    }
    if large {
        Verdict::MayBeLarge
    } else {
        Verdict::Fits
    }
}

/// A child's own size bound when it is a scalar; a container is queued
/// (at `depth + 1`) and counted when its turn comes.
fn account<'v>(child: &'v Value, depth: usize, pending: &mut Vec<(&'v Value, usize)>) -> usize {
    match child {
        Value::Array(_) | Value::Object(_) => {
            pending.push((child, depth + 1));
            0
        }
        scalar => scalar_size(scalar),
    }
}

/// An upper bound on a scalar's serialized size.
fn scalar_size(value: &Value) -> usize {
    match value {
        Value::String(text) => text.len().saturating_mul(6).saturating_add(2),
        Value::Number(_) => 24,
        _ => 5,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_spans_are_shortened_and_the_message_capped() {
        let limits = ToolLimits::default();
        let name = "n".repeat(1_000_000);
        let message = format!("unknown field `{name}`, expected one of `path`, `content`");
        let bounded = bound_message(&message, &limits);
        assert!(bounded.len() < 400, "{}", bounded.len());
        assert!(bounded.ends_with("expected one of `path`, `content`"));
        let plain = format!("{} how to fix it", "x".repeat(100_000));
        let bounded = bound_message(&plain, &limits);
        assert!(bounded.len() <= limits.max_message_bytes);
        assert!(bounded.ends_with("how to fix it"));
        assert_eq!(bound_message("a `short` one", &limits), "a `short` one");
        assert_eq!(bound_message("stray ` quote", &limits), "stray ` quote");
    }

    #[test]
    fn echoes_in_details_and_large_content_are_bounded() {
        let mut details =
            json!({"path": "p".repeat(10_000), "k".repeat(1_000): [ "v".repeat(500) ]});
        bound_echoes(&mut details, 256);
        assert!(serde_json::to_string(&details).unwrap_or_default().len() < 1_000);
        let limits = ToolLimits::default().with_max_return_bytes(100);
        let mut metadata = JsonMap::new();
        let small = bound_content(json!({"a": 1}), &mut metadata, &limits);
        assert_eq!(small, json!({"a": 1}));
        assert!(metadata.is_empty());
        let quotes = json!({"text": "\"".repeat(1_000)});
        let big = bound_content(quotes, &mut metadata, &limits);
        let serialized = serde_json::to_string(&big).unwrap_or_default();
        assert!(serialized.len() <= 100, "{serialized}");
        assert_eq!(metadata[SHORTENED_METADATA_KEY]["max_return_bytes"], 100);
        let mut deep = Value::Null;
        for _ in 0..100_000 {
            deep = Value::Array(vec![deep]);
        }
        let dropped = bound_content(deep, &mut metadata, &limits);
        assert!(dropped
            .as_str()
            .is_some_and(|text| text.contains("128 levels")));
    }
}

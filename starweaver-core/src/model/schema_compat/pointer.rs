//! JSON Pointers into the original schema and local `$ref` resolution.

use serde_json::Value;

/// `parent` extended by one reference token, escaped (`~` as `~0`, `/` as
/// `~1`).
pub(super) fn child(parent: &str, token: &str) -> String {
    let mut path = String::with_capacity(parent.len() + token.len() + 1);
    path.push_str(parent);
    path.push('/');
    for c in token.chars() {
        match c {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            other => path.push(other),
        }
    }
    path
}

/// The JSON Pointer a local reference names (`#/$defs/X` -> `/$defs/X`),
/// or `None` for a remote or anchor reference.
pub(super) fn local_pointer(reference: &str) -> Option<&str> {
    let pointer = reference.strip_prefix('#')?;
    (pointer.is_empty() || pointer.starts_with('/')).then_some(pointer)
}

/// The value a local reference names inside `root`.
pub(super) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = local_pointer(reference)?;
    if pointer.contains('%') {
        // Percent-encoded pointers (`#/$defs/a%20b`) are rare in tool
        // schemas; decoding is not worth a dependency.
        return None;
    }
    root.pointer(pointer)
}

/// `reference` followed through at most a few `$ref`-only hops to a
/// schema that is not just a reference.
pub(super) fn resolve_chain<'a>(root: &'a Value, reference: &str) -> Option<(&'a Value, String)> {
    let mut reference = reference.to_string();
    for _ in 0..8 {
        let target = resolve(root, &reference)?;
        let pointer = local_pointer(&reference)?.to_string();
        match target.get("$ref").and_then(Value::as_str) {
            Some(next) if target.as_object().is_some_and(|map| map.len() == 1) => {
                reference = next.to_string();
            }
            _ => return Some((target, pointer)),
        }
    }
    None
}

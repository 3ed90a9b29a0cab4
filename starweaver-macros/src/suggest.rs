//! "Did you mean" for unknown attribute keys.

/// The error text for an unknown `key` among `known`: names the closest
/// known key when one is close enough, and always lists them all.
pub(crate) fn unknown_key(what: &str, key: &str, known: &[&str]) -> String {
    let closest = known
        .iter()
        .map(|candidate| (strsim::jaro_winkler(key, candidate), *candidate))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let list = known
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match closest {
        Some((_, candidate)) => {
            format!("unknown {what} `{key}`; did you mean `{candidate}`? (known keys: {list})")
        }
        None => format!("unknown {what} `{key}`; known keys: {list}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_closest_key_and_lists_all() {
        let text = unknown_key("key", "timeout", &["timeout_ms", "tags"]);
        assert!(text.contains("did you mean `timeout_ms`?"), "{text}");
        assert!(text.contains("`tags`"), "{text}");
        let far = unknown_key("key", "zzz", &["timeout_ms"]);
        assert!(!far.contains("did you mean"), "{far}");
    }
}

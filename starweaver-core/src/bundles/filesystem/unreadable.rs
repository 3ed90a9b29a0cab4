//! How `glob` and `grep` report what they could not read, so a
//! permission-denied subtree does not look like "no matches".

/// Paths named in the hint (the report names a few more).
const NAMED: usize = 3;

/// A hint when `count` directories or files could not be read.
pub(super) fn unreadable_hint(count: usize, paths: &[String]) -> Option<String> {
    if count == 0 {
        return None;
    }
    let mut named: Vec<String> = paths
        .iter()
        .take(NAMED)
        .map(|path| format!("`{path}`"))
        .collect();
    if count > named.len() {
        named.push(format!("and {} more", count - named.len()));
    }
    Some(format!(
        "{count} path(s) could not be read and were skipped ({}), so matches there are missing; \
         check permissions or search them directly",
        named.join(", ")
    ))
}

/// Serde's `skip_serializing_if` for the counts, omitted when zero.
pub(super) fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// Hints joined into one, or none.
pub(super) fn join_hints(hints: impl IntoIterator<Item = Option<String>>) -> Option<String> {
    let hints: Vec<String> = hints.into_iter().flatten().collect();
    (!hints.is_empty()).then(|| hints.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_a_few_and_counts_the_rest() {
        assert_eq!(unreadable_hint(0, &[]), None);
        let paths: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let hint = unreadable_hint(12, &paths).unwrap_or_default();
        assert!(hint.starts_with("12 path(s)"), "{hint}");
        assert!(hint.contains("`a`, `b`, `c`, and 9 more"), "{hint}");
        assert_eq!(
            join_hints([None, Some("x.".to_string()), Some("y.".to_string())]),
            Some("x. y.".to_string())
        );
    }
}

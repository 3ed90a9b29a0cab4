//! Foreign tool names to names that follow the rule: an MCP server names its tools with up to
//! 128 characters of `[A-Za-z0-9_.-]` (and sometimes others), while providers accept only
//! `^[A-Za-z0-9_-]{1,64}$`. The mapping is deterministic, so the manifest checker and the MCP
//! client compute the same name for the same tool, and the client keeps the table from mapped
//! names back to the server's own (two names that map to one are its load error).

use sha2::{Digest, Sha256};

use crate::{is_name_char, MAX_TOOL_NAME_CHARS};

/// What joins a prefix to a tool's own name (`ev` and `get-sum` make `ev_get-sum`).
pub const PREFIX_SEPARATOR: char = '_';

/// What replaces each character a name may not hold (`a.b` becomes `a_b`).
pub const REPLACEMENT: char = '_';

/// Hex digits of the SHA-256 of the full name that end a shortened name.
pub const SHORT_HASH_DIGITS: usize = 8;

/// The name the model sees for the foreign tool `name`, under `prefix` when there is one.
///
/// The full name is `prefix`, [`PREFIX_SEPARATOR`] and `name` (or `name` alone). Every
/// character outside `[A-Za-z0-9_-]` is replaced with [`REPLACEMENT`]. A result longer than
/// [`MAX_TOOL_NAME_CHARS`] (or an empty one) is shortened: its first characters, then `_`, then
/// the first [`SHORT_HASH_DIGITS`] hex digits of the SHA-256 of the full name as written, so two
/// long names that share their first 55 characters still map apart. The result always follows
/// the rule.
///
/// ```
/// use starweaver_names::{is_valid_name, map_tool_name};
///
/// assert_eq!(map_tool_name(Some("ev"), "get-sum"), "ev_get-sum");
/// assert_eq!(map_tool_name(None, "files.read"), "files_read");
/// let long = map_tool_name(None, &"x".repeat(90));
/// assert_eq!(long.len(), 64);
/// assert!(is_valid_name(&long));
/// ```
#[must_use]
pub fn map_tool_name(prefix: Option<&str>, name: &str) -> String {
    let full = match prefix {
        Some(prefix) => format!("{prefix}{PREFIX_SEPARATOR}{name}"),
        None => name.to_owned(),
    };
    let replaced: String = full
        .chars()
        .map(|c| if is_name_char(c) { c } else { REPLACEMENT })
        .collect();
    let length = replaced.chars().count();
    if length > 0 && length <= MAX_TOOL_NAME_CHARS {
        return replaced;
    }
    let hash = short_hash(&full);
    if length == 0 {
        return hash;
    }
    let kept = MAX_TOOL_NAME_CHARS - SHORT_HASH_DIGITS - 1;
    let head: String = replaced.chars().take(kept).collect();
    format!("{head}_{hash}")
}

/// The first [`SHORT_HASH_DIGITS`] lower-case hex digits of the SHA-256 of `text`.
fn short_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let mut hex = String::with_capacity(SHORT_HASH_DIGITS);
    for byte in digest.iter().take(SHORT_HASH_DIGITS / 2) {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::is_valid_name;

    #[test]
    fn a_name_that_follows_the_rule_is_kept_and_a_prefix_is_joined_with_an_underscore() {
        assert_eq!(map_tool_name(None, "echo"), "echo");
        assert_eq!(map_tool_name(Some("ev"), "get-sum"), "ev_get-sum");
    }

    #[test]
    fn unusable_characters_are_replaced_one_for_one() {
        assert_eq!(map_tool_name(None, "files.read"), "files_read");
        assert_eq!(map_tool_name(Some("my docs"), "a/b"), "my_docs_a_b");
        assert_eq!(map_tool_name(None, "café"), "caf_");
    }

    #[test]
    fn a_long_name_is_shortened_and_ends_with_the_hash_of_the_full_name() {
        let name = "a".repeat(90);
        let mapped = map_tool_name(None, &name);
        assert_eq!(mapped.chars().count(), MAX_TOOL_NAME_CHARS);
        assert!(is_valid_name(&mapped));
        // SHA-256 of ninety `a`s.
        let digest = Sha256::digest(name.as_bytes());
        let expected = format!(
            "{:02x}{:02x}{:02x}{:02x}",
            digest[0], digest[1], digest[2], digest[3]
        );
        assert!(mapped.ends_with(&format!("_{expected}")), "{mapped}");
        assert!(mapped.starts_with(&"a".repeat(55)));
        // The hash is of the full name, prefix included, as written.
        let prefixed = map_tool_name(Some("p.q"), &name);
        let full = Sha256::digest(format!("p.q_{name}").as_bytes());
        assert!(prefixed.ends_with(&format!(
            "{:02x}{:02x}{:02x}{:02x}",
            full[0], full[1], full[2], full[3]
        )));
        // Two long names that share their head map apart.
        let other = format!("{}b", "a".repeat(89));
        assert_ne!(map_tool_name(None, &other), mapped);
        // Exactly the limit is kept as it is.
        assert_eq!(map_tool_name(None, &"z".repeat(64)), "z".repeat(64));
    }

    #[test]
    fn the_known_hash_of_a_known_name() {
        // SHA-256("abc") = ba7816bf...
        assert_eq!(short_hash("abc"), "ba7816bf");
    }

    #[test]
    fn an_empty_name_becomes_its_hash() {
        let mapped = map_tool_name(None, "");
        // SHA-256 of nothing starts e3b0c442.
        assert_eq!(mapped, "e3b0c442");
        assert!(is_valid_name(&mapped));
    }
}

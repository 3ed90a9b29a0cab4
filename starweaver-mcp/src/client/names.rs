//! Server tool names mapped to the names providers accept
//! (`^[A-Za-z0-9_-]{1,64}$`): deterministic, and reversible through the
//! table the toolset keeps.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use sha2::{Digest, Sha256};
use starweaver_core::tools::MAX_TOOL_NAME_CHARS;

use super::McpError;

/// Hex digits of the hash a shortened name ends with.
const HASH_DIGITS: usize = 8;

/// The name the model sees for the server's tool `server_name`, under
/// `prefix` (joined with `_`).
///
/// Characters providers refuse (MCP allows `.` and more) become `_`. A
/// result longer than 64 characters keeps its first 55 and ends with `_`
/// and the first 8 hex digits of the SHA-256 of the full, prefixed name,
/// so two long names that share a start still differ. The same input
/// always maps to the same name; the toolset keeps the table that maps
/// it back, and two tools that map to one name are an error naming both.
///
/// ```
/// use starweaver_mcp::client::map_tool_name;
/// assert_eq!(map_tool_name("get-sum", Some("ev")), "ev_get-sum");
/// assert_eq!(map_tool_name("files.read", None), "files_read");
/// let long = map_tool_name(&"x".repeat(90), None);
/// assert_eq!(long.len(), 64);
/// ```
#[must_use]
pub fn map_tool_name(server_name: &str, prefix: Option<&str>) -> String {
    let full = match prefix {
        Some(prefix) => format!("{prefix}_{server_name}"),
        None => server_name.to_string(),
    };
    let mut mapped: String = full
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if mapped.is_empty() {
        mapped.push('_');
    }
    if mapped.chars().count() <= MAX_TOOL_NAME_CHARS {
        return mapped;
    }
    let keep = MAX_TOOL_NAME_CHARS - HASH_DIGITS - 1;
    let mut short: String = mapped.chars().take(keep).collect();
    short.push('_');
    let digest = Sha256::digest(full.as_bytes());
    for byte in digest.iter().take(HASH_DIGITS / 2) {
        let _ = write!(short, "{byte:02x}");
    }
    short
}

/// The mapped names of one server's offered tools and the way back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct NameTable {
    /// Mapped name to the server's own name.
    to_server: BTreeMap<String, String>,
}

impl NameTable {
    /// The table for `server_names` under `prefix`.
    ///
    /// # Errors
    /// [`McpError::NameCollision`] when two names map to one.
    pub(crate) fn build<'a>(
        toolset: &str,
        server_names: impl IntoIterator<Item = &'a str>,
        prefix: Option<&str>,
    ) -> Result<Self, McpError> {
        let mut to_server: BTreeMap<String, String> = BTreeMap::new();
        for name in server_names {
            let mapped = map_tool_name(name, prefix);
            if let Some(first) = to_server.get(&mapped) {
                if first != name {
                    return Err(McpError::NameCollision {
                        toolset: toolset.to_string(),
                        first: first.clone(),
                        second: name.to_string(),
                        mapped,
                    });
                }
                continue;
            }
            to_server.insert(mapped, name.to_string());
        }
        Ok(Self { to_server })
    }

    /// The server's own name of `mapped`.
    pub(crate) fn server_name(&self, mapped: &str) -> Option<&str> {
        self.to_server.get(mapped).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use starweaver_core::tools::validate_tool_name;

    #[test]
    fn prefixes_join_with_an_underscore_and_bad_characters_are_replaced() {
        assert_eq!(map_tool_name("echo", None), "echo");
        assert_eq!(map_tool_name("get-sum", Some("ev")), "ev_get-sum");
        assert_eq!(map_tool_name("a.b/c d", None), "a_b_c_d");
        assert_eq!(map_tool_name("", None), "_");
        assert!(validate_tool_name(&map_tool_name("é€", Some("p"))).is_ok());
    }

    #[test]
    fn long_names_end_with_the_first_eight_hex_digits_of_their_sha256() {
        let name = format!("{}.{}", "a".repeat(60), "b".repeat(29));
        assert_eq!(name.len(), 90);
        let mapped = map_tool_name(&name, None);
        assert_eq!(mapped.len(), 64);
        let digest = Sha256::digest(name.as_bytes());
        let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
        assert!(mapped.ends_with(&format!("_{hex}")), "{mapped}");
        assert!(mapped.starts_with(&"a".repeat(55)));
        // Two long names that share their start still differ.
        let other = format!("{}.{}", "a".repeat(60), "c".repeat(29));
        assert_ne!(map_tool_name(&other, None), mapped);
        assert!(validate_tool_name(&mapped).is_ok());
    }

    #[test]
    fn the_table_maps_back_and_refuses_collisions_naming_both() {
        let long = "x".repeat(90);
        let table = NameTable::build("s", ["a.b", long.as_str(), "c"], Some("p")).unwrap();
        assert_eq!(table.server_name("p_a_b"), Some("a.b"));
        assert_eq!(
            table.server_name(&map_tool_name(&long, Some("p"))),
            Some(long.as_str())
        );
        let error = NameTable::build("s", ["a.b", "a_b"], None).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("`a.b`") && text.contains("`a_b`"), "{text}");
    }
}

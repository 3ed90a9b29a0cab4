//! Server tool names mapped to the names providers accept
//! (`^[A-Za-z0-9_-]{1,64}$`): deterministic, and reversible through the
//! table the toolset keeps.

use std::collections::BTreeMap;

use super::McpError;

/// The name the model sees for a server's tool under an optional prefix
/// (joined with `_`): the one mapping the manifest checker also uses, so
/// `check` and a running toolset agree on every name.
///
/// ```
/// use starweaver_mcp::client::map_tool_name;
/// assert_eq!(map_tool_name(Some("ev"), "get-sum"), "ev_get-sum");
/// assert_eq!(map_tool_name(None, "files.read"), "files_read");
/// let long = map_tool_name(None, &"x".repeat(90));
/// assert_eq!(long.len(), 64);
/// ```
pub use starweaver_names::map_tool_name;

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
            let mapped = map_tool_name(prefix, name);
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
    use sha2::{Digest, Sha256};
    use starweaver_core::tools::validate_tool_name;

    #[test]
    fn prefixes_join_with_an_underscore_and_bad_characters_are_replaced() {
        assert_eq!(map_tool_name(None, "echo"), "echo");
        assert_eq!(map_tool_name(Some("ev"), "get-sum"), "ev_get-sum");
        assert_eq!(map_tool_name(None, "a.b/c d"), "a_b_c_d");
        // An empty name becomes the hash of nothing: still a valid name.
        assert!(validate_tool_name(&map_tool_name(None, "")).is_ok());
        assert!(validate_tool_name(&map_tool_name(Some("p"), "é€")).is_ok());
    }

    #[test]
    fn long_names_end_with_the_first_eight_hex_digits_of_their_sha256() {
        let name = format!("{}.{}", "a".repeat(60), "b".repeat(29));
        assert_eq!(name.len(), 90);
        let mapped = map_tool_name(None, &name);
        assert_eq!(mapped.len(), 64);
        let digest = Sha256::digest(name.as_bytes());
        let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
        assert!(mapped.ends_with(&format!("_{hex}")), "{mapped}");
        assert!(mapped.starts_with(&"a".repeat(55)));
        // Two long names that share their start still differ.
        let other = format!("{}.{}", "a".repeat(60), "c".repeat(29));
        assert_ne!(map_tool_name(None, &other), mapped);
        assert!(validate_tool_name(&mapped).is_ok());
    }

    #[test]
    fn the_table_maps_back_and_refuses_collisions_naming_both() {
        let long = "x".repeat(90);
        let table = NameTable::build("s", ["a.b", long.as_str(), "c"], Some("p")).unwrap();
        assert_eq!(table.server_name("p_a_b"), Some("a.b"));
        assert_eq!(
            table.server_name(&map_tool_name(Some("p"), &long)),
            Some(long.as_str())
        );
        let error = NameTable::build("s", ["a.b", "a_b"], None).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("`a.b`") && text.contains("`a_b`"), "{text}");
    }
}

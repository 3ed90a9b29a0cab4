//! What a tool is for, as far as the test model can tell from its name:
//! the words of the name decide (`write_file` writes, `edit_file` edits).

/// The roles the test model plans around.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Finds tools (`search_tools`, `tool_search`): called with the
    /// prompt's key words, the instructions' key words, then a broad
    /// query.
    Search,
    /// Runs a tool found by a search (`call_tool`).
    ProxyCall,
    /// Creates or replaces a file (`write_file`, `create_...`,
    /// `save_...`): writes the test model's own note file.
    Write,
    /// Changes a file in place (`edit_file`, `replace_...`, `patch_...`):
    /// only a file this run wrote.
    Edit,
    /// Anything else.
    Other,
}

/// The kind of the tool named `name`.
pub(super) fn kind(name: &str) -> Kind {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with("search_tools") || lower.ends_with("tool_search") {
        return Kind::Search;
    }
    if lower.ends_with("call_tool") {
        return Kind::ProxyCall;
    }
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect();
    let has = |names: &[&str]| words.iter().any(|word| names.contains(word));
    if has(&["edit", "replace", "patch", "update", "modify", "append"]) {
        Kind::Edit
    } else if has(&["write", "create", "save"]) {
        Kind::Write
    } else {
        Kind::Other
    }
}

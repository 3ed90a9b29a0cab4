//! Tool names providers accept.

/// Longest tool name providers accept.
pub const MAX_TOOL_NAME_CHARS: usize = 64;

/// How a name breaks the provider rule `^[A-Za-z0-9_-]{1,64}$`. Tool
/// names and skill names share the rule; each says it in its own words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NameProblem {
    /// No characters.
    Empty,
    /// More than [`MAX_TOOL_NAME_CHARS`] characters (the count).
    TooLong(usize),
    /// The first character outside ASCII letters, digits, `_` and `-`.
    BadChar(char),
}

/// The first way `name` breaks the provider rule, if any.
pub(crate) fn name_problem(name: &str) -> Option<NameProblem> {
    if name.is_empty() {
        return Some(NameProblem::Empty);
    }
    let length = name.chars().count();
    if length > MAX_TOOL_NAME_CHARS {
        return Some(NameProblem::TooLong(length));
    }
    name.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
        .map(NameProblem::BadChar)
}

/// Checks a tool name against `^[A-Za-z0-9_-]{1,64}$`, the rule model
/// providers enforce.
///
/// # Errors
/// A sentence saying what is wrong and how to fix it.
pub fn validate_tool_name(name: &str) -> Result<(), String> {
    match name_problem(name) {
        None => Ok(()),
        Some(NameProblem::Empty) => Err("tool names cannot be empty".to_string()),
        Some(NameProblem::TooLong(length)) => Err(format!(
            "tool name `{name}` has {length} characters; providers accept at most {MAX_TOOL_NAME_CHARS} (shorten it or its prefix)"
        )),
        Some(NameProblem::BadChar(bad)) => Err(format!(
            "tool name `{name}` contains {bad:?}; use only ASCII letters, digits, `_` and `-`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_provider_rule() {
        assert!(validate_tool_name("read_file-2").is_ok());
        assert!(validate_tool_name("").is_err());
        assert!(validate_tool_name("bad name").is_err());
        assert!(validate_tool_name("é").is_err());
        assert!(validate_tool_name(&"x".repeat(64)).is_ok());
        assert!(validate_tool_name(&"x".repeat(65)).is_err());
    }
}

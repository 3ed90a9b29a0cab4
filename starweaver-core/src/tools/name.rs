//! Tool names providers accept.

/// Longest tool name providers accept.
pub const MAX_TOOL_NAME_CHARS: usize = 64;

/// Checks a tool name against `^[A-Za-z0-9_-]{1,64}$`, the rule model
/// providers enforce.
///
/// # Errors
/// A sentence saying what is wrong and how to fix it.
pub fn validate_tool_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("tool names cannot be empty".to_string());
    }
    let length = name.chars().count();
    if length > MAX_TOOL_NAME_CHARS {
        return Err(format!(
            "tool name `{name}` has {length} characters; providers accept at most {MAX_TOOL_NAME_CHARS} (shorten it or its prefix)"
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(format!(
            "tool name `{name}` contains {bad:?}; use only ASCII letters, digits, `_` and `-`"
        ));
    }
    Ok(())
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

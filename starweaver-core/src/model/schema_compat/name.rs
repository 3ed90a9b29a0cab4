//! The tool-name rule providers apply.

use super::SchemaIncompatible;
use crate::bounds::echo;

/// Longest tool name providers accept.
const MAX_NAME_CHARS: usize = 64;

/// Checks the tool-name rule both providers apply: 1 to 64 characters of
/// ASCII letters, digits, `_` and `-`. A request with any other name is
/// refused whole, so callers check before sending.
///
/// # Errors
/// [`SchemaIncompatible`] at the root path saying what is wrong and how to
/// rename the tool.
pub fn check_tool_name(name: &str) -> Result<(), SchemaIncompatible> {
    let help = "rename the tool (or its prefix) to 1-64 ASCII letters, digits, `_` or `-`";
    if name.is_empty() {
        return Err(SchemaIncompatible::new("", "the tool name is empty", help));
    }
    let length = name.chars().count();
    if length > MAX_NAME_CHARS {
        return Err(SchemaIncompatible::new(
            "",
            format!(
                "tool name `{}` has {length} characters; providers accept at most {MAX_NAME_CHARS}",
                echo(name)
            ),
            help,
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(SchemaIncompatible::new(
            "",
            format!("tool name `{}` contains {bad:?}", echo(name)),
            help,
        ));
    }
    Ok(())
}

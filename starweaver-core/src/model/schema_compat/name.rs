//! The tool-name rule providers apply, as the adapter reports it. The
//! rule itself lives in the `starweaver-names` crate, shared with the
//! registry and the `#[starweaver::tool]` macro.

use starweaver_names::{name_problem, NameProblem, MAX_TOOL_NAME_CHARS};

use super::SchemaIncompatible;
use crate::bounds::echo;

/// Checks the tool-name rule both providers apply: 1 to 64 characters of
/// ASCII letters, digits, `_` and `-`. A request with any other name is
/// refused whole, so callers check before sending.
///
/// # Errors
/// [`SchemaIncompatible`] at the root path saying what is wrong and how to
/// rename the tool.
pub fn check_tool_name(name: &str) -> Result<(), SchemaIncompatible> {
    let help = "rename the tool (or its prefix) to 1-64 ASCII letters, digits, `_` or `-`";
    let message = match name_problem(name) {
        None => return Ok(()),
        Some(NameProblem::Empty) => "the tool name is empty".to_string(),
        Some(NameProblem::TooLong(length)) => format!(
            "tool name `{}` has {length} characters; providers accept at most {MAX_TOOL_NAME_CHARS}",
            echo(name)
        ),
        Some(NameProblem::BadChar(bad)) => {
            format!("tool name `{}` contains {bad:?}", echo(name))
        }
    };
    Err(SchemaIncompatible::new("", message, help))
}

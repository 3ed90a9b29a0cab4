//! Tool names providers accept. The rule itself lives in the
//! `starweaver-names` crate, which the `#[starweaver::tool]` macro shares;
//! this is the runtime's message for it.

pub use starweaver_names::MAX_TOOL_NAME_CHARS;
use starweaver_names::{name_problem, NameProblem};

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

    #[test]
    fn each_problem_has_its_sentence() {
        assert_eq!(
            validate_tool_name(""),
            Err("tool names cannot be empty".to_string())
        );
        assert_eq!(
            validate_tool_name(&"x".repeat(65)),
            Err(format!(
                "tool name `{}` has 65 characters; providers accept at most 64 (shorten it or its prefix)",
                "x".repeat(65)
            ))
        );
        assert_eq!(
            validate_tool_name("a b"),
            Err(
                "tool name `a b` contains ' '; use only ASCII letters, digits, `_` and `-`"
                    .to_string()
            )
        );
    }
}

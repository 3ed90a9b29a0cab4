//! The tool-name rule: `^[A-Za-z0-9_-]{1,64}$`.
//!
//! Model providers refuse a whole request when one tool in it has another
//! name, so Starweaver checks names before anything is sent: the
//! `#[starweaver::tool]` macro at compile time, the tool registry when a
//! tool is registered, the provider adapter before a request, and the
//! skill loader for skill names (which follow the same rule). This crate
//! is where the rule is written, once; each caller says what is wrong in
//! its own words, from the [`NameProblem`] it gets back.
//!
//! It has no dependencies so that the proc-macro crate can use it without
//! building the runtime for the host. Its `mapping` feature adds
//! [`map_tool_name`], the one mapping of foreign tool names (an MCP
//! server's) to names that follow the rule, which the manifest checker and
//! the MCP client share; it needs SHA-256.
//!
//! ```
//! use starweaver_names::{name_problem, NameProblem};
//!
//! assert_eq!(name_problem("read_file"), None);
//! assert_eq!(name_problem("read file"), Some(NameProblem::BadChar(' ')));
//! ```

#[cfg(feature = "mapping")]
mod mapping;

#[cfg(feature = "mapping")]
pub use mapping::{map_tool_name, PREFIX_SEPARATOR, REPLACEMENT, SHORT_HASH_DIGITS};

/// Longest name providers accept, in characters.
pub const MAX_TOOL_NAME_CHARS: usize = 64;

/// How a name breaks the rule: the first problem found, in the order
/// empty, too long, bad character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameProblem {
    /// No characters.
    Empty,
    /// More than [`MAX_TOOL_NAME_CHARS`] characters (the count).
    TooLong(usize),
    /// The first character outside ASCII letters, digits, `_` and `-`.
    BadChar(char),
}

/// Whether `c` may appear in a name: an ASCII letter or digit, `_` or `-`.
#[must_use]
pub fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// The first way `name` breaks the rule, or `None` for a valid name.
/// Length counts characters, so a long name of non-ASCII letters is
/// reported as too long rather than by its first bad character.
#[must_use]
pub fn name_problem(name: &str) -> Option<NameProblem> {
    if name.is_empty() {
        return Some(NameProblem::Empty);
    }
    let length = name.chars().count();
    if length > MAX_TOOL_NAME_CHARS {
        return Some(NameProblem::TooLong(length));
    }
    name.chars()
        .find(|c| !is_name_char(*c))
        .map(NameProblem::BadChar)
}

/// Whether `name` follows the rule.
#[must_use]
pub fn is_valid_name(name: &str) -> bool {
    name_problem(name).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_names_have_no_problem() {
        for name in ["read_file", "a-B_9", "x", "read_file-2", &"x".repeat(64)] {
            assert_eq!(name_problem(name), None, "{name}");
            assert!(is_valid_name(name), "{name}");
        }
    }

    #[test]
    fn each_problem_is_named() {
        assert_eq!(name_problem(""), Some(NameProblem::Empty));
        assert_eq!(
            name_problem(&"x".repeat(65)),
            Some(NameProblem::TooLong(65))
        );
        assert_eq!(name_problem("bad name"), Some(NameProblem::BadChar(' ')));
        assert_eq!(name_problem("café"), Some(NameProblem::BadChar('é')));
        assert_eq!(name_problem("a.b"), Some(NameProblem::BadChar('.')));
        assert_eq!(name_problem("a/b"), Some(NameProblem::BadChar('/')));
        assert!(!is_valid_name("my tool"));
    }

    #[test]
    fn length_counts_characters_and_comes_before_characters() {
        // 64 two-byte characters: within the length, refused for the character.
        assert_eq!(
            name_problem(&"é".repeat(64)),
            Some(NameProblem::BadChar('é'))
        );
        assert_eq!(
            name_problem(&"é".repeat(65)),
            Some(NameProblem::TooLong(65))
        );
        assert_eq!(
            name_problem(&format!("{} x", "y".repeat(70))),
            Some(NameProblem::TooLong(72))
        );
    }

    #[test]
    fn the_character_class_is_ascii_letters_digits_underscore_and_hyphen() {
        for c in ['a', 'z', 'A', 'Z', '0', '9', '_', '-'] {
            assert!(is_name_char(c), "{c:?}");
        }
        for c in [' ', '.', ':', '/', '$', 'é', 'ß', '\u{0}', '\n'] {
            assert!(!is_name_char(c), "{c:?}");
        }
    }
}

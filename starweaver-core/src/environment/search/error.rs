//! Errors of walks, globs and greps.

use crate::bounds::echo;
use crate::environment::EnvironmentError;

/// Why a search could not run. Bad patterns are errors, never panics, so
/// a tool can hand the message back to whoever wrote the pattern; the
/// pattern is stored and shown shortened to at most
/// [`crate::bounds::MAX_ECHO_BYTES`], so a huge one is not sent back.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// The environment failed (the search root is missing, not a
    /// directory, outside the root, unreadable, ...).
    #[error(transparent)]
    Environment(#[from] EnvironmentError),
    /// The search root is a symbolic link. Searches never follow links
    /// (on a local provider one may point outside the environment), so
    /// the caller must name the target instead.
    #[error(
        "`{}` is a symbolic link, and searches do not follow links; search the link's \
         target path instead",
        echo(.path)
    )]
    SymlinkRoot {
        /// The root-relative path of the link.
        path: String,
    },
    /// The glob pattern does not parse or cannot match anything.
    #[error(
        "invalid glob pattern `{pattern}`: {message}; use `*` within one path segment, `**` \
         across directories and `{{a,b}}` for alternatives"
    )]
    InvalidGlob {
        /// The pattern as given, shortened.
        pattern: String,
        /// What is wrong with it.
        message: String,
    },
    /// The pattern is longer than searches accept
    /// ([`super::MAX_SEARCH_PATTERN_BYTES`]): compiling it would take
    /// memory out of proportion to what it can find.
    #[error(
        "the {kind} pattern is {bytes} bytes, more than the {max_bytes} bytes a search accepts; \
         search for a shorter, distinctive part of it"
    )]
    PatternTooLong {
        /// `"grep"` or `"glob"`.
        kind: &'static str,
        /// The pattern's length.
        bytes: usize,
        /// The limit.
        max_bytes: usize,
    },
    /// The regular expression does not compile.
    #[error(
        "invalid regular expression `{pattern}`: {message}\nescape special characters such as \
         `(` or `[` with `\\`, or search for the text literally"
    )]
    InvalidRegex {
        /// The pattern as given, shortened.
        pattern: String,
        /// What is wrong with it (for a long pattern, without the
        /// pattern the regex crate repeats).
        message: String,
    },
}

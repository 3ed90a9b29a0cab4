//! Ripgrep-style search over any [`super::EnvironmentProvider`]: walks,
//! globs and greps built on `list_dir` and `read_bytes`, so the same
//! rules hold for every provider.
//!
//! Shared rules: output is deterministic (depth-first, names sorted);
//! hidden paths are skipped unless asked for, except the search root's
//! direct `.agents/` directory (skill entrypoints live there); the
//! provider's ignore rules apply; directory symlinks are never followed,
//! and a symlink as the search root is refused; results are capped so a
//! huge tree cannot exhaust memory; long searches yield to the runtime so
//! timeouts and cancellation act.

mod error;
mod glob;
mod grep;
mod lines;
mod pace;
mod pattern;
mod root;
mod visibility;
mod walk;

pub use error::SearchError;
#[cfg(test)]
pub(crate) use glob::generic_glob;
pub use glob::{glob, GlobOptions, GlobReport, DEFAULT_GLOB_MAX_RESULTS};
pub(crate) use glob::{literal_start, relative_to};
pub(crate) use grep::{compile as compile_grep, generic_grep, Search as GrepSearch};
pub use grep::{
    grep, GrepMatch, GrepOptions, GrepReport, DEFAULT_GREP_MAX_FILE_BYTES,
    DEFAULT_GREP_MAX_LINE_CHARS, DEFAULT_GREP_MAX_MATCHES, DEFAULT_GREP_MAX_OUTPUT_BYTES,
};
pub(crate) use pattern::PathPattern;
pub use pattern::MAX_SEARCH_PATTERN_BYTES;
pub(crate) use root::{search_directory, search_root};
pub(crate) use visibility::hides;
pub use visibility::{is_hidden_excluded, AGENTS_DIR};
pub(crate) use walk::NAMED_UNREADABLE;
pub use walk::{walk, WalkOptions, Walker};

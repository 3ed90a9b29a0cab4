//! Environments: where filesystem and shell tools act. One root-relative
//! path space over interchangeable providers: in memory, a local
//! directory, and sandboxes plugging into the same trait.

mod attach;
mod entry;
mod error;
mod file_tree;
mod local;
mod path;
mod provider;
mod search;
mod shell;
mod text;
mod virtual_process;
mod virtual_provider;

pub use attach::{
    attach_environment, attached_environment, tool_environment, ENVIRONMENT_CAPABILITY,
};
pub use entry::{EntryKind, EnvironmentEntry};
pub use error::EnvironmentError;
pub use file_tree::{
    environment_file_tree, FileTreeOptions, DEFAULT_FILE_TREE_MAX_DEPTH,
    DEFAULT_FILE_TREE_MAX_ENTRIES,
};
pub use local::{
    LocalEnvironmentProvider, SandboxKernel, SandboxLauncher, SandboxMode, SandboxPolicy,
    SandboxReads, SandboxReport, LANDLOCK_ABI_FOR_NETWORK, LANDLOCK_ABI_FOR_SCOPES,
    LANDLOCK_ABI_FOR_WRITES,
};
pub use path::{
    file_name, join_path, normalize_path, normalize_path_with, parent_path, PathLimits,
    DEFAULT_MAX_PATH_BYTES, DEFAULT_MAX_PATH_SEGMENTS,
};
pub use provider::{DynEnvironment, EnvironmentProvider};
#[cfg(test)]
pub(crate) use search::generic_glob;
pub(crate) use search::{
    compile_grep, generic_grep, hides, literal_start, relative_to, search_directory, search_root,
    GrepSearch, PathPattern, NAMED_UNREADABLE,
};
pub use search::{
    glob, grep, is_hidden_excluded, walk, GlobOptions, GlobReport, GrepMatch, GrepOptions,
    GrepReport, SearchError, WalkOptions, Walker, AGENTS_DIR, DEFAULT_GLOB_MAX_RESULTS,
    DEFAULT_GREP_MAX_FILE_BYTES, DEFAULT_GREP_MAX_LINE_CHARS, DEFAULT_GREP_MAX_MATCHES,
    DEFAULT_GREP_MAX_OUTPUT_BYTES, MAX_SEARCH_PATTERN_BYTES,
};
pub use shell::*;
pub(crate) use text::{as_text, into_text, is_text};
pub use virtual_provider::VirtualEnvironmentProvider;

//! `filesystem_tools()`: the bundle and what its tools share.

use std::sync::Arc;

use super::edit::edit_file_tool;
use super::glob::glob_tool;
use super::grep::grep_tool;
use super::ls::ls_tool;
use super::read::read_file_tool;
use super::write::write_file_tool;
use super::FilesystemOptions;
use crate::environment::ENVIRONMENT_CAPABILITY;
use crate::tools::DynToolset;
use crate::tools::{ToolDependencyRequirements, ToolInstruction};
use crate::toolsets::StaticToolset;

/// Name (and instruction group) of the filesystem toolset.
pub const FILESYSTEM_TOOLSET_NAME: &str = "filesystem";
/// Tag of the tools that only read.
const READ_ONLY_TAG: &str = "read_only";
/// Tag of the tools that change files.
const MUTATING_TAG: &str = "mutating";

/// The filesystem bundle. Its tools resolve the environment attached to
/// the run (`attach_environment`, `AgentSession::with_environment`)
/// through a Filtered profile that requests only that capability.
///
/// Every tool is tagged `filesystem`; `ls`, `read_file`, `glob` and
/// `grep` also `read_only`, `write_file` and `edit_file` `mutating` (and
/// sequential, so reads in the same batch see a predictable state; never
/// retried internally, as an edit is not idempotent; serialized per file
/// within the process, so concurrent edits are not lost).
///
/// ```
/// use starweaver_core::bundles::filesystem_tools;
/// use starweaver_core::tools::ToolRegistry;
/// let registry = ToolRegistry::new().with_toolset(&filesystem_tools());
/// assert_eq!(
///     registry.names(),
///     ["edit_file", "glob", "grep", "ls", "read_file", "write_file"]
/// );
/// ```
#[must_use]
pub fn filesystem_tools() -> DynToolset {
    FilesystemOptions::default().into_toolset()
}

impl FilesystemOptions {
    /// The filesystem bundle with these options (see
    /// [`filesystem_tools`]).
    #[must_use]
    pub fn into_toolset(self) -> DynToolset {
        Arc::new(
            StaticToolset::new(FILESYSTEM_TOOLSET_NAME)
            .with_tools([
                ls_tool(),
                read_file_tool(self),
                write_file_tool(self),
                edit_file_tool(self),
                glob_tool(),
                grep_tool(),
            ])
            .with_instruction(ToolInstruction::new(
                FILESYSTEM_TOOLSET_NAME,
                "Filesystem tools act on the attached environment; paths are relative to its root. \
                 Find files with glob and text with grep before reading; read a file before \
                 editing it, and prefer edit_file over rewriting whole files. Read a skill's whole \
                 SKILL.md before following it.",
            )),
        )
    }
}

/// The Filtered profile every filesystem tool declares.
pub(super) fn requirements() -> ToolDependencyRequirements {
    ToolDependencyRequirements::filtered([ENVIRONMENT_CAPABILITY])
}

/// Tags of the read-only tools.
pub(super) fn read_only() -> [&'static str; 2] {
    [FILESYSTEM_TOOLSET_NAME, READ_ONLY_TAG]
}

/// Tags of the tools that change files.
pub(super) fn mutating() -> [&'static str; 2] {
    [FILESYSTEM_TOOLSET_NAME, MUTATING_TAG]
}

//! The filesystem bundle: `ls`, `read_file`, `write_file`, `edit_file`,
//! `glob` and `grep` over the environment attached to the run, so one
//! toolset works against any environment provider.

mod edit;
mod glob;
mod grep;
mod lock;
mod ls;
mod options;
mod read;
mod reminder;
mod toolset;
mod unreadable;
mod write;

pub use edit::{EditFileArgs, EDIT_FILE_TOOL_NAME};
pub use glob::{GlobArgs, GLOB_TOOL_NAME};
pub use grep::{GrepArgs, GREP_TOOL_NAME};
pub use ls::{LsArgs, LS_TOOL_NAME};
pub use options::{FilesystemOptions, DEFAULT_MAX_FILE_BYTES};
pub use read::{ReadFileArgs, READ_FILE_TOOL_NAME};
pub use toolset::{filesystem_tools, FILESYSTEM_TOOLSET_NAME};
pub use write::{WriteFileArgs, WRITE_FILE_TOOL_NAME};

use toolset::{mutating, read_only, requirements};

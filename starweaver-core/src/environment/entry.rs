//! What a directory listing returns.

use serde::{Deserialize, Serialize};

/// The kind of an entry in an environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link (never followed by walks).
    Symlink,
}

/// One file, directory or link in an environment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvironmentEntry {
    /// Root-relative path, `/`-separated.
    pub path: String,
    /// Last segment of the path.
    pub name: String,
    /// File, directory or link.
    pub kind: EntryKind,
    /// Size in bytes (0 for directories).
    pub size: u64,
}

impl EnvironmentEntry {
    /// An entry at `path` (root-relative).
    #[must_use]
    pub fn new(path: impl Into<String>, kind: EntryKind, size: u64) -> Self {
        let path = path.into();
        let name = super::file_name(&path).to_string();
        Self {
            path,
            name,
            kind,
            size,
        }
    }

    /// True for regular files.
    #[must_use]
    pub fn is_file(&self) -> bool {
        self.kind == EntryKind::File
    }

    /// True for directories.
    #[must_use]
    pub fn is_dir(&self) -> bool {
        self.kind == EntryKind::Directory
    }

    /// True when the name starts with a dot.
    #[must_use]
    pub fn is_hidden(&self) -> bool {
        self.name.starts_with('.')
    }
}

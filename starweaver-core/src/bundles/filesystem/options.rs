//! What the filesystem bundle may cost per call.

/// Default for [`FilesystemOptions::max_file_bytes`]: 16 MiB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Settings of the filesystem bundle; [`super::filesystem_tools`] uses
/// the defaults, [`FilesystemOptions::into_toolset`] these.
///
/// ```
/// use starweaver_core::bundles::FilesystemOptions;
/// let toolset = FilesystemOptions::default()
///     .with_max_file_bytes(1024 * 1024)
///     .into_toolset();
/// assert_eq!(toolset.get_tools().len(), 6);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct FilesystemOptions {
    /// The largest file `read_file` loads, `write_file` writes and
    /// `edit_file` edits (before and after the edit), in bytes. One limit
    /// for all three, so a file that can be written can be read back and
    /// edited. Larger requests are refused with feedback naming the limit.
    pub max_file_bytes: u64,
}

impl Default for FilesystemOptions {
    fn default() -> Self {
        Self {
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
        }
    }
}

impl FilesystemOptions {
    /// Sets [`Self::max_file_bytes`].
    #[must_use]
    pub fn with_max_file_bytes(mut self, bytes: u64) -> Self {
        self.max_file_bytes = bytes;
        self
    }
}

//! Opening a file to read through the confined root, checked to be a
//! regular file before and after the open. Reads, the ignore-file loader
//! and grep all open files this way.

use cap_std::fs::{Dir, File, OpenOptions, OpenOptionsExt};

use super::errors::{classify, regular};
use super::hooks::Hooks;
use crate::environment::EnvironmentError;

/// Flags for every open of a file to read: a FIFO swapped in after the
/// check does not block the open, and a terminal never becomes the
/// controlling one. (Both are no-ops for the regular files that pass.)
pub(super) const READ_FLAGS: i32 = nix::libc::O_NONBLOCK | nix::libc::O_NOCTTY;

/// Opens the regular file at `path` to read, following links that stay
/// inside the root. The file is checked before it is opened (so a FIFO
/// or device is never opened) and again through the open handle (so
/// what was swapped in between is refused too).
pub(super) fn open_regular(dir: &Dir, path: &str, hooks: &Hooks) -> Result<File, EnvironmentError> {
    if path.is_empty() {
        return Err(EnvironmentError::IsADirectory {
            path: String::new(),
        });
    }
    let metadata = dir
        .metadata(path)
        .map_err(|error| classify(dir, path, error))?;
    regular(path, &metadata)?;
    hooks.before_open();
    let file = dir
        .open_with(path, OpenOptions::new().read(true).custom_flags(READ_FLAGS))
        .map_err(|error| classify(dir, path, error))?;
    let metadata = file
        .metadata()
        .map_err(|error| classify(dir, path, error))?;
    regular(path, &metadata)?;
    Ok(file)
}

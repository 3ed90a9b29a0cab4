//! Reading a file a user named without trusting it: only a regular file is opened (a FIFO would
//! block the open, a device may never end), and the read itself is capped, since a file that
//! grows reports a wrong size.

use std::io::Read as _;
use std::path::Path;

/// Why a capped read failed.
#[derive(Debug, thiserror::Error)]
pub enum ReadLimitedError {
    /// The file could not be opened or read.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The path is a FIFO, a device, a socket or a folder, not a file.
    #[error("it is not a regular file")]
    NotAFile,
    /// The file holds more than the limit.
    #[error("it holds more than {limit} bytes")]
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
}

/// The bytes of the regular file `path`, reading at most one byte past `limit`: a larger file is
/// refused without holding more than that in memory.
///
/// # Errors
/// [`ReadLimitedError`] when the file cannot be read or is larger than `limit`.
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, ReadLimitedError> {
    if !std::fs::metadata(path)?.is_file() {
        // Opening a FIFO waits for a writer that may never come; a device may never end.
        return Err(ReadLimitedError::NotAFile);
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(ReadLimitedError::TooLarge { limit });
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        assert!(matches!(
            read_limited(Path::new("/dev/zero"), 1024),
            Err(ReadLimitedError::NotAFile)
        ));
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a");
        std::fs::write(&file, b"hello").unwrap();
        assert_eq!(read_limited(&file, 5).unwrap(), b"hello");
        assert!(read_limited(&file, 4).is_err());
        assert!(matches!(
            read_limited(&dir.path().join("missing"), 4),
            Err(ReadLimitedError::Io(_))
        ));
        // A FIFO would block the open until a writer came.
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        assert!(matches!(
            read_limited(&fifo, 4),
            Err(ReadLimitedError::NotAFile)
        ));
    }
}

//! Reading a file a user named without trusting its size: a device, a pipe or a file that grows
//! reports a size of 0 (or a wrong one), so the read itself is capped.

use std::io::Read as _;
use std::path::Path;

/// Why a capped read failed.
#[derive(Debug, thiserror::Error)]
pub enum ReadLimitedError {
    /// The file could not be opened or read.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The file holds more than the limit.
    #[error("it holds more than {limit} bytes")]
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
}

/// The bytes of `path`, reading at most one byte past `limit`: a larger file (or an endless
/// one, such as `/dev/zero`) is refused without holding more than that in memory.
///
/// # Errors
/// [`ReadLimitedError`] when the file cannot be read or is larger than `limit`.
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, ReadLimitedError> {
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
    fn an_endless_file_is_refused_and_a_small_one_read() {
        assert!(matches!(
            read_limited(Path::new("/dev/zero"), 1024),
            Err(ReadLimitedError::TooLarge { limit: 1024 })
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
    }
}

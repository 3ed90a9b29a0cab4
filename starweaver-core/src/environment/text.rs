//! Telling text files from binary ones.

/// `bytes` as text: valid UTF-8 with no NUL byte. `None` for anything
/// else, which the filesystem tools treat as binary.
pub(crate) fn as_text(bytes: &[u8]) -> Option<&str> {
    std::str::from_utf8(bytes)
        .ok()
        .filter(|text| !text.contains('\0'))
}

//! Telling text files from binary ones: the one rule every reader uses
//! (`read_text`, `read_file`, `edit_file`, `grep`, skills).

/// `bytes` as text: valid UTF-8 with no NUL byte. `None` for anything
/// else, which is binary.
pub(crate) fn as_text(bytes: &[u8]) -> Option<&str> {
    std::str::from_utf8(bytes).ok().filter(|text| is_text(text))
}

/// The same rule for a string (already UTF-8): text has no NUL byte.
pub(crate) fn is_text(text: &str) -> bool {
    !text.contains('\0')
}

/// `bytes` as an owned text string, by the rule of [`as_text`].
pub(crate) fn into_text(bytes: Vec<u8>) -> Option<String> {
    String::from_utf8(bytes).ok().filter(|text| is_text(text))
}

//! The prompt: `--prompt TEXT`, or standard input read to its end, within a bound.

use std::io::Read;

/// The longest prompt read from standard input.
pub const MAX_STDIN_PROMPT_BYTES: usize = 1024 * 1024;

/// Reads a prompt from `input` to its end: at most [`MAX_STDIN_PROMPT_BYTES`], UTF-8, not
/// blank.
///
/// # Errors
/// A message saying what is wrong with the input and how to give the prompt instead.
pub fn read_prompt(input: impl Read) -> Result<String, String> {
    let mut bytes = Vec::new();
    let limit = u64::try_from(MAX_STDIN_PROMPT_BYTES).unwrap_or(u64::MAX);
    input
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|error| format!("cannot read the prompt from standard input: {error}"))?;
    if bytes.len() > MAX_STDIN_PROMPT_BYTES {
        return Err(format!(
            "the prompt on standard input is longer than {MAX_STDIN_PROMPT_BYTES} bytes; \
             shorten it, or let the agent read a file with its tools"
        ));
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| "the prompt on standard input is not UTF-8 text".to_string())?;
    if text.trim().is_empty() {
        return Err(
            "no prompt: give --prompt TEXT, or pipe the prompt into standard input".to_string(),
        );
    }
    Ok(text.trim_end_matches(['\n', '\r']).to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_prompt_is_read_trimmed_and_bounded() {
        assert_eq!(read_prompt(&b"hello\n"[..]).as_deref(), Ok("hello"));
        assert!(read_prompt(&b"  \n"[..]).unwrap_err().contains("--prompt"));
        let long = vec![b'a'; MAX_STDIN_PROMPT_BYTES + 1];
        assert!(read_prompt(&long[..]).unwrap_err().contains("longer than"));
        assert!(read_prompt(&[0xff, 0xfe][..])
            .unwrap_err()
            .contains("UTF-8"));
    }
}

//! Line arithmetic over byte offsets in a text, for grep results.

/// The `(start, end)` byte range of the line holding `offset`, without
/// its `\n`.
pub(crate) fn line_around(text: &str, offset: usize) -> (usize, usize) {
    let bytes = text.as_bytes();
    let offset = offset.min(bytes.len());
    let start = bytes[..offset]
        .iter()
        .rposition(|byte| *byte == b'\n')
        .map_or(0, |index| index + 1);
    let end = bytes[offset..]
        .iter()
        .position(|byte| *byte == b'\n')
        .map_or(bytes.len(), |index| offset + index);
    (start, end)
}

/// Up to `count` lines before the line starting at `start`, oldest
/// first.
pub(crate) fn context_before(
    text: &str,
    start: usize,
    count: usize,
    max_chars: usize,
) -> Vec<String> {
    let mut lines = Vec::new();
    let mut end = start;
    while lines.len() < count && end > 0 {
        // `end - 1` is the `\n` closing the previous line.
        let (line_start, line_end) = line_around(text, end - 1);
        lines.push(shorten(&text[line_start..line_end], max_chars));
        end = line_start;
    }
    lines.reverse();
    lines
}

/// Up to `count` lines after the line ending at `end`.
pub(crate) fn context_after(text: &str, end: usize, count: usize, max_chars: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut start = end + 1;
    while lines.len() < count && start < text.len() {
        let (_, line_end) = line_around(text, start);
        lines.push(shorten(&text[start..line_end], max_chars));
        start = line_end + 1;
    }
    lines
}

/// The line without a trailing `\r`, cut to `max_chars` characters with
/// a marker saying how much was left out.
pub(crate) fn shorten(line: &str, max_chars: usize) -> String {
    let line = line.strip_suffix('\r').unwrap_or(line);
    match line.char_indices().nth(max_chars) {
        None => line.to_string(),
        Some((cut, _)) => {
            let omitted = line[cut..].chars().count();
            format!("{}… [{omitted} more characters]", &line[..cut])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_context() {
        let text = "one\ntwo\r\nthree\nfour";
        assert_eq!(line_around(text, 0), (0, 3));
        assert_eq!(line_around(text, 5), (4, 8));
        assert_eq!(line_around(text, text.len()), (15, 19));
        let (start, end) = line_around(text, 10);
        assert_eq!(&text[start..end], "three");
        assert_eq!(context_before(text, start, 5, 80), ["one", "two"]);
        assert_eq!(context_after(text, end, 5, 80), ["four"]);
        assert_eq!(context_after("a\n", 1, 2, 80), Vec::<String>::new());
    }

    #[test]
    fn shortens_on_char_boundaries() {
        assert_eq!(shorten("héllo", 2), "hé… [3 more characters]");
        assert_eq!(shorten("ok\r", 5), "ok");
    }
}

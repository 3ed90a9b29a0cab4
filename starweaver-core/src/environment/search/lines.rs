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
/// first, nearest kept while their bytes fit in `budget` (which shrinks
/// by what is returned).
pub(crate) fn context_before(
    text: &str,
    start: usize,
    count: usize,
    max_chars: usize,
    budget: &mut usize,
) -> Vec<String> {
    let mut lines = Vec::new();
    let mut end = start;
    while lines.len() < count && end > 0 {
        // `end - 1` is the `\n` closing the previous line.
        let (line_start, line_end) = line_around(text, end - 1);
        let line = shorten(&text[line_start..line_end], max_chars);
        let Some(left) = budget.checked_sub(line.len()) else {
            break;
        };
        *budget = left;
        lines.push(line);
        end = line_start;
    }
    lines.reverse();
    lines
}

/// Up to `count` lines after the line ending at `end`, while their bytes
/// fit in `budget` (which shrinks by what is returned).
pub(crate) fn context_after(
    text: &str,
    end: usize,
    count: usize,
    max_chars: usize,
    budget: &mut usize,
) -> Vec<String> {
    let mut lines = Vec::new();
    let mut start = end + 1;
    while lines.len() < count && start < text.len() {
        let (_, line_end) = line_around(text, start);
        let line = shorten(&text[start..line_end], max_chars);
        let Some(left) = budget.checked_sub(line.len()) else {
            break;
        };
        *budget = left;
        lines.push(line);
        start = line_end + 1;
    }
    lines
}

/// A matched line cut to about `max_chars` characters around the match
/// at bytes `match_start..match_end`, with markers saying how much was
/// left out on each side, so a hit far into a long line (minified code,
/// a data dump) stays visible. Short lines are returned whole.
pub(crate) fn excerpt(
    line: &str,
    match_start: usize,
    match_end: usize,
    max_chars: usize,
) -> String {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let total = line.chars().count();
    if total <= max_chars {
        return line.to_string();
    }
    let char_at = |byte: usize| line.get(..byte).map_or(total, |head| head.chars().count());
    let first = char_at(match_start);
    let width = char_at(match_end.max(match_start)).saturating_sub(first);
    // Centre the match; a match wider than the window shows its start.
    let from = if width >= max_chars {
        first
    } else {
        (first + width / 2).saturating_sub(max_chars / 2)
    }
    .min(total - max_chars);
    let byte_of = |index: usize| {
        line.char_indices()
            .nth(index)
            .map_or(line.len(), |(at, _)| at)
    };
    let (start, end) = (byte_of(from), byte_of(from + max_chars));
    let mut out = String::new();
    if from > 0 {
        out.push_str(&format!("[{from} characters before] …"));
    }
    out.push_str(&line[start..end]);
    let after = total - from - max_chars;
    if after > 0 {
        out.push_str(&format!("… [{after} more characters]"));
    }
    out
}

/// The line without a trailing `\r`, cut to `max_chars` characters with
/// a marker saying how much was left out: an excerpt from its start.
pub(crate) fn shorten(line: &str, max_chars: usize) -> String {
    excerpt(line, 0, 0, max_chars)
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
        let mut budget = usize::MAX;
        assert_eq!(
            context_before(text, start, 5, 80, &mut budget),
            ["one", "two"]
        );
        assert_eq!(context_after(text, end, 5, 80, &mut budget), ["four"]);
        assert_eq!(
            context_after("a\n", 1, 2, 80, &mut budget),
            Vec::<String>::new()
        );
        assert_eq!(budget, usize::MAX - 10);
        let mut small = 3;
        assert_eq!(context_before(text, start, 5, 80, &mut small), ["two"]);
        assert_eq!(small, 0);
    }

    #[test]
    fn excerpts_centre_the_match() {
        assert_eq!(excerpt("short hit", 6, 9, 20), "short hit");
        let line = format!("{}HIT{}", "a".repeat(100), "b".repeat(100));
        let cut = excerpt(&line, 100, 103, 21);
        assert_eq!(
            cut,
            format!(
                "[91 characters before] …{}HIT{}… [91 more characters]",
                "a".repeat(9),
                "b".repeat(9)
            )
        );
        let head = excerpt(&line, 0, 1, 10);
        assert_eq!(head, format!("{}… [193 more characters]", "a".repeat(10)));
        let tail = excerpt(&line, 202, 203, 10);
        assert!(tail.starts_with("[193 characters before] …"), "{tail}");
        assert!(tail.ends_with('b'), "{tail}");
        let wide = excerpt("é".repeat(50).as_str(), 20, 100, 10);
        assert!(wide.starts_with("[10 characters before] …"), "{wide}");
    }

    #[test]
    fn shortens_on_char_boundaries() {
        assert_eq!(shorten("héllo", 2), "hé… [3 more characters]");
        assert_eq!(shorten("ok\r", 5), "ok");
    }
}

//! Quoting user text (names, paths, file lines) in messages. Invisible
//! characters are spelled out as `<U+XXXX>` so authors can see what to
//! remove, and no raw line break ever splits a message.

use std::borrow::Cow;

/// True for characters that show nothing (or reorder text) when printed:
/// control characters, whitespace other than the plain space, and the
/// format characters (zero-width, bidirectional controls, BOM, ...).
pub(crate) fn is_invisible(c: char) -> bool {
    (c.is_whitespace() && c != ' ')
        || c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{061C}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{17B4}'
                | '\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF0}'..='\u{FFFB}'
                | '\u{1BCA0}'..='\u{1BCA3}'
                | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0000}'..='\u{E0FFF}'
        )
}

/// `text` with every invisible character written as `<U+XXXX>`.
pub(crate) fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_invisible) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_invisible(c) {
            shown.push_str(&format!("<{}>", code_point(c)));
        } else {
            shown.push(c);
        }
    }
    Cow::Owned(shown)
}

/// At most `max` characters of `text`, made printable, ending in `…`
/// when shortened.
pub(crate) fn quoted(text: &str, max: usize) -> String {
    let mut shown: String = text.chars().take(max).collect();
    let shortened = text.chars().nth(max).is_some();
    shown = printable(&shown).into_owned();
    if shortened {
        shown.push('…');
    }
    shown
}

/// `text` on one line: runs of whitespace, line breaks included, become
/// one space, with none at either end. (Summaries are one line already
/// when scanned; hand-built ones may not be.)
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `U+XXXX` for `c`.
pub(crate) fn code_point(c: char) -> String {
    format!("U+{:04X}", u32::from(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters_are_spelled_out() {
        assert_eq!(printable("plain text"), "plain text");
        assert_eq!(printable("a\u{200b}b"), "a<U+200B>b");
        assert_eq!(printable("line\nbreak\t"), "line<U+000A>break<U+0009>");
        assert_eq!(printable("\u{202e}evil"), "<U+202E>evil");
        assert_eq!(printable("\u{feff}x\u{a0}"), "<U+FEFF>x<U+00A0>");
        assert_eq!(printable("héllo"), "héllo");
    }

    #[test]
    fn quoted_shortens_before_spelling_out() {
        assert_eq!(quoted("abcdef", 3), "abc…");
        assert_eq!(quoted("a\nb", 3), "a<U+000A>b");
        assert_eq!(quoted("abc", 3), "abc");
    }
}

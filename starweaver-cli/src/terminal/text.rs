//! Text a run shows, made safe and short: model and tool text may carry
//! terminal escapes or be megabytes long, and neither may reach the screen
//! as is.

use serde_json::Value;

/// Width of one shortened line (the screen's usual 80 columns).
pub const LINE_CHARS: usize = 80;

/// Text with terminal control characters replaced by `?` (newlines and
/// tabs kept), so model or tool output cannot move the cursor or colour
/// the screen.
pub fn clean(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\t' => c,
            c if c.is_control() => '?',
            c => c,
        })
        .collect()
}

/// One line of at most `max` characters: whitespace runs (newlines
/// included) become one space, control characters `?`, and a cut ends
/// with `…`.
pub fn shorten(text: &str, max: usize) -> String {
    let mut line = String::new();
    let mut count = 0;
    let mut pending_space = false;
    let mut cut = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = count > 0;
            continue;
        }
        let needed = usize::from(pending_space) + 1;
        if count + needed > max.saturating_sub(1) {
            cut = true;
            break;
        }
        if pending_space {
            line.push(' ');
            count += 1;
            pending_space = false;
        }
        line.push(if c.is_control() { '?' } else { c });
        count += 1;
    }
    if cut {
        line.push('…');
    }
    line
}

/// A JSON value as one line: strings as their text, anything else as
/// compact JSON.
pub fn inline_json(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Pretty JSON of at most `max_lines` lines, each at most
/// [`LINE_CHARS`] characters wide, saying how much was left out.
pub fn pretty_json(value: &Value, max_lines: usize) -> String {
    let pretty = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
    let lines: Vec<&str> = pretty.lines().collect();
    let mut shown: Vec<String> = lines
        .iter()
        .take(max_lines)
        .map(|line| {
            let indent = line.len() - line.trim_start().len();
            format!(
                "{}{}",
                &line[..indent],
                shorten(line, LINE_CHARS.saturating_sub(indent))
            )
        })
        .collect();
    if lines.len() > max_lines {
        shown.push(format!("… ({} more lines)", lines.len() - max_lines));
    }
    shown.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shortening_keeps_one_bounded_line() {
        assert_eq!(shorten("a\n  b\tc", 80), "a b c");
        let long = "x".repeat(500);
        let short = shorten(&long, 20);
        assert_eq!(short.chars().count(), 20);
        assert!(short.ends_with('…'));
        assert_eq!(shorten("  ", 10), "");
    }

    #[test]
    fn escapes_never_reach_the_screen() {
        assert_eq!(shorten("\u{1b}[31mred", 80), "?[31mred");
        assert_eq!(clean("a\u{1b}[2Jb\nc"), "a?[2Jb\nc");
    }

    #[test]
    fn pretty_json_is_bounded() {
        let value = json!({"items": (0..100).collect::<Vec<_>>()});
        let text = pretty_json(&value, 10);
        assert_eq!(text.lines().count(), 11);
        assert!(text.ends_with("more lines)"), "{text}");
        assert_eq!(pretty_json(&json!({"a": 1}), 10), "{\n  \"a\": 1\n}");
    }
}

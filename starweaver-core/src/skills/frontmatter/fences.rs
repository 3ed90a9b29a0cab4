//! The `---` fences around the frontmatter.

use super::*;

pub(super) fn is_delimiter(line: &str) -> bool {
    line.trim_end() == "---"
}

/// Returns the YAML between the `---` lines and the rest of the file.
pub(super) fn split(text: &str) -> Result<(&str, &str), FrontmatterError> {
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if !is_delimiter(first) {
        return Err(FrontmatterError::Missing {
            found: describe_first_line(text, first),
        });
    }
    let yaml_start = first.len();
    let mut offset = yaml_start;
    for line in lines {
        if is_delimiter(line) {
            return Ok((&text[yaml_start..offset], &text[offset + line.len()..]));
        }
        offset += line.len();
    }
    Err(FrontmatterError::Unclosed)
}

/// Says what the first line holds instead of `---`. The line is quoted as
/// written (not trimmed) with invisible characters spelled out, and a
/// fence that is only indented or preceded by an invisible character is
/// called out, since it looks right.
pub(super) fn describe_first_line(text: &str, first: &str) -> String {
    const SHOWN: usize = 40;
    if text.trim().is_empty() {
        return "the file is empty".to_string();
    }
    let line = first.strip_suffix('\n').unwrap_or(first);
    if line.trim().is_empty() {
        return "the first line is blank".to_string();
    }
    let shown = quoted(line, SHOWN);
    let before_fence = line.trim_end().strip_suffix("---").unwrap_or(line);
    if before_fence.len() < line.len() && before_fence.chars().all(is_invisible_or_space) {
        if before_fence.chars().all(|c| c == ' ') {
            let count = before_fence.len();
            let spaces = if count == 1 { "space" } else { "spaces" };
            return format!(
                "the first line `{shown}` is indented by {count} {spaces}, so it is not a \
                 `---` fence; remove the indentation"
            );
        }
        let characters: Vec<String> = before_fence.chars().map(code_point).collect();
        return format!(
            "the first line `{shown}` has {} before `---`, so it is not a fence; delete {}",
            if characters.len() == 1 {
                format!("the invisible character {}", characters.join(""))
            } else {
                format!("the invisible characters {}", characters.join(", "))
            },
            if characters.len() == 1 { "it" } else { "them" }
        );
    }
    format!("the first line is `{shown}`")
}

pub(super) fn is_invisible_or_space(c: char) -> bool {
    c == ' ' || is_invisible(c)
}

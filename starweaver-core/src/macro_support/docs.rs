//! A tool's description from doc fragments only known at compile time of
//! the user's crate (`#[doc = include_str!("..")]`).

/// Joins doc fragments into the text a reader of the rendered docs sees:
/// each fragment's first space dropped (the one `///` adds), then the
/// indentation common to every non-blank line removed, trailing spaces
/// and leading/trailing blank lines dropped; paragraphs and deeper
/// indentation kept. The macro does the same at compile time when every
/// fragment is a literal; the two must agree.
#[must_use]
pub fn doc_text(fragments: &[&str]) -> String {
    let joined = fragments
        .iter()
        .map(|fragment| fragment.strip_prefix(' ').unwrap_or(fragment))
        .collect::<Vec<_>>()
        .join("\n");
    let lines: Vec<&str> = joined.lines().map(str::trim_end).collect();
    let margin = lines
        .iter()
        .filter(|line| !line.is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    let text = lines
        .iter()
        .map(|line| line.get(margin..).unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    text.trim_matches('\n').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_the_common_margin_and_keeps_paragraphs() {
        assert_eq!(
            doc_text(&[" Intro.", "", "    Included.", "", "      Deeper."]),
            "Intro.\n\n   Included.\n\n     Deeper."
        );
        assert_eq!(doc_text(&["  a", "  b  "]), "a\nb");
        assert_eq!(
            doc_text(&["\n    Included.\n\n    Second.\n"]),
            "Included.\n\nSecond."
        );
        assert_eq!(doc_text(&[]), "");
    }
}

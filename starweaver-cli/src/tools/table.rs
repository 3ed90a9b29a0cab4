//! `starweaver tools` as a table: one line per tool, aligned columns, the description cut to
//! its first line.

use super::listing::{Approval, Listed};
use crate::terminal::text::clean;

/// Longest description shown; the rest is in `--json`.
const MAX_DESCRIPTION_CHARS: usize = 72;

/// The table (the first request's tools, and with `all` the later ones too), a blank line, and
/// a one-line summary that points at `--all` when tools are reachable later.
pub(super) fn render(listing: &[Listed], all: bool) -> String {
    let shown: Vec<&Listed> = listing.iter().filter(|row| all || row.first).collect();
    let first = listing.iter().filter(|row| row.first).count();
    let later = listing.len() - first;
    if shown.is_empty() {
        return "This agent offers the model no tools.\n".to_string();
    }
    let rows: Vec<[String; 5]> = shown.iter().map(|row| cells(row)).collect();
    let header = ["NAME", "TOOLSET", "WAITS FOR", "REACH", "DESCRIPTION"].map(str::to_string);
    let mut widths = [0usize; 4];
    for row in std::iter::once(&header).chain(&rows) {
        for (width, cell) in widths.iter_mut().zip(row.iter()) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (width, cell) in widths.iter().zip(row.iter()) {
            line.push_str(&format!("{cell:<width$}  "));
        }
        line.push_str(&row[4]);
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text.push_str(&format!("\n{first} {} on the first request", plural(first)));
    match (later, all) {
        (0, _) => {}
        (n, true) => text.push_str(&format!(", {n} reachable later")),
        (n, false) => text.push_str(&format!(
            "; {n} more reachable later through a proxy or a search (`--all` lists them)"
        )),
    }
    if shown.iter().any(|row| !row.verified) {
        text.push_str("; `unverified` code tools have no catalog (give `--catalog FILE`)");
    }
    text.push_str(".\n");
    text
}

fn plural(count: usize) -> &'static str {
    if count == 1 {
        "tool"
    } else {
        "tools"
    }
}

/// NAME, TOOLSET, WAITS FOR, REACH, DESCRIPTION.
fn cells(row: &Listed) -> [String; 5] {
    let reach = match row.route.via() {
        Some(via) => format!("{}: {via}", row.route.kind()),
        None => row.route.kind().to_string(),
    };
    let description = if row.verified {
        one_line(row.definition.description.as_deref().unwrap_or(""))
    } else {
        "unverified code tool".to_string()
    };
    // The words `run` and `check --explain` use: a call "waits for approval" or "waits for
    // answers".
    let approval = match row.approval {
        Approval::None => "-",
        Approval::Required => "approval",
        Approval::Answers => "answers",
    };
    // Names and descriptions come from manifests and catalogs: control characters (a
    // newline, a terminal escape) show as `?`, so they can neither forge a row nor drive the
    // terminal.
    [
        row.definition.name.clone(),
        row.toolset.clone().unwrap_or_else(|| "-".to_string()),
        approval.to_string(),
        reach,
        description,
    ]
    .map(|cell| clean(&cell).replace(['\n', '\t'], "?"))
}

/// The first line, cut to [`MAX_DESCRIPTION_CHARS`] with an ellipsis.
fn one_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    if line.chars().count() <= MAX_DESCRIPTION_CHARS {
        return line.to_string();
    }
    let cut: String = line.chars().take(MAX_DESCRIPTION_CHARS - 1).collect();
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_keep_their_first_line_and_are_cut() {
        assert_eq!(one_line("Reads a file.\nMore detail."), "Reads a file.");
        let long = "word ".repeat(40);
        let cut = one_line(&long);
        assert!(cut.chars().count() <= MAX_DESCRIPTION_CHARS);
        assert!(cut.ends_with('…'));
        assert_eq!(one_line(""), "");
    }
}

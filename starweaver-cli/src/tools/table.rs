//! `starweaver tools` as a table: one line per tool, aligned columns, the description cut to
//! its first line. When an MCP server offers tools, two columns more: each tool's name on its
//! server beside the name the model sees, and the hints the server gives about it.

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
    let mcp = shown.iter().any(|row| row.mcp.is_some());
    let rows: Vec<Vec<String>> = shown.iter().map(|row| cells(row, mcp)).collect();
    let mut header = vec!["NAME", "TOOLSET", "WAITS FOR", "REACH", "DESCRIPTION"];
    if mcp {
        header.insert(1, "SERVER'S NAME");
        header.insert(4, "HINTS");
    }
    let header: Vec<String> = header.into_iter().map(str::to_string).collect();
    let last = header.len() - 1;
    let mut widths = vec![0usize; last];
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
        line.push_str(&row[last]);
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

/// NAME, TOOLSET, WAITS FOR, REACH, DESCRIPTION; with `mcp`, SERVER'S NAME after NAME and
/// HINTS after WAITS FOR (`-` for a tool no server offers).
fn cells(row: &Listed, mcp: bool) -> Vec<String> {
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
    // A server's names and hints are the server's words: cleaned the same way.
    let mut cells = vec![
        row.definition.name.clone(),
        row.toolset.clone().unwrap_or_else(|| "-".to_string()),
        approval.to_string(),
        reach,
        description,
    ];
    if mcp {
        let (tool, hints) = row.mcp.as_ref().map_or_else(
            || ("-".to_string(), "-".to_string()),
            |origin| (origin.tool.clone(), origin.hints()),
        );
        cells.insert(1, tool);
        cells.insert(4, hints);
    }
    cells
        .into_iter()
        .map(|cell| clean(&cell).replace(['\n', '\t'], "?"))
        .collect()
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

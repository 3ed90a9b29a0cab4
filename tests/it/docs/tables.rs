//! Markdown tables stay whole: a table starts after a blank line with a header and a separator
//! row, every row has the header's number of cells, and a blank line ends it, so prose can
//! neither split a table nor run into one.

use std::path::{Path, PathBuf};

/// Every markdown file under docs/, and the README.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    files.push(root.join("README.md"));
    files.sort();
    files
}

/// The cells of a table row: `|` not escaped as `\|` separates them.
fn cells(row: &str) -> usize {
    let row = row.trim();
    let mut count: usize = 0;
    let mut escaped = false;
    for c in row.chars() {
        match c {
            '\\' if !escaped => {
                escaped = true;
                continue;
            }
            '|' if !escaped => count += 1,
            _ => {}
        }
        escaped = false;
    }
    count.saturating_sub(1)
}

fn is_row(line: &str) -> bool {
    line.trim_start().starts_with('|')
}

fn is_separator(line: &str) -> bool {
    let line = line.trim();
    line.starts_with('|')
        && line.contains("---")
        && line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// The problems of one document's tables, each with its line number.
fn table_problems(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut problems = Vec::new();
    let mut fenced = false;
    let mut header_cells = None;
    for (index, line) in lines.iter().enumerate() {
        let number = index + 1;
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let previous = index.checked_sub(1).map(|at| lines[at]);
        match (is_row(line), header_cells) {
            (true, None) => {
                if previous.is_some_and(|previous| !previous.trim().is_empty()) {
                    problems.push(format!(
                        "line {number}: a table row right after prose (a paragraph splits the table, or the table needs a blank line before it)"
                    ));
                }
                if !lines.get(index + 1).is_some_and(|next| is_separator(next)) {
                    problems.push(format!(
                        "line {number}: a table row with no `| --- |` separator after it: the table was split above it"
                    ));
                }
                header_cells = Some(cells(line));
            }
            (true, Some(expected)) => {
                if cells(line) != expected {
                    problems.push(format!(
                        "line {number}: {} cells in a table of {expected}",
                        cells(line)
                    ));
                }
            }
            (false, Some(_)) => {
                header_cells = None;
                if !line.trim().is_empty() {
                    problems.push(format!(
                        "line {number}: prose right after a table: markdown reads it as a row"
                    ));
                }
            }
            (false, None) => {}
        }
    }
    problems
}

/// Regression: a paragraph in the middle of docs/tool-macro.md's attributes table cut it in
/// two; the second half rendered as a paragraph of pipes.
#[test]
fn no_table_in_the_docs_is_split_by_prose() {
    let mut problems = Vec::new();
    for path in documents() {
        let text = std::fs::read_to_string(&path).unwrap();
        for problem in table_problems(&text) {
            problems.push(format!("{}: {problem}", path.display()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_table_check_catches_a_split_table() {
    let split = "text\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\nA paragraph.\n| 3 | 4 |\n";
    let problems = table_problems(split);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].starts_with("line 8: a table row right after prose"));
    let whole = "| a | b |\n| --- | --- |\n| `x \\| y` | 2 |\n\nafter\n";
    assert_eq!(table_problems(whole), Vec::<String>::new());
    assert_eq!(cells("| `a \\| b` | c |"), 2);
}

//! What earlier calls returned that later calls can use: files, files
//! this run wrote, process ids and tools a search found.

use serde_json::{Map, Value};

use super::history::History;
use super::kind::{kind, Kind};

/// Most files remembered.
const MAX_FILES: usize = 64;
/// Most ids remembered.
const MAX_IDS: usize = 16;
/// Most found tools remembered.
const MAX_FOUND_TOOLS: usize = 32;
/// Deepest level of a return looked into.
const MAX_DEPTH: usize = 6;
/// Values of one return looked at.
const MAX_NODES: usize = 4096;

/// How good a file is as the one to read: a search match first, then a
/// glob hit, a listed file, a file read, and a file this run wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    Match,
    Globbed,
    Listed,
    Read,
    Written,
}

/// A tool a search returned, for `call_tool`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct FoundTool {
    pub(super) name: String,
    pub(super) description: String,
    pub(super) parameters: Value,
}

/// Everything usable that came back so far.
#[derive(Debug, Clone, Default)]
pub(super) struct Facts {
    files: Vec<(Rank, String)>,
    /// Files this run wrote, with the content written.
    pub(super) written: Vec<(String, String)>,
    /// Ids returned (newest last).
    pub(super) ids: Vec<String>,
    /// Tools searches returned, in the order returned.
    pub(super) found: Vec<FoundTool>,
    /// One exact line of a file (a match, a file's first line), by path.
    lines: Vec<(String, String)>,
    /// Directories listed, in the order listed.
    pub(super) dirs: Vec<String>,
}

impl Facts {
    pub(super) fn of(history: &History) -> Self {
        let mut facts = Self::default();
        for call in &history.calls {
            let Some(content) = call.success() else {
                continue;
            };
            if kind(call.target()) == Kind::Write {
                let arguments = call.target_arguments();
                let path = content
                    .get("path")
                    .or_else(|| arguments.get("path"))
                    .and_then(Value::as_str);
                let text = arguments
                    .get("content")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if let Some(path) = path {
                    if !facts.written.iter().any(|(known, _)| known == path) {
                        facts.written.push((path.to_string(), text.to_string()));
                    }
                    facts.add_file(Rank::Written, path);
                }
                continue;
            }
            let mut nodes = MAX_NODES;
            facts.collect(content, None, 0, &mut nodes);
        }
        facts.files.sort_by_key(|(rank, _)| *rank);
        facts
    }

    /// The best file to read: the first search match, else the first
    /// globbed, listed, read or written file.
    pub(super) fn best_file(&self) -> Option<&str> {
        self.files.first().map(|(_, path)| path.as_str())
    }

    /// A line known to be in the file at `path`.
    pub(super) fn line_of(&self, path: &str) -> Option<&str> {
        self.lines
            .iter()
            .find(|(known, _)| known == path)
            .map(|(_, line)| line.as_str())
    }

    fn add_line(&mut self, path: &str, line: &str) {
        let line = line.trim();
        if !line.is_empty()
            && self.lines.len() < MAX_FILES
            && !self.lines.iter().any(|(known, _)| known == path)
        {
            self.lines.push((path.to_string(), line.to_string()));
        }
    }

    fn add_file(&mut self, rank: Rank, path: &str) {
        if path.is_empty() || path.ends_with('/') || self.files.len() >= MAX_FILES {
            return;
        }
        if !self.files.iter().any(|(_, known)| known == path) {
            self.files.push((rank, path.to_string()));
        }
    }

    fn collect(&mut self, value: &Value, key: Option<&str>, depth: usize, nodes: &mut usize) {
        if depth > MAX_DEPTH || *nodes == 0 {
            return;
        }
        *nodes -= 1;
        match value {
            Value::Object(map) => {
                self.object(map);
                for (name, child) in map {
                    self.collect(child, Some(name), depth + 1, nodes);
                }
            }
            Value::Array(items) => {
                for item in items {
                    if key == Some("files") {
                        if let Some(path) = item.as_str() {
                            self.add_file(Rank::Globbed, path);
                        }
                    }
                    self.collect(item, key, depth + 1, nodes);
                }
            }
            _ => {}
        }
    }

    /// Facts one object states: a match or a listed file (`path` with a
    /// line number or `kind: file`), a file read (`path` with `content`),
    /// a process `id`, a found tool (`name` with `parameters`).
    fn object(&mut self, map: &Map<String, Value>) {
        let text = |key: &str| map.get(key).and_then(Value::as_str);
        if let Some(path) = text("path") {
            if map.contains_key("line_number") {
                self.add_file(Rank::Match, path);
                if let Some(line) = text("line") {
                    self.add_line(path, line);
                }
            } else if text("kind") == Some("file") {
                self.add_file(Rank::Listed, path);
            } else if text("kind") == Some("directory") {
                if self.dirs.len() < MAX_FILES && !self.dirs.iter().any(|known| known == path) {
                    self.dirs.push(path.to_string());
                }
            } else if let Some(content) = text("content") {
                self.add_file(Rank::Read, path);
                if let Some(line) = content.lines().find(|line| !line.trim().is_empty()) {
                    self.add_line(path, line);
                }
            }
        }
        if let Some(id) = text("id") {
            if !id.is_empty()
                && self.ids.len() < MAX_IDS
                && !self.ids.iter().any(|known| known == id)
            {
                self.ids.push(id.to_string());
            }
        }
        if let (Some(name), Some(parameters)) = (text("name"), map.get("parameters")) {
            if parameters.is_object()
                && self.found.len() < MAX_FOUND_TOOLS
                && !self.found.iter().any(|known| known.name == name)
            {
                self.found.push(FoundTool {
                    name: name.to_string(),
                    description: text("description").unwrap_or_default().to_string(),
                    parameters: parameters.clone(),
                });
            }
        }
    }
}

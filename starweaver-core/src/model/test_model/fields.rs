//! The value of each string field, chosen from the field's name: free text
//! gets the prompt's words, paths and ids get what earlier calls returned,
//! commands run `echo`.

use serde_json::{Map, Value};

use super::facts::Facts;
use super::kind::Kind;
use super::words::Words;
use crate::model::schema_sample::{Field, Fill};

/// The file the test model writes (and then edits) when a tool creates
/// files.
pub(super) const NOTE_FILE: &str = "test-model-note.txt";
/// Longest value of a short field (a label, a header, a title).
const MAX_SHORT_CHARS: usize = 12;

/// Why a call waits for (or never gets) a later step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Need {
    /// A path of an existing file, which no call has returned yet.
    File,
    /// A file this run wrote (edits touch nothing else).
    WrittenFile,
    /// An id (a process id) an earlier call returned.
    Id,
    /// A tool name from a search, for `call_tool`.
    ToolName,
}

impl Need {
    /// Why the call was not made, in a few words.
    pub(super) fn reason(self) -> &'static str {
        match self {
            Self::File => "no earlier call returned a file to use",
            Self::WrittenFile => "it changes only a file this run wrote, and none was written",
            Self::Id => "it needs an id that no earlier call returned",
            Self::ToolName => "no search returned a tool to call",
        }
    }
}

/// Chooses string values for one tool's arguments and notes what the call
/// still needs.
pub(super) struct Filler<'a> {
    pub(super) words: &'a Words,
    pub(super) facts: &'a Facts,
    pub(super) kind: Kind,
    /// The query of a search tool's call.
    pub(super) query: Option<String>,
    /// The tool's calls are handed to a person or a worker instead of
    /// run (`deferred_call` in its definition's metadata): an edit may
    /// then propose a change to a file found, not only to the note.
    pub(super) hands_off: bool,
    /// The first thing the call needs and does not have.
    pub(super) need: Option<Need>,
}

impl<'a> Filler<'a> {
    pub(super) fn new(words: &'a Words, facts: &'a Facts, kind: Kind) -> Self {
        Self {
            words,
            facts,
            kind,
            query: None,
            hands_off: false,
            need: None,
        }
    }

    /// What an edit changes: the file this run wrote and its content, or
    /// (for a handed-off edit) the best file found and a line known to be
    /// in it.
    fn edit_target(&self) -> Option<(String, Option<String>)> {
        if let Some((path, content)) = self.facts.written.first() {
            return Some((path.clone(), Some(content.clone())));
        }
        if !self.hands_off {
            return None;
        }
        let path = self.facts.best_file()?;
        Some((
            path.to_string(),
            self.facts.line_of(path).map(str::to_string),
        ))
    }

    fn needs(&mut self, need: Need) {
        self.need.get_or_insert(need);
    }

    /// A path: the note file for a writing tool, the written file for an
    /// editing one, `.` for a directory, else the best file returned.
    fn path(&mut self, name: &str, description: &str) -> String {
        match self.kind {
            Kind::Write => NOTE_FILE.to_string(),
            Kind::Edit => match self.edit_target() {
                Some((path, _)) => path,
                None if self.hands_off => {
                    self.needs(Need::File);
                    NOTE_FILE.to_string()
                }
                None => {
                    self.needs(Need::WrittenFile);
                    NOTE_FILE.to_string()
                }
            },
            _ if is_directory(name, description) => ".".to_string(),
            _ => match self.facts.best_file() {
                Some(path) => path.to_string(),
                None => {
                    self.needs(Need::File);
                    ".".to_string()
                }
            },
        }
    }
}

/// A name's words (`old_string` gives `old`, `string`).
fn name_words(name: &str) -> Vec<&str> {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect()
}

pub(super) fn is_directory(name: &str, description: &str) -> bool {
    let words = name_words(name);
    let dir_name = words.iter().any(|word| {
        matches!(
            *word,
            "dir" | "directory" | "folder" | "cwd" | "workdir" | "root"
        )
    }) || name == "working_directory";
    dir_name || (description.contains("director") && !description.contains("file"))
}

fn is_path(name: &str) -> bool {
    name_words(name).iter().any(|word| {
        matches!(
            *word,
            "path"
                | "file"
                | "filepath"
                | "filename"
                | "dir"
                | "directory"
                | "folder"
                | "cwd"
                | "workdir"
        )
    })
}

/// An id an earlier call returned (`The process id shell_exec
/// returned`), not an id the caller makes up.
fn is_returned_id(name: &str, description: &str) -> bool {
    let id_name = name == "id" || name == "pid" || name.ends_with("_id");
    id_name && description.contains("return")
}

fn is_command(name: &str) -> bool {
    matches!(name, "command" | "cmd" | "script" | "shell_command")
}

fn is_program(name: &str) -> bool {
    matches!(name, "program" | "executable" | "binary")
}

fn is_argument_list(name: &str) -> bool {
    matches!(name, "args" | "argv" | "arguments")
}

/// Fields searched for one word (a regular expression, a glob).
fn is_pattern(name: &str) -> bool {
    matches!(
        name,
        "pattern" | "regex" | "regexp" | "grep" | "search" | "find" | "match" | "filter"
    )
}

fn is_query(name: &str) -> bool {
    matches!(
        name,
        "query" | "q" | "keywords" | "keyword" | "terms" | "term" | "topic" | "subject"
    ) || name.ends_with("_query")
}

fn is_short(name: &str, description: &str) -> bool {
    matches!(
        name,
        "header" | "label" | "tag" | "title" | "name" | "key" | "slug" | "id"
    ) || description.contains("short")
}

fn is_sentence(name: &str) -> bool {
    matches!(
        name,
        "content"
            | "text"
            | "message"
            | "question"
            | "body"
            | "prompt"
            | "description"
            | "comment"
            | "note"
            | "input"
            | "answer"
            | "reason"
            | "summary"
            | "details"
            | "stdin"
            | "instructions"
            | "task"
            | "goal"
    )
}

impl Fill for Filler<'_> {
    fn string(&mut self, field: &Field<'_>) -> Option<String> {
        let name = field.name();
        let description = field.description();
        let words = self.words;
        if self.kind == Kind::Search && (is_query(&name) || name.is_empty()) {
            return Some(self.query.clone().unwrap_or_else(|| words.phrase()));
        }
        if is_path(&name) {
            return Some(self.path(&name, &description));
        }
        if is_returned_id(&name, &description) {
            return Some(match self.facts.ids.last() {
                Some(id) => id.clone(),
                None => {
                    self.needs(Need::Id);
                    words.specific().to_string()
                }
            });
        }
        if is_command(&name) {
            return Some(format!("echo {}", words.phrase()));
        }
        if is_program(&name) {
            return Some("echo".to_string());
        }
        if self.kind == Kind::Edit {
            let old = self
                .edit_target()
                .and_then(|(_, old)| old)
                .unwrap_or_else(|| words.sentence());
            if name.starts_with("old") || matches!(name.as_str(), "original" | "target") {
                return Some(old);
            }
            if name.starts_with("new") || name.starts_with("replace") {
                let written = !self.facts.written.is_empty();
                return Some(if written {
                    format!("{} (edited)", words.sentence())
                } else {
                    format!("{old} (edited)")
                });
            }
        }
        if name == "glob" || description.contains("glob") {
            return Some(format!("*{}*", words.specific()));
        }
        if is_pattern(&name) {
            return Some(words.specific().to_string());
        }
        if is_query(&name) {
            return Some(words.phrase());
        }
        if is_short(&name, &description) {
            return Some(words.specific().chars().take(MAX_SHORT_CHARS).collect());
        }
        if is_sentence(&name) {
            return Some(words.sentence());
        }
        Some(words.phrase())
    }

    fn strings(&mut self, field: &Field<'_>) -> Option<Vec<String>> {
        is_argument_list(&field.name()).then(|| self.words.key().to_vec())
    }

    fn optional(&mut self, properties: &Map<String, Value>) -> Vec<String> {
        let find = |test: fn(&str) -> bool| {
            properties
                .keys()
                .find(|name| test(&name.to_ascii_lowercase()))
                .cloned()
        };
        if let Some(program) = find(is_program) {
            return std::iter::once(program)
                .chain(find(is_argument_list))
                .collect();
        }
        find(is_command).into_iter().collect()
    }
}

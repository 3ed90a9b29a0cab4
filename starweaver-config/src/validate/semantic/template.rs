//! `template` and `undefined-variable`: the instructions must parse as a minijinja template, and
//! may use only `name`, `vars` and the variables declared under `vars:`.

use std::collections::{BTreeMap, HashSet};

use minijinja::Environment;

use super::model::short;
use super::CheckContext;
use crate::diagnostics::{Diagnostic, Rule};
use crate::template::render_instructions;
use crate::validate::{suggest, to_json};
use crate::yaml::{Node, Position, ScalarStyle, Span, Value};

/// At most this many undefined variables are reported: each costs a search of the text.
const MAX_REPORTED: usize = 50;

/// Names every template may use besides `vars.*`.
const GLOBALS: [&str; 2] = ["name", "vars"];

/// The template engine's built-in functions, which the loader's renders have too.
const BUILTINS: [&str; 4] = ["range", "dict", "namespace", "debug"];

/// The template problems of `instructions`.
pub(super) fn check(root: &Node, source: &[u8], context: &CheckContext) -> Vec<Diagnostic> {
    let Some(node) = root.get("instructions") else {
        return Vec::new();
    };
    let Value::String { text, style } = &node.value else {
        return Vec::new();
    };
    let place = Place {
        node,
        style: *style,
        source,
    };
    let environment = Environment::new();
    let template = match environment.template_from_str(text) {
        Ok(template) => template,
        Err(error) => {
            let offset = error.range().map_or_else(
                || line_offset(text, error.line().unwrap_or(1)),
                |range| range.start,
            );
            // An error at the end of input points after the last character, not past the
            // block's final line break.
            let offset = offset.min(text.trim_end().len());
            let detail = error.detail().unwrap_or("syntax error");
            return vec![Diagnostic::error(
                Rule::Template,
                place.span(text, offset),
                format!("`instructions` is not a valid template: {}", short(detail)),
            )
            .with_help(
                "fix the `{{ ... }}` or `{% ... %}` tag; write `{{ '{{' }}` for literal braces",
            )];
        }
    };
    let mut declared: Vec<&str> = root
        .get("vars")
        .and_then(Node::as_mapping)
        .unwrap_or_default()
        .iter()
        .filter_map(|(key, _)| key.as_str())
        .collect();
    declared.extend(context.vars().iter().map(String::as_str));
    let lookup: HashSet<&str> = declared.iter().copied().collect();
    let mut used: Vec<String> = template.undeclared_variables(true).into_iter().collect();
    used.sort();
    let found: Vec<Diagnostic> = used
        .into_iter()
        .filter_map(|variable| undefined(&variable, &lookup, &declared, &place, text))
        .take(MAX_REPORTED)
        .collect();
    if !found.is_empty() {
        return found;
    }
    trial(root, text, &place, context).into_iter().collect()
}

/// Renders the instructions with the declared defaults (host variables as empty strings), the
/// way the loader will, so a failing filter, a bad operation or a runaway loop is reported here
/// rather than at run time.
fn trial(root: &Node, text: &str, place: &Place<'_>, context: &CheckContext) -> Option<Diagnostic> {
    let mut vars = BTreeMap::new();
    for name in context.vars() {
        vars.insert(name.clone(), serde_json::Value::String(String::new()));
    }
    for (key, value) in root
        .get("vars")
        .and_then(Node::as_mapping)
        .unwrap_or_default()
    {
        // A value JSON cannot hold is reported by the structure pass.
        let (Some(name), Ok(value)) = (key.as_str(), to_json(value)) else {
            return None;
        };
        vars.insert(name.to_owned(), value);
    }
    let name = root.get("name").and_then(Node::as_str).unwrap_or_default();
    let error = render_instructions(text, &vars, name).err()?;
    let offset = error.range().map_or_else(
        || line_offset(text, error.line().unwrap_or(1)),
        |range| range.start,
    );
    let offset = offset.min(text.trim_end().len());
    let detail = error
        .detail()
        .map_or_else(|| error.kind().to_string(), str::to_owned);
    Some(
        Diagnostic::error(
            Rule::Template,
            place.span(text, offset),
            format!(
                "`instructions` does not render with the declared defaults: {}",
                short(&detail)
            ),
        )
        .with_help("fix the expression, or give `vars` defaults it can use"),
    )
}

/// The diagnostic for one used variable, if it is not defined.
fn undefined(
    variable: &str,
    lookup: &HashSet<&str>,
    declared: &[&str],
    place: &Place<'_>,
    text: &str,
) -> Option<Diagnostic> {
    let mut parts = variable.split('.');
    let head = parts.next().unwrap_or_default();
    let (shown, help) = if head == "vars" {
        let key = parts.next()?;
        if lookup.contains(key) {
            return None;
        }
        let help = match suggest::closest(key, declared) {
            Some(close) => format!("did you mean `vars.{close}`?"),
            None => format!("declare it under `vars:` (`{}: default value`)", short(key)),
        };
        (format!("vars.{key}"), help)
    } else {
        if GLOBALS.contains(&head) || BUILTINS.contains(&head) {
            return None;
        }
        let help = if lookup.contains(head) {
            format!("variables are under `vars`: write `vars.{}`", short(head))
        } else {
            match suggest::closest(head, &GLOBALS) {
                Some(close) => format!("did you mean `{close}`?"),
                None => "templates may use `name` and `vars.NAME` for each name under `vars:`"
                    .to_owned(),
            }
        };
        (head.to_owned(), help)
    };
    let offset = find_word(text, &shown).unwrap_or(0);
    Some(
        Diagnostic::error(
            Rule::UndefinedVariable,
            place.span(text, offset),
            format!(
                "`instructions` uses `{}`, which is not defined",
                short(&shown)
            ),
        )
        .with_help(help),
    )
}

/// Where the instructions value is, to turn template offsets into file positions.
struct Place<'a> {
    node: &'a Node,
    style: ScalarStyle,
    source: &'a [u8],
}

impl Place<'_> {
    /// The file position of byte `offset` of the template text.
    fn span(&self, text: &str, offset: usize) -> Span {
        let before = text.get(..offset).unwrap_or(text);
        let line = before.matches('\n').count();
        let column = before
            .rsplit('\n')
            .next()
            .map_or(0, |last| last.chars().count());
        let start = self.node.span.start;
        let (file_line, file_column) = match self.style {
            // A block's node starts at its first text line.
            ScalarStyle::Literal | ScalarStyle::Folded => {
                let file_line = start.line + line;
                (file_line, indent(self.source, file_line) + column + 1)
            }
            // A quoted node starts at its opening quote.
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted if line == 0 => {
                (start.line, start.column + 1 + column)
            }
            _ if line == 0 => (start.line, start.column + column),
            _ => {
                let file_line = start.line + line;
                (file_line, indent(self.source, file_line) + column + 1)
            }
        };
        let offset = position_offset(self.source, file_line, file_column);
        Span::point(Position::new(file_line, file_column, offset))
    }
}

/// The byte offset of 1-based `line` in the template text.
fn line_offset(text: &str, line: usize) -> usize {
    text.split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum()
}

/// The leading spaces of 1-based `line` of the file.
fn indent(source: &[u8], line: usize) -> usize {
    source
        .split(|byte| *byte == b'\n')
        .nth(line.saturating_sub(1))
        .map_or(0, |text| {
            text.iter().take_while(|byte| **byte == b' ').count()
        })
}

/// The byte offset of a line and column (counted in characters) of the file.
fn position_offset(source: &[u8], line: usize, column: usize) -> usize {
    let line_start: usize = source
        .split_inclusive(|byte| *byte == b'\n')
        .take(line.saturating_sub(1))
        .map(<[u8]>::len)
        .sum();
    let rest = source.get(line_start..).unwrap_or_default();
    let text = String::from_utf8_lossy(rest);
    line_start
        + text
            .chars()
            .take(column.saturating_sub(1))
            .map(char::len_utf8)
            .sum::<usize>()
}

/// The first place `word` appears not inside a longer name.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let is_name = |c: char| c.is_alphanumeric() || c == '_' || c == '.';
    text.match_indices(word).map(|(at, _)| at).find(|&at| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_name) && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_found_whole() {
        assert_eq!(find_word("{{ vars.ab }} {{ vars.a }}", "vars.a"), Some(17));
        assert_eq!(find_word("{{ myname }} {{ name }}", "name"), Some(16));
        assert_eq!(find_word("none", "name"), None);
        assert_eq!(line_offset("a\nbc\nd", 3), 5);
    }
}

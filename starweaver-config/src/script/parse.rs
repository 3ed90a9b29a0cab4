//! A script file's text to turns, keeping where each turn, call and argument is, so the loader
//! can refuse a bad script with its line and column and `check` can point at every problem.
//! Shared by both, so what one refuses the other reports.

use crate::validate::to_json;
use crate::yaml::{parse_with, Budgets, Document, Node, Position, Value};

use super::template::{kind_of, Template};
use super::{ScriptCall, ScriptTurn, MAX_CALLS_PER_TURN, MAX_SCRIPT_BYTES, MAX_TURNS};

/// The keys a turn may have.
const TURN_KEYS: [&str; 2] = ["calls", "answer"];
/// The keys a call may have.
const CALL_KEYS: [&str; 2] = ["tool", "args"];

/// What kind of problem a script has, so `check` can report it under the matching rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProblemKind {
    /// Not readable YAML, or over a reading limit.
    Syntax,
    /// A key a turn or call does not have.
    UnknownField,
    /// A turn without `calls` or `answer`, a call without `tool`.
    MissingField,
    /// A value of the wrong kind, an empty list, too many turns or calls.
    InvalidValue,
    /// A template that does not parse.
    Template,
}

/// One problem of a script's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Problem {
    /// The rule it falls under.
    pub kind: ProblemKind,
    /// Where in the script file.
    pub at: Position,
    /// The 1-based turn it is in, when it is in one.
    pub turn: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: String,
}

/// One turn as read, with the nodes it came from.
#[derive(Debug)]
pub(crate) struct ParsedTurn<'a> {
    /// The turn's 1-based number.
    pub number: usize,
    /// The turn's mapping.
    pub node: &'a Node,
    /// The turn itself.
    pub turn: ScriptTurn,
    /// Each call's `tool` value and `args` mapping (when written), in order; empty for an
    /// answer.
    pub calls: Vec<(&'a Node, Option<&'a Node>)>,
}

/// The YAML reading limits of a script: the crate's defaults, with the script's own size cap.
fn budgets() -> Budgets {
    Budgets::default().with_max_document_bytes(MAX_SCRIPT_BYTES)
}

/// The script file's bytes as a YAML document.
pub(crate) fn document(bytes: &[u8]) -> Result<Document, Problem> {
    parse_with(bytes, &budgets()).map_err(|error| Problem {
        kind: ProblemKind::Syntax,
        at: error.position(),
        turn: None,
        message: format!("the script is not readable YAML: {error}"),
        help: "write the script as a YAML list of turns, each `- calls: [...]` or `- answer: ...`"
            .to_string(),
    })
}

/// Every turn that reads, and every problem found (all of them, not only the first).
pub(crate) fn turns(document: &Document) -> (Vec<ParsedTurn<'_>>, Vec<Problem>) {
    let mut problems = Vec::new();
    let root = &document.root;
    let Some(items) = root.as_sequence() else {
        problems.push(Problem {
            kind: ProblemKind::InvalidValue,
            at: root.span.start,
            turn: None,
            message: format!(
                "the script must be a list of turns, found {}",
                kind_of(&root.value)
            ),
            help: "start each turn with `- `: `- calls: [{tool: NAME, args: {...}}]` or `- answer: TEXT`".to_string(),
        });
        return (Vec::new(), problems);
    };
    if items.is_empty() {
        problems.push(Problem {
            kind: ProblemKind::InvalidValue,
            at: root.span.start,
            turn: None,
            message: "the script has no turns".to_string(),
            help: "add at least one turn; the last turn of a run is `- answer: TEXT`".to_string(),
        });
    }
    if items.len() > MAX_TURNS {
        problems.push(Problem {
            kind: ProblemKind::InvalidValue,
            at: items[MAX_TURNS].span.start,
            turn: Some(MAX_TURNS + 1),
            message: format!(
                "the script has {} turns, more than the {MAX_TURNS} a script may have",
                items.len()
            ),
            help: format!("keep the script to {MAX_TURNS} turns or fewer"),
        });
        return (Vec::new(), problems);
    }
    let mut parsed = Vec::with_capacity(items.len());
    for (index, node) in items.iter().enumerate() {
        if let Some(turn) = one_turn(node, index + 1, &mut problems) {
            parsed.push(turn);
        }
    }
    (parsed, problems)
}

/// A maker of problems found in turn `turn`: the one shape every problem of a turn has.
fn at_turn(turn: usize) -> impl Fn(ProblemKind, Position, String, &str) -> Problem {
    move |kind, at, message, help| Problem {
        kind,
        at,
        turn: Some(turn),
        message,
        help: help.to_string(),
    }
}

/// One turn, or `None` with its problems recorded.
fn one_turn<'a>(
    node: &'a Node,
    turn: usize,
    problems: &mut Vec<Problem>,
) -> Option<ParsedTurn<'a>> {
    let problem = at_turn(turn);
    let Some(entries) = node.as_mapping() else {
        problems.push(problem(
            ProblemKind::InvalidValue,
            node.span.start,
            format!("a turn must be a mapping, found {}", kind_of(&node.value)),
            "write the turn as `calls: [...]` or `answer: TEXT`",
        ));
        return None;
    };
    let before = problems.len();
    for (key, _) in entries {
        let known = key.as_str().is_some_and(|name| TURN_KEYS.contains(&name));
        if !known {
            problems.push(problem(
                ProblemKind::UnknownField,
                key.span.start,
                format!("a turn has no key `{}`", shown_key(key)),
                "a turn has `calls` (the tools to call) or `answer` (the final text), nothing else",
            ));
        }
    }
    let calls = node.get("calls");
    let answer = node.get("answer");
    let result = match (calls, answer) {
        (Some(_), Some(answer)) => {
            problems.push(problem(
                ProblemKind::InvalidValue,
                answer.span.start,
                "a turn either calls tools or answers, not both".to_string(),
                "move the `answer` to a turn of its own after the calls",
            ));
            None
        }
        (None, None) => {
            problems.push(problem(
                ProblemKind::MissingField,
                node.span.start,
                "the turn has neither `calls` nor `answer`".to_string(),
                "add `calls: [{tool: NAME, args: {...}}]` or `answer: TEXT`",
            ));
            None
        }
        (None, Some(answer)) => match &answer.value {
            Value::String { text, .. } => {
                template(text, answer.span.start, turn, "the answer", problems);
                Some(ParsedTurn {
                    number: turn,
                    node,
                    turn: ScriptTurn::Answer(text.clone()),
                    calls: Vec::new(),
                })
            }
            other => {
                problems.push(problem(
                    ProblemKind::InvalidValue,
                    answer.span.start,
                    format!("`answer` must be text, found {}", kind_of(other)),
                    "quote the answer: `answer: \"...\"`",
                ));
                None
            }
        },
        (Some(calls), None) => call_list(node, calls, turn, problems),
    };
    if problems.len() > before {
        return None;
    }
    result
}

/// A `calls:` list.
fn call_list<'a>(
    turn_node: &'a Node,
    calls: &'a Node,
    turn: usize,
    problems: &mut Vec<Problem>,
) -> Option<ParsedTurn<'a>> {
    let problem = at_turn(turn);
    let Some(items) = calls.as_sequence() else {
        problems.push(problem(
            ProblemKind::InvalidValue,
            calls.span.start,
            format!("`calls` must be a list, found {}", kind_of(&calls.value)),
            "write `calls: [{tool: NAME, args: {...}}]`",
        ));
        return None;
    };
    if items.is_empty() {
        problems.push(problem(
            ProblemKind::InvalidValue,
            calls.span.start,
            "`calls` is empty".to_string(),
            "list at least one call, or make the turn an `answer`",
        ));
        return None;
    }
    if items.len() > MAX_CALLS_PER_TURN {
        problems.push(problem(
            ProblemKind::InvalidValue,
            items[MAX_CALLS_PER_TURN].span.start,
            format!(
                "the turn has {} calls, more than the {MAX_CALLS_PER_TURN} a turn may have",
                items.len()
            ),
            "split the calls over several turns",
        ));
        return None;
    }
    let before = problems.len();
    let mut out = Vec::with_capacity(items.len());
    let mut nodes = Vec::with_capacity(items.len());
    for item in items {
        let Some(entries) = item.as_mapping() else {
            problems.push(problem(
                ProblemKind::InvalidValue,
                item.span.start,
                format!("a call must be a mapping, found {}", kind_of(&item.value)),
                "write the call as `{tool: NAME, args: {...}}`",
            ));
            continue;
        };
        for (key, _) in entries {
            let known = key.as_str().is_some_and(|name| CALL_KEYS.contains(&name));
            if !known {
                problems.push(problem(
                    ProblemKind::UnknownField,
                    key.span.start,
                    format!("a call has no key `{}`", shown_key(key)),
                    "a call has `tool` (the tool's name) and `args` (its arguments), nothing else",
                ));
            }
        }
        let tool = match item.get("tool") {
            Some(tool) => match tool.as_str() {
                Some(name) if !name.trim().is_empty() => Some((tool, name)),
                _ => {
                    problems.push(problem(
                        ProblemKind::InvalidValue,
                        tool.span.start,
                        "`tool` must be a tool's name".to_string(),
                        "write the name the model sees, such as `tool: read_file`",
                    ));
                    None
                }
            },
            None => {
                problems.push(problem(
                    ProblemKind::MissingField,
                    item.span.start,
                    "the call has no `tool`".to_string(),
                    "add `tool: NAME`, the name of a tool the agent has",
                ));
                None
            }
        };
        let args_node = item
            .get("args")
            .filter(|args| !matches!(args.value, Value::Null));
        let args = match args_node {
            None => Some(serde_json::Value::Object(serde_json::Map::new())),
            Some(args) if args.as_mapping().is_none() => {
                problems.push(problem(
                    ProblemKind::InvalidValue,
                    args.span.start,
                    format!("`args` must be a mapping, found {}", kind_of(&args.value)),
                    "write the arguments as `args: {name: value, ...}`",
                ));
                None
            }
            Some(args) => match to_json(args) {
                Ok(json) => {
                    strings_are_templates(args, turn, problems);
                    Some(json)
                }
                Err(diagnostic) => {
                    problems.push(problem(
                        ProblemKind::InvalidValue,
                        diagnostic.span.start,
                        diagnostic.message,
                        diagnostic.help.as_deref().unwrap_or("write a JSON value"),
                    ));
                    None
                }
            },
        };
        if let (Some((tool_node, name)), Some(args)) = (tool, args) {
            out.push(ScriptCall::new(name, args));
            nodes.push((tool_node, args_node));
        }
    }
    if problems.len() > before {
        return None;
    }
    Some(ParsedTurn {
        number: turn,
        node: turn_node,
        turn: ScriptTurn::Calls(out),
        calls: nodes,
    })
}

/// Every string under `args` must parse as a template.
fn strings_are_templates(args: &Node, turn: usize, problems: &mut Vec<Problem>) {
    let mut stack = vec![args];
    while let Some(node) = stack.pop() {
        match &node.value {
            Value::String { text, .. } => {
                template(text, node.span.start, turn, "an argument", problems);
            }
            Value::Sequence(items) => stack.extend(items.iter().rev()),
            Value::Mapping(entries) => stack.extend(entries.iter().rev().map(|(_, value)| value)),
            _ => {}
        }
    }
}

/// A template that does not parse is a problem at `at`.
fn template(text: &str, at: Position, turn: usize, what: &str, problems: &mut Vec<Problem>) {
    if let Err(error) = Template::new(text).check_syntax() {
        problems.push(Problem {
            kind: ProblemKind::Template,
            at,
            turn: Some(turn),
            message: format!("{what} is not a valid template: {error}"),
            help: "fix the `{{ ... }}` or `{% ... %}` tag; write `{{ '{{' }}` for literal braces"
                .to_string(),
        });
    }
}

/// A key as shown in a message: its text, or its kind when it is not a string.
fn shown_key(key: &Node) -> String {
    key.as_str().map_or_else(
        || kind_of(&key.value).to_string(),
        |text| text.chars().take(64).collect(),
    )
}

//! The next step's calls: every tool not called yet whose arguments can
//! be built from what is known; a tool that needs something no call has
//! returned yet (a file to read, a process id, a tool name) waits, and is
//! left out once nothing else is called.

use serde_json::{json, Value};

use super::facts::{Facts, FoundTool};
use super::fields::{is_directory, Filler, Need};
use super::history::{History, Outcome};
use super::kind::{kind, Kind};
use super::words::Words;
use crate::model::schema_sample::{sample_value, sample_with};
use crate::model::ToolDefinition;

/// Most responses with calls in one run; then the model answers.
pub(super) const MAX_STEPS: usize = 8;
/// Most calls in one response.
pub(super) const MAX_CALLS_PER_STEP: usize = 16;
/// Most calls in one run.
pub(super) const MAX_CALLS: usize = 64;
/// The last query of a search tool, after the prompt's and the
/// instructions' key words: words that match the usual file and command
/// tools.
pub(super) const BROAD_QUERY: &str = "list read search find run command file";
/// Key words of the instructions in a search query.
const MAX_INSTRUCTION_WORDS: usize = 16;
/// Deepest argument schema checked against before a call.
const MAX_CHECKED_DEPTH: usize = 48;
/// Programs of a refusal's list looked at.
const MAX_LISTED_PROGRAMS: usize = 16;
/// Longest program name taken from a refusal.
const MAX_PROGRAM_CHARS: usize = 64;
/// Most tools left out listed in the answer.
const MAX_SKIPPED: usize = 32;

/// What the next response does.
#[derive(Debug, Default)]
pub(super) struct Planned {
    /// Calls to make now: tool name and arguments.
    pub(super) calls: Vec<(String, Value)>,
    /// Tools not called, and why (`call_tool(read_file)` for a proxied one).
    pub(super) skipped: Vec<(String, Need)>,
    /// The output tool's call that gives the answer, planned once nothing else is called:
    /// the smallest instance its schema accepts.
    pub(super) output: Option<(String, Value)>,
}

impl Planned {
    fn skip(&mut self, label: String, need: Need) {
        if self.skipped.len() < MAX_SKIPPED
            && !self.skipped.iter().any(|(known, _)| *known == label)
        {
            self.skipped.push((label, need));
        }
    }
}

/// Plans the next step from the history and the tools offered now.
pub(super) fn plan(
    history: &History,
    tools: &[std::sync::Arc<ToolDefinition>],
    instructions: &[String],
) -> Planned {
    let words = Words::of(&history.prompt);
    let queries = queries(&words, instructions);
    let facts = Facts::of(history);
    let mut planned = Planned::default();
    let budget = MAX_CALLS
        .saturating_sub(history.calls.len())
        .min(MAX_CALLS_PER_STEP);
    let out_of_steps = history.steps >= MAX_STEPS;
    let mut fallback = Vec::new();
    let mut output = None;
    for tool in tools {
        if is_output(tool) {
            output.get_or_insert(tool);
            continue;
        }
        let room = !out_of_steps && planned.calls.len() < budget;
        match kind(&tool.name) {
            Kind::Search => {
                if let Some(query) = next_query(history, &tool.name, &queries) {
                    if room {
                        let mut filler = Filler::new(&words, &facts, Kind::Search);
                        filler.query = Some(query);
                        let arguments = arguments_for(&tool.parameters, &mut filler);
                        planned.calls.push((tool.name.clone(), arguments));
                    }
                }
            }
            Kind::ProxyCall => plan_proxy(history, tool, &words, &facts, &mut planned, budget),
            own => {
                if history.called(&tool.name) {
                    let again =
                        descend(history, tool, &facts).or_else(|| allowed_program(history, tool));
                    if let Some(arguments) = again {
                        if room {
                            planned.calls.push((tool.name.clone(), arguments));
                        }
                    }
                    continue;
                }
                let mut filler = Filler::new(&words, &facts, own);
                filler.hands_off = hands_off(tool);
                let arguments = arguments_for(&tool.parameters, &mut filler);
                match filler.need {
                    // Nothing a handed-off call names is touched: if
                    // nothing else is called, it goes with the note file.
                    Some(Need::File) if filler.hands_off => {
                        planned.skip(tool.name.clone(), Need::File);
                        fallback.push((tool.name.clone(), arguments));
                    }
                    Some(need) => planned.skip(tool.name.clone(), need),
                    None if room => planned.calls.push((tool.name.clone(), arguments)),
                    None => {}
                }
            }
        }
    }
    if out_of_steps {
        planned.calls.clear();
    } else if planned.calls.is_empty() && !fallback.is_empty() {
        fallback.truncate(budget);
        planned
            .skipped
            .retain(|(name, _)| !fallback.iter().any(|(handed, _)| handed == name));
        planned.calls = fallback;
    }
    if planned.calls.is_empty() {
        planned.output = output.map(|tool| (tool.name.clone(), sample_value(&tool.parameters)));
    }
    planned
}

/// Whether the tool is the run's output tool (the kind `output` the tool layer writes under
/// `starweaver_tool_kind` in the definition's metadata): the answer is given by calling it,
/// after the other tools.
fn is_output(tool: &ToolDefinition) -> bool {
    tool.metadata
        .get("starweaver_tool_kind")
        .and_then(Value::as_str)
        == Some("output")
}

/// A listing tool (nothing required, a directory `path`) is called once
/// more, on the first directory listed, when no file was found yet: a
/// root holding only folders still leads to files.
fn descend(history: &History, tool: &ToolDefinition, facts: &Facts) -> Option<Value> {
    if facts.best_file().is_some() {
        return None;
    }
    let schema = &tool.parameters;
    let requires = schema
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|required| !required.is_empty());
    if requires
        || history
            .calls
            .iter()
            .filter(|call| call.tool == tool.name)
            .count()
            != 1
    {
        return None;
    }
    let (name, _) = schema
        .get("properties")
        .and_then(Value::as_object)?
        .iter()
        .find(|(name, property)| {
            let description = property
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_lowercase();
            is_directory(&name.to_ascii_lowercase(), &description)
        })?;
    let directory = facts.dirs.first()?;
    Some(json!({ name.as_str(): directory }))
}

/// A command tool whose one call was refused because the shell policy
/// runs only listed programs (rule `program_not_allowed`) is called once
/// more with the first program the refusal's `details.allowed` lists, asking
/// for its `--version`: a command nearly every program answers, changing
/// nothing.
fn allowed_program(history: &History, tool: &ToolDefinition) -> Option<Value> {
    let properties = tool.parameters.get("properties")?.as_object()?;
    let program = properties.keys().find(|name| name.as_str() == "program")?;
    let args = properties.keys().find(|name| name.as_str() == "args")?;
    let mut calls = history.calls.iter().filter(|call| call.tool == tool.name);
    let (Some(call), None) = (calls.next(), calls.next()) else {
        return None;
    };
    let Some(Outcome::Returned { content, .. }) = &call.outcome else {
        return None;
    };
    if content.pointer("/details/rule").and_then(Value::as_str) != Some("program_not_allowed") {
        return None;
    }
    let refused = call.arguments.get("program").and_then(Value::as_str);
    let first = content
        .pointer("/details/allowed")?
        .as_array()?
        .iter()
        .take(MAX_LISTED_PROGRAMS)
        .filter_map(Value::as_str)
        .find(|name| {
            !name.is_empty()
                && name.len() <= MAX_PROGRAM_CHARS
                && !name.contains(char::is_whitespace)
                && Some(*name) != refused
        })?;
    Some(json!({ program.as_str(): first, args.as_str(): ["--version"] }))
}

/// Whether the tool's calls are handed to a person or a worker instead
/// of run (the `deferred_call` mark deferred toolsets put in the
/// definition's metadata).
fn hands_off(tool: &ToolDefinition) -> bool {
    tool.metadata.get("deferred_call").and_then(Value::as_bool) == Some(true)
}

/// A search tool's queries, in order: the prompt's key words, the
/// instructions' key words (they name what the hidden tools are for),
/// then [`BROAD_QUERY`]; each asked once.
fn queries(words: &Words, instructions: &[String]) -> Vec<String> {
    let mut queries = vec![words.phrase()];
    let told = Words::with_limit(&instructions.join("\n"), MAX_INSTRUCTION_WORDS);
    if !instructions.iter().all(|text| text.trim().is_empty()) {
        queries.push(told.phrase());
    }
    queries.push(BROAD_QUERY.to_string());
    let mut unique: Vec<String> = Vec::new();
    for query in queries {
        if !unique.contains(&query) {
            unique.push(query);
        }
    }
    unique
}

/// The query of a search tool's next call: the first of `queries` it was
/// not asked yet.
fn next_query(history: &History, tool: &str, queries: &[String]) -> Option<String> {
    let asked: Vec<&str> = history
        .calls
        .iter()
        .filter(|call| call.tool == tool)
        .map(|call| {
            call.arguments
                .get("query")
                .and_then(Value::as_str)
                .unwrap_or_default()
        })
        .collect();
    if asked.len() >= queries.len() {
        return None;
    }
    queries
        .iter()
        .find(|query| !asked.contains(&query.as_str()))
        .cloned()
}

/// One `call_tool` per tool a search found that was not called through it
/// yet and whose arguments can be built.
fn plan_proxy(
    history: &History,
    tool: &ToolDefinition,
    words: &Words,
    facts: &Facts,
    planned: &mut Planned,
    budget: usize,
) {
    let searched = history
        .calls
        .iter()
        .any(|call| kind(&call.tool) == Kind::Search);
    if facts.found.is_empty() {
        if searched {
            planned.skip(tool.name.clone(), Need::ToolName);
        }
        return;
    }
    for found in &facts.found {
        let FoundTool {
            name, parameters, ..
        } = found;
        let own = kind(name);
        if matches!(own, Kind::Search | Kind::ProxyCall) {
            continue;
        }
        let done = history
            .calls
            .iter()
            .any(|call| call.tool == tool.name && call.inner.as_deref() == Some(name.as_str()));
        if done {
            continue;
        }
        let mut filler = Filler::new(words, facts, own);
        let arguments = arguments_for(parameters, &mut filler);
        match filler.need {
            Some(need) => planned.skip(format!("{}({name})", tool.name), need),
            None if planned.calls.len() < budget => planned.calls.push((
                tool.name.clone(),
                json!({"name": name, "arguments": arguments}),
            )),
            None => {}
        }
    }
}

/// Arguments from the filler, checked against the schema: when they do
/// not validate and the plain sample does, the plain sample.
fn arguments_for(schema: &Value, filler: &mut Filler<'_>) -> Value {
    let filled = sample_with(schema, filler);
    // A schema nested deeper than any real tool's is not compiled (the
    // compiler recurses); the tool's own validation answers for it.
    if !nested_within(schema, MAX_CHECKED_DEPTH) {
        return filled;
    }
    let Ok(validator) = jsonschema::validator_for(schema) else {
        return filled;
    };
    if validator.is_valid(&filled) {
        return filled;
    }
    let plain = sample_value(schema);
    if validator.is_valid(&plain) {
        plain
    } else {
        filled
    }
}

/// Whether `value` nests at most `limit` levels deep (checked without
/// recursion).
fn nested_within(value: &Value, limit: usize) -> bool {
    let mut pending = vec![(value, 0usize)];
    while let Some((value, depth)) = pending.pop() {
        if depth > limit {
            return false;
        }
        match value {
            Value::Object(map) => pending.extend(map.values().map(|child| (child, depth + 1))),
            Value::Array(items) => pending.extend(items.iter().map(|child| (child, depth + 1))),
            _ => {}
        }
    }
    true
}

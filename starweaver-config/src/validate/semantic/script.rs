//! The `script` model's file: `id: script` needs `script:` (`missing-field`) and `script:` needs
//! `id: script` (`invalid-value`); the file must stay inside the manifest's folder
//! (`path-escape`), be readable and bounded, and hold well-formed turns (`syntax`,
//! `unknown-field`, `missing-field`, `invalid-value`, `template`), read by the same parser the
//! loader uses, so whatever loading refuses is reported here first. Then what only a check can
//! see: every tool a turn calls must be one the model is offered (`unknown-tool`: a tool behind
//! a proxy is called through its `call_tool`, one behind a search after its `tool_search`, or
//! preloaded), and the arguments must match the tool's schema (`invalid-value`; a template's
//! value is known only when the turn is played, so it is not checked). A template that reads a
//! name the script context lacks, or a script that ends without an answer, is a warning: the
//! run fails there, at that turn.
//!
//! Diagnostics point at the manifest's `model.script` value and say where in the script file:
//! `` `FILE` LINE:COLUMN, turn N: ``. The file is read only when the checker knows the
//! manifest's folder.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value as Json;
use starweaver_core::model::ToolDefinition;

use super::model::short;
use super::schema_compat::first_party;
use super::toolsets::{strings, Entry};
use super::CheckContext;
use crate::diagnostics::{Diagnostic, Rule};
use crate::paths::{script_file, FileProblem};
use crate::script::model::read_script;
use crate::script::parse::{document, turns, ParsedTurn, Problem, ProblemKind};
use crate::script::template::Template;
use crate::script::{ScriptError, ScriptModel, ScriptTurn};
use crate::validate::suggest;
use crate::yaml::{Node, Position, Span, Value};

/// At most this many diagnostics come from one script: a generated script with thousands of
/// bad turns gets a readable report.
const MAX_REPORTED: usize = 50;

/// What a turn's templates can read.
const CONTEXT_NAMES: [&str; 3] = ["calls", "prompt", "turn"];

/// The template engine's built-in functions.
const BUILTINS: [&str; 4] = ["range", "dict", "namespace", "debug"];

/// Every problem of `model.id: script` and `model.script`, and the script's turns when they
/// all read (named as the manifest names the file).
pub(super) fn check(
    root: &Node,
    entries: &[Entry<'_>],
    context: &CheckContext,
    output: Option<&ToolDefinition>,
) -> (Vec<Diagnostic>, Option<ScriptModel>) {
    let nothing = (Vec::new(), None);
    let Some(model) = root.get("model") else {
        return nothing;
    };
    let Some(id) = model.get("id") else {
        return nothing;
    };
    let Some(id_text) = id.as_str() else {
        return nothing;
    };
    let script = model
        .entry("script")
        .filter(|(_, value)| !matches!(value.value, Value::Null));
    match (id_text, script) {
        ("script", None) => (
            vec![Diagnostic::error(
            Rule::MissingField,
            id.span,
            "`model.script` is missing: the `script` model plays the turns of a file",
        )
        .with_help(
            "add `script: NAME.script.yaml` under `model:`, a file of turns beside the manifest",
        )],
            None,
        ),
        ("script", Some((_, value))) => match value.as_str() {
            Some(file) => script_checks(file, value.span, entries, context, output),
            // The structure pass reports a value that is not a string.
            None => nothing,
        },
        (other, Some((key, _))) => (
            vec![Diagnostic::error(
                Rule::InvalidValue,
                key.span,
                format!(
                    "`model.script` applies only to `id: script`, and `model.id` is `{}`",
                    short(other)
                ),
            )
            .with_help("set `id: script` to play the script, or remove `script`")],
            None,
        ),
        _ => nothing,
    }
}

/// The file's problems, reported at `span` (the `model.script` value), and its turns when
/// every one is well formed.
fn script_checks(
    file: &str,
    span: Span,
    entries: &[Entry<'_>],
    context: &CheckContext,
    output: Option<&ToolDefinition>,
) -> (Vec<Diagnostic>, Option<ScriptModel>) {
    let Some(base_dir) = context.base_dir() else {
        return (Vec::new(), None);
    };
    let shown = short(file);
    let path = match script_file(base_dir, file) {
        Ok(path) => path,
        Err(FileProblem::OutsideFolder) => {
            return (vec![Diagnostic::error(
                Rule::PathEscape,
                span,
                format!("the script `{shown}` is outside the manifest's folder"),
            )
            .with_help(
                "put the script beside the manifest (or in a folder inside it) and name it relative to the manifest",
            )], None)
        }
    };
    let bytes = match read_script(&path, &shown) {
        Ok(bytes) => bytes,
        Err(ScriptError::Read { reason, help, .. }) => {
            return (
                vec![Diagnostic::error(
                    Rule::InvalidValue,
                    span,
                    format!("cannot read the script `{shown}`: {reason}"),
                )
                .with_help(help)],
                None,
            )
        }
        Err(other) => {
            return (
                vec![Diagnostic::error(
                    Rule::InvalidValue,
                    span,
                    other.to_string(),
                )],
                None,
            )
        }
    };
    let report = Report { file: shown, span };
    let parsed_document = match document(&bytes) {
        Ok(document) => document,
        Err(problem) => return (vec![report.problem(&problem)], None),
    };
    let (parsed, problems) = turns(&parsed_document);
    let mut found: Vec<Diagnostic> = problems.iter().map(|p| report.problem(p)).collect();
    let mut tools = Tools::of(entries, context);
    if let Some(output) = output {
        tools.direct.insert(output.name.clone(), Some(output));
    }
    let mut searched = BTreeSet::new();
    for turn in &parsed {
        let number = turn.number;
        found.extend(names(turn, number, &report));
        if let ScriptTurn::Calls(calls) = &turn.turn {
            for (call, (tool_node, args_node)) in calls.iter().zip(&turn.calls) {
                let place = Place {
                    report: &report,
                    turn: number,
                    tool: tool_node.span.start,
                    args: *args_node,
                };
                found.extend(tools.check_call(&call.tool, &call.args, &place, &searched));
            }
            // A search's tools are offered once a turn has searched, from the next turn on.
            searched.extend(calls.iter().map(|call| call.tool.clone()));
        }
    }
    if problems.is_empty() {
        if let Some(last) = parsed.last() {
            // With an output schema the run ends when the output tool accepts an answer.
            let answers = |calls: &[crate::script::ScriptCall]| {
                output.is_some_and(|output| calls.iter().any(|call| call.tool == output.name))
            };
            if let (Some(output), ScriptTurn::Answer(_)) = (output, &last.turn) {
                let number = last.number;
                found.push(
                    Diagnostic::warning(
                        Rule::InvalidValue,
                        span,
                        report.at(
                            last.node.span.start,
                            Some(number),
                            &format!("the manifest asks for structured output, so an answer in text is sent back to the model, and the script has no turn left to call `{}`", output.name),
                        ),
                    )
                    .with_help(format!("end the script with a call of `{}` whose args match the output schema", output.name)),
                );
            }
            if matches!(&last.turn, ScriptTurn::Calls(calls) if !answers(calls)) {
                let number = last.number;
                found.push(
                    Diagnostic::warning(
                        Rule::InvalidValue,
                        span,
                        report.at(
                            last.node.span.start,
                            Some(number),
                            "the script ends with calls, so a run plays them and then fails asking for the next turn",
                        ),
                    )
                    .with_help("end the script with `- answer: TEXT`, the run's final answer"),
                );
            }
        }
    }
    found.truncate(MAX_REPORTED);
    // Well-formed turns are what the loader plays: the file is not read again.
    let script = problems
        .is_empty()
        .then(|| ScriptModel::new(parsed.into_iter().map(|turn| turn.turn)).with_script_name(file));
    (found, script)
}

/// How a script's diagnostics are worded and placed.
struct Report {
    /// The script as the manifest names it.
    file: String,
    /// The manifest's `model.script` value.
    span: Span,
}

impl Report {
    /// `` `FILE` LINE:COLUMN, turn N: MESSAGE ``.
    fn at(&self, at: Position, turn: Option<usize>, message: &str) -> String {
        let turn = turn
            .map(|turn| format!(", turn {turn}"))
            .unwrap_or_default();
        format!("`{}` {}:{}{turn}: {message}", self.file, at.line, at.column)
    }

    /// A parse problem under its rule.
    fn problem(&self, problem: &Problem) -> Diagnostic {
        let rule = match problem.kind {
            ProblemKind::Syntax => Rule::Syntax,
            ProblemKind::UnknownField => Rule::UnknownField,
            ProblemKind::MissingField => Rule::MissingField,
            ProblemKind::InvalidValue => Rule::InvalidValue,
            ProblemKind::Template => Rule::Template,
        };
        Diagnostic::error(
            rule,
            self.span,
            self.at(problem.at, problem.turn, &problem.message),
        )
        .with_help(problem.help.clone())
    }
}

/// Where one call is.
struct Place<'a> {
    report: &'a Report,
    turn: usize,
    /// The `tool:` value.
    tool: Position,
    /// The `args:` mapping, when written.
    args: Option<&'a Node>,
}

impl Place<'_> {
    /// The position of the argument at JSON Pointer `pointer`, as near as the tree goes.
    fn argument(&self, pointer: &str) -> Position {
        let Some(mut node) = self.args else {
            return self.tool;
        };
        for token in pointer.split('/').skip(1) {
            let token = token.replace("~1", "/").replace("~0", "~");
            let next = match &node.value {
                Value::Mapping(_) => node.get(&token),
                Value::Sequence(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            };
            match next {
                Some(next) => node = next,
                None => break,
            }
        }
        node.span.start
    }

    fn error(&self, rule: Rule, at: Position, message: &str, help: String) -> Diagnostic {
        Diagnostic::error(
            rule,
            self.report.span,
            self.report.at(at, Some(self.turn), message),
        )
        .with_help(help)
    }
}

/// Warnings for the names a turn's templates read that the script context does not have.
fn names(turn: &ParsedTurn<'_>, number: usize, report: &Report) -> Vec<Diagnostic> {
    let mut strings: Vec<(&str, Position)> = Vec::new();
    match &turn.turn {
        ScriptTurn::Answer(text) => {
            let at = turn
                .node
                .get("answer")
                .map_or(turn.node.span.start, |node| node.span.start);
            strings.push((text, at));
        }
        ScriptTurn::Calls(_) => {
            for (_, args) in &turn.calls {
                let mut stack: Vec<&Node> = args.iter().copied().collect();
                while let Some(node) = stack.pop() {
                    match &node.value {
                        Value::String { text, .. } => strings.push((text, node.span.start)),
                        Value::Sequence(items) => stack.extend(items.iter().rev()),
                        Value::Mapping(entries) => {
                            stack.extend(entries.iter().rev().map(|(_, value)| value));
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    let known: Vec<&str> = CONTEXT_NAMES.to_vec();
    let mut found = Vec::new();
    for (text, at) in strings {
        for name in Template::new(text).names() {
            if CONTEXT_NAMES.contains(&name.as_str()) || BUILTINS.contains(&name.as_str()) {
                continue;
            }
            let hint = suggest::closest(&name, &known)
                .map(|close| format!("did you mean `{close}`? "))
                .unwrap_or_default();
            found.push(
                Diagnostic::warning(
                    Rule::UndefinedVariable,
                    report.span,
                    report.at(
                        at,
                        Some(number),
                        &format!(
                            "the template reads `{}`, which a script's templates do not have, so the turn would fail",
                            short(&name)
                        ),
                    ),
                )
                .with_help(format!(
                    "{hint}a template can read `calls`, `prompt` and `turn`"
                )),
            );
        }
    }
    found
}

/// A tool the model can call, and its definition when the checker knows it.
type Known<'a> = BTreeMap<String, Option<&'a ToolDefinition>>;

/// The tools a script can call, worked out from the toolset entries as the loader builds them.
struct Tools<'a> {
    /// Offered from the first request: final name to definition.
    direct: Known<'a>,
    /// Behind a search toolset and not preloaded: final name to (search tool, definition).
    searched: BTreeMap<String, (String, Option<&'a ToolDefinition>)>,
    /// Each proxy's `call_tool` (final name) to (proxy name, the tools behind it).
    proxies: BTreeMap<String, (String, Known<'a>)>,
    /// Whether an MCP server without a `tools:` list is there: its tools are known only when it
    /// starts, so a name the checker does not know may be one of them.
    open: bool,
}

impl<'a> Tools<'a> {
    fn of(entries: &[Entry<'_>], context: &'a CheckContext) -> Self {
        let definition = |entry: &Entry<'_>, tool: &str| -> Option<&'a ToolDefinition> {
            match entry.kind {
                "tools" => context.catalog_definition(tool),
                "deferred" => first_party()
                    .get(tool)
                    .or_else(|| context.catalog_definition(tool)),
                // An MCP server's schemas are the server's, known when it starts; a
                // sub-agent's tool is built by the runtime from its manifest.
                "mcp" | "agents" => None,
                _ => first_party().get(tool),
            }
        };
        // A server that lists its own tools may offer any name, directly or behind a wrapper.
        let open = entries.iter().any(|entry| !entry.tools_are_known());
        // Each plain toolset's tools by its name.
        let mut by_toolset: BTreeMap<String, Known<'a>> = BTreeMap::new();
        let mut wrapped: BTreeSet<String> = BTreeSet::new();
        for entry in entries {
            if entry.wraps_toolsets() {
                wrapped.extend(
                    strings(entry.node.get("toolsets"))
                        .into_iter()
                        .map(|name| name.text.to_string()),
                );
            }
            if matches!(entry.kind, "proxy" | "search") {
                continue;
            }
            let Some(name) = &entry.name else { continue };
            let tools = entry
                .tools()
                .into_iter()
                .map(|tool| (entry.final_name(tool.text), definition(entry, tool.text)))
                .collect();
            by_toolset.insert(name.text.to_string(), tools);
        }
        let mut direct = Known::new();
        for (name, tools) in &by_toolset {
            if !wrapped.contains(name) {
                direct.extend(tools.clone());
            }
        }
        // A deferred set offers the tools of the toolsets it names directly, under its prefix.
        for entry in entries.iter().filter(|entry| entry.kind == "deferred") {
            for name in strings(entry.node.get("toolsets")) {
                for (tool, definition) in by_toolset.get(name.text).into_iter().flatten() {
                    direct.insert(entry.final_name(tool), *definition);
                }
            }
        }
        let mut searched = BTreeMap::new();
        let mut proxies = BTreeMap::new();
        for entry in entries {
            if !matches!(entry.kind, "proxy" | "search") {
                continue;
            }
            let own: Vec<String> = entry
                .tools()
                .into_iter()
                .map(|tool| {
                    let name = entry.final_name(tool.text);
                    direct.insert(name.clone(), first_party().get(tool.text));
                    name
                })
                .collect();
            let inner: Known<'a> = strings(entry.node.get("toolsets"))
                .into_iter()
                .filter_map(|name| by_toolset.get(name.text))
                .flat_map(|tools| tools.clone())
                .collect();
            if entry.kind == "proxy" {
                let call = entry.final_name("call_tool");
                let name = entry
                    .name
                    .as_ref()
                    .map_or_else(|| "proxy".to_string(), |name| name.text.to_string());
                proxies.insert(call, (name, inner));
                continue;
            }
            let preload: BTreeSet<&str> = strings(entry.node.get("preload"))
                .into_iter()
                .map(|name| name.text)
                .collect();
            let search = own.into_iter().next().unwrap_or_default();
            for (tool, definition) in inner {
                if preload.contains(tool.as_str()) {
                    direct.insert(tool, definition);
                } else {
                    searched.insert(tool, (search.clone(), definition));
                }
            }
        }
        Self {
            direct,
            searched,
            proxies,
            open,
        }
    }

    /// The problems of one call.
    fn check_call(
        &self,
        tool: &str,
        args: &Json,
        place: &Place<'_>,
        searched: &BTreeSet<String>,
    ) -> Vec<Diagnostic> {
        if let Some(definition) = self.direct.get(tool) {
            let mut found = arguments(tool, *definition, args, "", place);
            if let Some((proxy, inner)) = self.proxies.get(tool) {
                found.extend(self.inner_call(tool, proxy, inner, args, place));
            }
            return found;
        }
        if let Some((search, definition)) = self.searched.get(tool) {
            if searched.contains(search) {
                return arguments(tool, *definition, args, "", place);
            }
            return vec![place.error(
                Rule::UnknownTool,
                place.tool,
                &format!(
                    "`{}` is behind a search toolset: the model is offered it only after `{search}` finds it",
                    short(tool)
                ),
                format!(
                    "call `{search}` in an earlier turn (`{{tool: {search}, args: {{query: {}}}}}`), or add `{}` to the search's `preload`",
                    short(tool),
                    short(tool)
                ),
            )];
        }
        if let Some((call, (proxy, _))) = self
            .proxies
            .iter()
            .find(|(_, (_, inner))| inner.contains_key(tool))
        {
            return vec![place.error(
                Rule::UnknownTool,
                place.tool,
                &format!(
                    "`{}` is behind the proxy `{}`, so the model cannot call it by name",
                    short(tool),
                    short(proxy)
                ),
                format!(
                    "call it through the proxy: `{{tool: {call}, args: {{name: {}, arguments: {{...}}}}}}`",
                    short(tool)
                ),
            )];
        }
        if self.open {
            return Vec::new();
        }
        let offered: Vec<&str> = self.direct.keys().map(String::as_str).collect();
        let hint = suggest::closest(tool, &offered)
            .map(|close| format!("did you mean `{close}`? "))
            .unwrap_or_default();
        let list = if offered.is_empty() {
            "the agent has no tools".to_string()
        } else {
            format!("the model is offered {}", suggest::list(&offered))
        };
        vec![place.error(
            Rule::UnknownTool,
            place.tool,
            &format!("the agent has no tool `{}`", short(tool)),
            format!("{hint}{list}"),
        )]
    }

    /// A proxy call's inner tool, when its name is written out: it must be behind the proxy,
    /// and its `arguments` must match its schema.
    fn inner_call(
        &self,
        call: &str,
        proxy: &str,
        inner: &Known<'_>,
        args: &Json,
        place: &Place<'_>,
    ) -> Vec<Diagnostic> {
        let Some(name) = args.get("name").and_then(Json::as_str) else {
            return Vec::new();
        };
        if Template::new(name).is_template() {
            return Vec::new();
        }
        let Some(definition) = inner.get(name) else {
            if self.open {
                return Vec::new();
            }
            let behind: Vec<&str> = inner.keys().map(String::as_str).collect();
            let hint = suggest::closest(name, &behind)
                .map(|close| format!("did you mean `{close}`? "))
                .unwrap_or_default();
            return vec![place.error(
                Rule::UnknownTool,
                place.argument("/name"),
                &format!(
                    "`{call}` names `{}`, which is not behind the proxy `{}`",
                    short(name),
                    short(proxy)
                ),
                format!("{hint}the proxy has {}", suggest::list(&behind)),
            )];
        };
        let inner_args = args
            .get("arguments")
            .cloned()
            .unwrap_or_else(|| Json::Object(serde_json::Map::new()));
        arguments(name, *definition, &inner_args, "/arguments", place)
    }
}

/// The places of every template string in `value`, as JSON Pointers under `prefix`.
fn templated(value: &Json, prefix: &str, out: &mut Vec<String>) {
    match value {
        Json::String(text) if Template::new(text).is_template() => out.push(prefix.to_string()),
        Json::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                templated(item, &format!("{prefix}/{index}"), out);
            }
        }
        Json::Object(map) => {
            for (key, item) in map {
                let key = key.replace('~', "~0").replace('/', "~1");
                templated(item, &format!("{prefix}/{key}"), out);
            }
        }
        _ => {}
    }
}

/// The schema violations of `args` for `tool` (its pointers under `prefix` in the call's
/// `args`), leaving out those at a template's value.
fn arguments(
    tool: &str,
    definition: Option<&ToolDefinition>,
    args: &Json,
    prefix: &str,
    place: &Place<'_>,
) -> Vec<Diagnostic> {
    let Some(definition) = definition else {
        return Vec::new();
    };
    // A schema that does not compile is the tool's problem, reported when it is called.
    let Ok(validator) = jsonschema::validator_for(&definition.parameters) else {
        return Vec::new();
    };
    let mut skipped = Vec::new();
    templated(args, "", &mut skipped);
    let problems: Vec<(String, String)> = validator
        .iter_errors(args)
        .map(|error| (error.instance_path().to_string(), error.to_string()))
        .filter(|(path, _)| {
            !skipped
                .iter()
                .any(|skip| path == skip || path.starts_with(&format!("{skip}/")))
        })
        .take(5)
        .collect();
    let Some((first, _)) = problems.first() else {
        return Vec::new();
    };
    let described: Vec<String> = problems
        .iter()
        .map(|(path, message)| {
            if path.is_empty() {
                short_message(message)
            } else {
                format!("at `{prefix}{path}`: {}", short_message(message))
            }
        })
        .collect();
    let fields: Vec<&str> = definition
        .parameters
        .get("properties")
        .and_then(Json::as_object)
        .map(|properties| properties.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let help = if fields.is_empty() {
        format!("fix the arguments to match the schema of `{}`", short(tool))
    } else {
        format!(
            "fix the arguments; `{}` takes {} (`starweaver tools MANIFEST --all` shows its schema)",
            short(tool),
            suggest::list(&fields)
        )
    };
    vec![place.error(
        Rule::InvalidValue,
        place.argument(&format!("{prefix}{first}")),
        &format!(
            "the arguments of `{}` do not match its schema: {}",
            short(tool),
            described.join("; ")
        ),
        help,
    )]
}

/// A validator's message, at most 200 characters (it quotes the value).
fn short_message(message: &str) -> String {
    let mut chars = message.chars();
    let head: String = chars.by_ref().take(200).collect();
    if chars.next().is_some() {
        format!("{head}...")
    } else {
        head
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use crate::diagnostics::{Rule, Severity};
    use crate::validate::{check, CheckContext};

    const MANIFEST: &str = "version: 1\nname: a\nmodel: {id: script, script: a.script.yaml}\n\
environment: {type: virtual}\ntoolsets: [{type: filesystem, read_only: true}]\n";

    fn checked(script: &str) -> Vec<crate::diagnostics::Diagnostic> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.script.yaml"), script).unwrap();
        check(
            MANIFEST.as_bytes(),
            &CheckContext::new().with_base_dir(dir.path()),
        )
    }

    #[test]
    fn an_unknown_tool_is_named_with_its_place_in_the_script_and_a_suggestion() {
        let found = checked("- calls:\n    - {tool: gerp, args: {pattern: x}}\n- answer: done\n");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].rule, Rule::UnknownTool);
        assert_eq!(
            found[0].message,
            "`a.script.yaml` 2:14, turn 1: the agent has no tool `gerp`"
        );
        // The diagnostic points at the manifest's `model.script`.
        assert_eq!(
            (found[0].span.start.line, found[0].span.start.column),
            (3, 29)
        );
        let help = found[0].help.as_deref().unwrap();
        assert!(help.starts_with("did you mean `grep`?"), "{help}");
        assert!(help.contains("`read_file`"), "{help}");
    }

    #[test]
    fn arguments_are_checked_against_the_schema_except_a_templates_value() {
        let found = checked(
            "- calls:\n    - {tool: read_file, args: {path: a, limit: many}}\n\
             - calls:\n    - {tool: read_file, args: {path: a, limit: '{{ calls[0].result.total_lines }}'}}\n\
             - answer: done\n",
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].rule, Rule::InvalidValue);
        assert!(
            found[0]
                .message
                .starts_with("`a.script.yaml` 2:48, turn 1: the arguments of `read_file` do not match its schema: at `/limit`"),
            "{}",
            found[0].message
        );
        let help = found[0].help.as_deref().unwrap();
        assert!(help.contains("`path`, `offset`, `limit`"), "{help}");
    }

    #[test]
    fn what_only_fails_when_played_is_a_warning() {
        let found =
            checked("- calls:\n    - {tool: ls}\n- answer: '{{ promt }}'\n- calls: [{tool: ls}]\n");
        let rules: Vec<(Rule, Severity)> = found.iter().map(|d| (d.rule, d.severity)).collect();
        assert_eq!(
            rules,
            [
                (Rule::UndefinedVariable, Severity::Warning),
                (Rule::InvalidValue, Severity::Warning)
            ],
            "{found:?}"
        );
        assert!(found[0]
            .help
            .as_deref()
            .unwrap()
            .contains("did you mean `prompt`?"));
    }

    #[test]
    fn the_file_is_read_only_when_the_manifests_folder_is_known() {
        assert_eq!(check(MANIFEST.as_bytes(), &CheckContext::new()), []);
        let found = check(
            MANIFEST.as_bytes(),
            &CheckContext::new().with_base_dir("/nonexistent-folder"),
        );
        assert_eq!(found.len(), 1);
        assert!(
            found[0].message.contains("it does not exist"),
            "{}",
            found[0].message
        );
    }
}

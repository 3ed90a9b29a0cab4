//! `output:`: exactly one of `schema` (an inline mapping) and `schema_file` (`missing-field`
//! for neither, `invalid-value` for both); a `schema_file` inside the manifest's folder
//! (`path-escape`) that exists (`missing-file`, at its line) and holds bounded JSON
//! (`invalid-value`); the schema a valid JSON Schema (`invalid-value`); and the output tool's
//! arguments schema one the manifest's model provider can take (`schema-compat`, the rule tool
//! schemas follow). A tool the agent would see under the output tool's name is a
//! `duplicate-name` error at that tool: one would hide the other. The schema that passed is what the loader gives the agent, so the file is
//! read once.

use serde_json::Value as Json;

use starweaver_core::agent::{OutputSpec, OUTPUT_TOOL_NAME};

use super::model::short;
use super::schema_compat;
use super::toolsets::{called_by_name, Entry};
use super::CheckContext;
use crate::diagnostics::{Diagnostic, Rule};
use crate::files::{read_limited, ReadLimitedError};
use crate::paths::{manifest_file, FileProblem};
use crate::validate::json::to_json;
use crate::yaml::{Node, Span, Value};

/// The largest schema file read, in bytes.
pub(crate) const MAX_SCHEMA_FILE_BYTES: u64 = 1024 * 1024;

/// The longest validator message quoted, in characters.
const MAX_PROBLEM_CHARS: usize = 300;

/// Every problem of `output:`, and the answer's schema when it has none.
pub(super) fn check(
    root: &Node,
    entries: &[Entry<'_>],
    context: &CheckContext,
) -> (Vec<Diagnostic>, Option<Json>) {
    let Some((key, output)) = root.entry("output") else {
        return (Vec::new(), None);
    };
    let clashes = clashes(entries);
    if !clashes.is_empty() {
        return (clashes, None);
    }
    // Not a mapping: the structure pass reports it.
    if output.as_mapping().is_none() {
        return (Vec::new(), None);
    }
    let inline = output
        .entry("schema")
        .filter(|(_, value)| !matches!(value.value, Value::Null));
    let file = output
        .entry("schema_file")
        .filter(|(_, value)| !matches!(value.value, Value::Null));
    let (schema, span) = match (inline, file) {
        (None, None) => {
            return (
                vec![Diagnostic::error(
                    Rule::MissingField,
                    key.span,
                    "`output` needs the answer's schema: `schema` or `schema_file`",
                )
                .with_help(
                    "add `schema:` with a JSON Schema mapping, or `schema_file:` naming a JSON file beside the manifest",
                )],
                None,
            )
        }
        (Some(_), Some((file_key, _))) => {
            return (
                vec![Diagnostic::error(
                    Rule::InvalidValue,
                    file_key.span,
                    "`output` has both `schema` and `schema_file`; it takes one",
                )
                .with_help("keep the inline `schema` or the `schema_file`, not both")],
                None,
            )
        }
        (Some((_, value)), None) => {
            // A value that is not a mapping is reported by the structure pass.
            if value.as_mapping().is_none() {
                return (Vec::new(), None);
            }
            match to_json(value) {
                Ok(schema) => (schema, value.span),
                Err(diagnostic) => return (vec![diagnostic], None),
            }
        }
        (None, Some((_, value))) => {
            let Some(name) = value.as_str() else {
                return (Vec::new(), None);
            };
            match read_file(name, value.span, context) {
                Ok(Some(schema)) => (schema, value.span),
                Ok(None) => return (Vec::new(), None),
                Err(diagnostic) => return (vec![*diagnostic], None),
            }
        }
    };
    if let Err(diagnostic) = valid_schema(&schema, span) {
        return (vec![*diagnostic], None);
    }
    let parameters = OutputSpec::new(schema.clone()).tool_parameters();
    match schema_compat::check_output(root, &parameters, span) {
        Some(diagnostic) => {
            let error = diagnostic.severity == crate::diagnostics::Severity::Error;
            (vec![diagnostic], (!error).then_some(schema))
        }
        None => (Vec::new(), Some(schema)),
    }
}

/// A `duplicate-name` error for each tool the agent would see as `final_answer` (after its
/// toolset's prefix); tools behind a proxy are reached through `call_tool` and clash with
/// nothing.
fn clashes(entries: &[Entry<'_>]) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for (_, entry) in called_by_name(entries) {
        for tool in entry.tools() {
            if entry.final_name(tool.text) == OUTPUT_TOOL_NAME {
                found.push(
                    Diagnostic::error(
                        Rule::DuplicateName,
                        tool.span,
                        format!(
                            "toolset `{}` gives the agent a tool named `{OUTPUT_TOOL_NAME}`, the name of the output tool `output:` adds, so one would hide the other",
                            short(entry.owner())
                        ),
                    )
                    .with_help("give the toolset a `prefix`, or leave the tool out of its `tools:`"),
                );
            }
        }
    }
    found
}

/// The schema in `output.schema_file`; `None` when the checker knows no folder to read it in.
fn read_file(
    name: &str,
    span: Span,
    context: &CheckContext,
) -> Result<Option<Json>, Box<Diagnostic>> {
    let Some(base_dir) = context.base_dir() else {
        return Ok(None);
    };
    let shown = short(name);
    let path = manifest_file(base_dir, name).map_err(|FileProblem::OutsideFolder| {
        Box::new(
            Diagnostic::error(
                Rule::PathEscape,
                span,
                format!("the schema file `{shown}` is outside the manifest's folder"),
            )
            .with_help(
                "put the schema file beside the manifest (or in a folder inside it) and name it relative to the manifest",
            ),
        )
    })?;
    let bytes = read_limited(&path, MAX_SCHEMA_FILE_BYTES).map_err(|error| {
        Box::new(match error {
            ReadLimitedError::Io(error) if error.kind() == std::io::ErrorKind::NotFound => {
                Diagnostic::error(
                    Rule::MissingFile,
                    span,
                    format!("the schema file `{shown}` does not exist"),
                )
                .with_help(
                    "create it, or name an existing JSON Schema file (relative to the manifest's folder)",
                )
            }
            other => Diagnostic::error(
                Rule::InvalidValue,
                span,
                format!("cannot read the schema file `{shown}`: {other}"),
            )
            .with_help("name a readable JSON file of at most 1 MiB"),
        })
    })?;
    serde_json::from_slice(&bytes).map(Some).map_err(|error| {
        Box::new(
            Diagnostic::error(
                Rule::InvalidValue,
                span,
                format!(
                    "the schema file `{shown}` is not JSON: {error} (line {}, column {})",
                    error.line(),
                    error.column()
                ),
            )
            .with_help("write the schema as a JSON object"),
        )
    })
}

/// Whether `schema` is a JSON Schema the validator compiles (an object, known keywords with
/// values of the right types, local references that resolve).
fn valid_schema(schema: &Json, span: Span) -> Result<(), Box<Diagnostic>> {
    let problem = if schema.is_object() {
        jsonschema::validator_for(schema)
            .err()
            .map(|error| error.to_string())
    } else {
        Some("it is not an object".to_string())
    };
    match problem {
        None => Ok(()),
        Some(problem) => Err(Box::new(
            Diagnostic::error(
                Rule::InvalidValue,
                span,
                format!(
                    "the output schema is not a valid JSON Schema: {}",
                    problem.chars().take(MAX_PROBLEM_CHARS).collect::<String>()
                ),
            )
            .with_help(
                "fix the schema (keywords as JSON Schema 2020-12 defines them, such as `type: object` and `required: [..]`)",
            ),
        )),
    }
}

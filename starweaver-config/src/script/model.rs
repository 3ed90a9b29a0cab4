//! [`ScriptModel`]: a model that plays a script of turns, on the same path as a real model.

use std::path::Path;
use std::sync::Arc;

use minijinja::Value as Jinja;
use serde_json::Value;
use starweaver_core::model::{
    Model, ModelError, ModelMessage, ModelRequestParameters, ModelResponse, ToolCallPart, Usage,
};
use starweaver_core::BoxFuture;

use super::conversation::Seen;
use super::parse::{document, turns, Problem};
use super::template::Template;
use super::{ScriptError, ScriptTurn, MAX_SCRIPT_BYTES};
use crate::files::{read_limited, ReadLimitedError};

/// Deepest nesting of a call's arguments that is rendered (a parsed script never nests deeper:
/// the YAML reader's depth budget is the same).
const MAX_ARGUMENT_DEPTH: usize = 64;

/// A model that answers request N of a conversation with turn N of a script: the tool calls it
/// lists, or its final answer. Answers and string arguments are templates over the calls made
/// so far (see the module documentation), so an answer can quote what the tools returned.
///
/// It goes through the agent's loop like any model (events, usage, approvals, retries of
/// invalid arguments), and keeps no state of its own: the turn to play and the calls to quote
/// come from the conversation, so a saved run resumed elsewhere plays on. A turn whose
/// template fails, or a request after the last turn, fails the run with
/// [`ModelError::Script`] naming the turn.
///
/// A manifest names one with `model: {id: script, script: FILE}`; a host builds one from a
/// file ([`ScriptModel::from_file`]), YAML text ([`ScriptModel::from_yaml`]) or turns
/// ([`ScriptModel::new`]):
///
/// ```
/// use serde_json::json;
/// use starweaver_config::script::{ScriptCall, ScriptModel, ScriptTurn};
/// use starweaver_core::agent::AgentBuilder;
/// use starweaver_core::tools::{string_tool, ToolContext, ToolResult};
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let model = ScriptModel::new([
///     ScriptTurn::calls([ScriptCall::new("lookup", json!({"word": "{{ prompt }}"}))]),
///     ScriptTurn::answer("{{ prompt }} means {{ calls[0].result.meaning }}."),
/// ]);
/// // The same script as YAML:
/// let yaml = ScriptModel::from_yaml(
///     "- calls: [{tool: lookup, args: {word: '{{ prompt }}'}}]\n\
///      - answer: '{{ prompt }} means {{ calls[0].result.meaning }}.'\n",
/// )
/// .unwrap();
/// assert_eq!(yaml.turns(), model.turns());
///
/// let lookup = string_tool(
///     "lookup",
///     Some("Looks a word up.".to_string()),
///     json!({"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}),
///     |_ctx: ToolContext, args: serde_json::Value| async move {
///         Ok(ToolResult::new(json!({"word": args["word"], "meaning": "a star"})))
///     },
/// );
/// let agent = AgentBuilder::new(std::sync::Arc::new(model))
///     .tool(std::sync::Arc::new(lookup))
///     .build();
/// let result = agent.run("sol").await.unwrap();
/// assert_eq!(result.output, "sol means a star.");
/// # });
/// ```
#[derive(Clone, Debug)]
pub struct ScriptModel {
    name: String,
    script: String,
    turns: Arc<[ScriptTurn]>,
}

impl ScriptModel {
    /// Plays `turns`; errors name the script `(in code)` until [`Self::with_script_name`].
    pub fn new(turns: impl IntoIterator<Item = ScriptTurn>) -> Self {
        Self {
            name: "script".to_string(),
            script: "(in code)".to_string(),
            turns: turns.into_iter().collect(),
        }
    }

    /// Reads the turns from YAML text (the script file's format, see `docs/models.md`);
    /// errors name the script `(inline)` until [`Self::with_script_name`].
    ///
    /// # Errors
    /// [`ScriptError::Invalid`] with the first problem's line and column: not YAML, over a
    /// limit, a malformed turn or call, or a template that does not parse.
    pub fn from_yaml(text: &str) -> Result<Self, ScriptError> {
        Self::from_bytes(text.as_bytes(), "(inline)")
    }

    /// Reads the turns from the file `path` (at most [`MAX_SCRIPT_BYTES`]); errors name the
    /// script by `path`.
    ///
    /// # Errors
    /// [`ScriptError::Read`] for a file that cannot be read, is not a regular file, or is too
    /// large; otherwise as [`Self::from_yaml`].
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, ScriptError> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let bytes = read_script(path, &shown)?;
        Self::from_bytes(&bytes, &shown)
    }

    fn from_bytes(bytes: &[u8], shown: &str) -> Result<Self, ScriptError> {
        let invalid = |problem: Problem| ScriptError::Invalid {
            script: shown.to_string(),
            line: problem.at.line,
            column: problem.at.column,
            turn: problem.turn,
            message: problem.message,
            help: problem.help,
        };
        let document = document(bytes).map_err(invalid)?;
        let (parsed, problems) = turns(&document);
        if let Some(problem) = problems.into_iter().next() {
            return Err(invalid(problem));
        }
        Ok(Self::new(parsed.into_iter().map(|turn| turn.turn)).with_script_name(shown))
    }

    /// Names the script in errors (a manifest's loader gives `model.script` as written).
    #[must_use]
    pub fn with_script_name(mut self, name: impl Into<String>) -> Self {
        self.script = name.into();
        self
    }

    /// Renames the model (default `script`).
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The turns, in order.
    #[must_use]
    pub fn turns(&self) -> &[ScriptTurn] {
        &self.turns
    }

    /// The script's name in errors.
    #[must_use]
    pub fn script_name(&self) -> &str {
        &self.script
    }

    /// The response turn `seen.turn` gives.
    fn play(&self, seen: &Seen) -> Result<ModelResponse, ModelError> {
        let fail = |message: String| ModelError::Script {
            script: self.script.clone(),
            turn: seen.turn,
            message,
        };
        let Some(turn) = self.turns.get(seen.turn - 1) else {
            return Err(fail(format!(
                "the script has {} turn(s), so none is left for this request; end each run with an `answer:` turn",
                self.turns.len()
            )));
        };
        let context = Jinja::from_serialize(seen);
        match turn {
            ScriptTurn::Answer(text) => {
                let value = Template::new(text).value(&context).map_err(|error| {
                    fail(format!(
                        "the answer does not render: {error}; fix the template (it can read `calls`, `prompt` and `turn`)"
                    ))
                })?;
                Ok(ModelResponse::text(match value {
                    Value::String(text) => text,
                    other => other.to_string(),
                }))
            }
            ScriptTurn::Calls(calls) if calls.is_empty() => Err(fail(
                "the turn has no calls; list at least one, or make it an answer".to_string(),
            )),
            ScriptTurn::Calls(calls) => {
                let mut parts = Vec::with_capacity(calls.len());
                for (index, call) in calls.iter().enumerate() {
                    let args = rendered(&call.args, &context, "args", 0).map_err(|(at, error)| {
                        fail(format!(
                            "call {} (`{}`): `{at}` does not render: {error}; fix the template (it can read `calls`, `prompt` and `turn`)",
                            index + 1,
                            call.tool
                        ))
                    })?;
                    parts.push(ToolCallPart::new(
                        format!("script-call-{}", seen.calls_so_far + index + 1),
                        call.tool.clone(),
                        args,
                    ));
                }
                Ok(ModelResponse::tool_calls(parts))
            }
        }
    }
}

/// `value` with every string rendered; `Err((where, why))` names the failing value's place.
fn rendered(
    value: &Value,
    context: &Jinja,
    at: &str,
    depth: usize,
) -> Result<Value, (String, String)> {
    if depth > MAX_ARGUMENT_DEPTH {
        return Err((
            at.to_string(),
            format!("the arguments nest deeper than {MAX_ARGUMENT_DEPTH} levels"),
        ));
    }
    Ok(match value {
        Value::String(text) => Template::new(text)
            .value(context)
            .map_err(|error| (at.to_string(), error))?,
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(index, item)| rendered(item, context, &format!("{at}[{index}]"), depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| {
                    rendered(item, context, &format!("{at}.{key}"), depth + 1)
                        .map(|item| (key.clone(), item))
                })
                .collect::<Result<_, _>>()?,
        ),
        other => other.clone(),
    })
}

/// The script file's bytes, or why they cannot be read.
pub(crate) fn read_script(path: &Path, shown: &str) -> Result<Vec<u8>, ScriptError> {
    let failed = |reason: String, help: &str| ScriptError::Read {
        script: shown.to_string(),
        reason,
        help: help.to_string(),
    };
    read_limited(path, MAX_SCRIPT_BYTES as u64).map_err(|error| match error {
        ReadLimitedError::Io(error) if error.kind() == std::io::ErrorKind::NotFound => failed(
            "it does not exist".to_string(),
            "create it, or name an existing file of turns (relative to the manifest's folder)",
        ),
        ReadLimitedError::Io(error) => failed(
            error.to_string(),
            "make the file readable, or name another file of turns",
        ),
        ReadLimitedError::NotAFile => failed(
            "it is not a regular file".to_string(),
            "name a file of turns (a YAML list), not a folder or a device",
        ),
        ReadLimitedError::TooLarge { limit } => {
            let size = std::fs::metadata(path).map_or(limit + 1, |metadata| metadata.len());
            failed(
                format!("it is {size} bytes, more than the {limit} bytes a script may hold"),
                "split the work into shorter scripts",
            )
        }
    })
}

impl Model for ScriptModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn request<'a>(
        &'a self,
        messages: &'a [ModelMessage],
        parameters: &'a ModelRequestParameters,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        let _ = parameters;
        Box::pin(async move {
            let seen = Seen::of(messages);
            let mut response = self.play(&seen)?;
            // Rough counts, as the `test` model makes them.
            response.usage = Usage::estimated(messages, &response);
            response.model_name.get_or_insert_with(|| self.name.clone());
            Ok(response)
        })
    }
}

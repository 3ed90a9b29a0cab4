//! The script's templates: every string of an answer or an argument, on the manifests'
//! template engine (strict undefined names, the same step budget and output cap). A string
//! that is exactly one `{{ expression }}` takes the expression's value, so a number found by an
//! earlier call stays a number; any other template renders to text, and a string without tags
//! is used as written.

use std::collections::BTreeSet;

use minijinja::Value as Jinja;
use serde_json::Value;

use crate::template::{environment, render, MAX_RENDERED_BYTES};
use crate::yaml;

/// One string of a script.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Template<'a>(&'a str);

impl<'a> Template<'a> {
    /// The string `text`.
    pub(crate) const fn new(text: &'a str) -> Self {
        Self(text)
    }

    /// Whether the string has template tags; one without is used as written.
    pub(crate) fn is_template(self) -> bool {
        ["{{", "{%", "{#"].iter().any(|tag| self.0.contains(tag))
    }

    /// The expression when the string is exactly one `{{ expression }}`.
    pub(crate) fn whole_expression(self) -> Option<&'a str> {
        let inner = self.0.trim().strip_prefix("{{")?.strip_suffix("}}")?;
        let inner = inner.strip_prefix('-').unwrap_or(inner);
        let inner = inner.strip_suffix('-').unwrap_or(inner);
        let nested = ["{{", "}}", "{%", "%}", "{#", "#}"]
            .iter()
            .any(|tag| inner.contains(tag));
        (!nested && !inner.trim().is_empty()).then_some(inner)
    }

    /// Whether the template parses.
    ///
    /// # Errors
    /// The engine's message.
    pub(crate) fn check_syntax(self) -> Result<(), String> {
        if !self.is_template() {
            return Ok(());
        }
        let environment = environment();
        match self.whole_expression() {
            Some(expression) => environment.compile_expression(expression).map(drop),
            None => environment.template_from_str(self.0).map(drop),
        }
        .map_err(|error| message(&error, self.0))
    }

    /// The names the template reads from its context (`calls`, `prompt`, ...); empty for one
    /// that does not parse.
    pub(crate) fn names(self) -> BTreeSet<String> {
        if !self.is_template() {
            return BTreeSet::new();
        }
        let environment = environment();
        let names = match self.whole_expression() {
            Some(expression) => environment
                .compile_expression(expression)
                .map(|compiled| compiled.undeclared_variables(false)),
            None => environment
                .template_from_str(self.0)
                .map(|compiled| compiled.undeclared_variables(false)),
        };
        names
            .map(|set| set.into_iter().collect())
            .unwrap_or_default()
    }

    /// The string's value in `context`: itself without tags, the expression's value for a
    /// whole expression, the rendered text otherwise.
    ///
    /// # Errors
    /// The engine's message: a syntax error, an undefined name or item, a failing filter, a
    /// render out of steps, or a value larger than [`MAX_RENDERED_BYTES`].
    pub(crate) fn value(self, context: &Jinja) -> Result<Value, String> {
        if !self.is_template() {
            return Ok(Value::String(self.0.to_string()));
        }
        let Some(expression) = self.whole_expression() else {
            return render(self.0, context.clone(), "the template")
                .map(Value::String)
                .map_err(|error| message(&error, self.0));
        };
        let environment = environment();
        let compiled = environment
            .compile_expression(expression)
            .map_err(|error| message(&error, self.0))?;
        let value = compiled
            .eval(context.clone())
            .map_err(|error| message(&error, self.0))?;
        if value.is_undefined() {
            return Err(format!(
                "`{}` is undefined (no such call, item or field)",
                expression.trim().chars().take(80).collect::<String>()
            ));
        }
        let json = serde_json::to_value(&value).map_err(|error| error.to_string())?;
        let size = serde_json::to_string(&json).map_or(usize::MAX, |text| text.len());
        if size > MAX_RENDERED_BYTES {
            return Err(format!(
                "the value is larger than {MAX_RENDERED_BYTES} bytes as JSON"
            ));
        }
        Ok(json)
    }
}

/// The engine's error in one line, with its detail and the template it is about (its first 80
/// characters).
fn message(error: &minijinja::Error, source: &str) -> String {
    let mut text = error.kind().to_string();
    if let Some(detail) = error.detail() {
        text = format!("{text}: {detail}");
    }
    let source = source.trim();
    let mut shown: String = source.chars().take(80).collect();
    if shown.len() < source.len() {
        shown.push_str("...");
    }
    format!("{text} in `{shown}`")
}

/// A YAML value's kind as a message says it: `a string`, `a list`, ...
pub(crate) const fn kind_of(value: &yaml::Value) -> &'static str {
    match value {
        yaml::Value::Null => "nothing",
        yaml::Value::Bool(_) => "a boolean",
        yaml::Value::Int(_) | yaml::Value::Float(_) => "a number",
        yaml::Value::String { .. } => "text",
        yaml::Value::Sequence(_) => "a list",
        yaml::Value::Mapping(_) => "a mapping",
    }
}

//! The instructions template engine, set up once for the checker and the loader: minijinja with
//! strict undefined names (a missing variable is an error, never an empty string) and a step
//! budget (a hostile template cannot loop for long).

use std::collections::BTreeMap;

use minijinja::{Environment, UndefinedBehavior, Value};

/// Template steps one render may take.
pub const TEMPLATE_FUEL: u64 = 100_000;

/// Renders `template` with `vars` under `vars.*` and the manifest's `name` as `name`.
///
/// # Errors
/// The engine's error: a syntax error, an undefined name, a failing filter, or a render that
/// ran out of steps.
pub fn render_instructions(
    template: &str,
    vars: &BTreeMap<String, serde_json::Value>,
    name: &str,
) -> Result<String, minijinja::Error> {
    let mut environment = Environment::new();
    environment.set_undefined_behavior(UndefinedBehavior::Strict);
    environment.set_fuel(Some(TEMPLATE_FUEL));
    let context = minijinja::context! {
        vars => Value::from_serialize(vars),
        name => name,
    };
    environment.render_str(template, context)
}

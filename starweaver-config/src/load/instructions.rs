//! `instructions:` rendered as a minijinja template over `vars` and `name`.

use std::collections::BTreeMap;

use minijinja::{Environment, UndefinedBehavior, Value};

use super::LoadError;
use crate::manifest::Manifest;

/// Template steps one render may take, so a hostile template cannot loop for long.
const FUEL: u64 = 100_000;

/// The manifest's instructions with `{{ vars.NAME }}` and `{{ name }}` filled in; the manifest's
/// `vars` defaults are overridden by `overrides`. An undefined name is an error, never an
/// empty string.
pub(super) fn render(
    manifest: &Manifest,
    overrides: &BTreeMap<String, String>,
) -> Result<Option<String>, LoadError> {
    let Some(template) = &manifest.instructions else {
        return Ok(None);
    };
    let mut vars: BTreeMap<String, serde_json::Value> = manifest.vars.clone();
    for (name, value) in overrides {
        vars.insert(name.clone(), serde_json::Value::String(value.clone()));
    }
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_fuel(Some(FUEL));
    let context = minijinja::context! {
        vars => Value::from_serialize(&vars),
        name => manifest.name.clone(),
    };
    env.render_str(template, context)
        .map(Some)
        .map_err(|error| LoadError::Template {
            message: error.to_string(),
        })
}

//! `instructions:` rendered as a minijinja template over `vars` and `name`.

use std::collections::BTreeMap;

use super::LoadError;
use crate::manifest::Manifest;
use crate::template::render_instructions;

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
    render_instructions(template, &vars, &manifest.name)
        .map(Some)
        .map_err(|error| LoadError::Template {
            message: error.to_string(),
        })
}

//! The skills layer: scanning with precedence, diagnostics, activation,
//! reloads and their scheduling, the model-facing instruction block, the
//! `skills_scanned` record, and the SKILL.md frontmatter reader.

mod activation;
mod diagnostics;
mod frontmatter;
mod instructions;
mod reloads;
mod scanning;

use std::sync::Arc;

use serde_json::Value;
use starweaver::environment::VirtualEnvironmentProvider;
use starweaver::{SkillError, SkillRegistry, SkillSourceScope};

/// A SKILL.md with a name, a description and a body.
fn skill(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n")
}

/// An in-memory provider holding `files` (path, content).
fn env(files: &[(&str, &str)]) -> Arc<VirtualEnvironmentProvider> {
    let mut provider = VirtualEnvironmentProvider::new("skills");
    for (path, content) in files {
        provider = provider.with_file(path, *content);
    }
    Arc::new(provider)
}

/// One scope: the environment root.
fn root() -> Vec<SkillSourceScope> {
    vec![SkillSourceScope::new("")]
}

/// A strict scan that must succeed.
async fn scan_ok(
    provider: Arc<VirtualEnvironmentProvider>,
    scopes: &[SkillSourceScope],
) -> SkillRegistry {
    match SkillRegistry::scan(provider, scopes).await {
        Ok(registry) => registry,
        Err(error) => panic!("scan failed: {error}"),
    }
}

/// A strict scan of the root that must fail.
async fn scan_error(provider: Arc<VirtualEnvironmentProvider>) -> SkillError {
    match SkillRegistry::scan(provider, &root()).await {
        Ok(registry) => panic!("scan succeeded: {:?}", registry.names()),
        Err(error) => error,
    }
}

/// Every string anywhere in a JSON value.
fn all_strings(value: &Value) -> Vec<String> {
    match value {
        Value::String(text) => vec![text.clone()],
        Value::Array(items) => items.iter().flat_map(all_strings).collect(),
        Value::Object(map) => map
            .iter()
            .flat_map(|(key, value)| std::iter::once(key.clone()).chain(all_strings(value)))
            .collect(),
        _ => Vec::new(),
    }
}

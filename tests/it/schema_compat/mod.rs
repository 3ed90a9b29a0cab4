//! Provider schema compatibility of every first-party tool and every
//! example tool: each adapts to every dialect, and under OpenAI strict
//! mode the ones that lose meaning lose exactly what is asserted here.

mod agents;
mod bundles;
mod check_command;
mod examples;

use starweaver::model::{adapt_schema, SchemaDialect};
use starweaver::ToolDefinition;

/// Every dialect a provider client adapts to.
const DIALECTS: [SchemaDialect; 3] = [
    SchemaDialect::OpenAiStrict,
    SchemaDialect::OpenAi,
    SchemaDialect::Anthropic,
];

/// The lossy strict changes of one definition as `(path, change, lost)`,
/// after checking that every dialect takes it.
fn strict_losses(definition: &ToolDefinition) -> Vec<(String, String, String)> {
    for dialect in DIALECTS {
        if let Err(error) = adapt_schema(&definition.parameters, dialect) {
            panic!("{} does not adapt to {dialect:?}: {error}", definition.name);
        }
    }
    adapt_schema(&definition.parameters, SchemaDialect::OpenAiStrict)
        .unwrap()
        .lossy_changes()
        .map(|change| {
            (
                change.path.clone(),
                change.change.clone(),
                change.lost.clone().unwrap_or_default(),
            )
        })
        .collect()
}

/// Prints every tool's strict losses (for `--nocapture` when a bundle
/// changes) and returns them by name.
fn losses_by_name(
    definitions: &[ToolDefinition],
) -> std::collections::BTreeMap<String, Vec<(String, String, String)>> {
    definitions
        .iter()
        .map(|definition| {
            let losses = strict_losses(definition);
            println!("{}: {losses:?}", definition.name);
            (definition.name.clone(), losses)
        })
        .collect()
}

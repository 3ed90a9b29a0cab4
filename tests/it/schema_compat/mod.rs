//! Provider schema compatibility of every first-party tool and every
//! example tool: each adapts to every dialect, and under OpenAI strict
//! mode the ones that lose meaning lose exactly what is asserted here.

mod agents;
mod bundles;
mod check_command;
mod examples;

use starweaver::model::{adapt_schema, sample_value, SchemaDialect, ToolDefinition};

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
    let adapted = adapt_schema(&definition.parameters, SchemaDialect::OpenAiStrict).unwrap();
    assert_round_trip(definition, &adapted);
    adapted
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

/// An answer a model could give under strict mode (a sample of the adapted schema, every
/// optional property `null`), once restored, is valid arguments for the tool's own schema.
fn assert_round_trip(definition: &ToolDefinition, adapted: &starweaver::model::AdaptedSchema) {
    let strict = jsonschema::validator_for(&adapted.schema).unwrap_or_else(|error| {
        panic!(
            "{}: the strict schema does not compile: {error}",
            definition.name
        )
    });
    let original = jsonschema::validator_for(&definition.parameters).unwrap();
    let sample = sample_value(&adapted.schema);
    // The same answer with every optional top-level property `null`, as a
    // model says "absent" in strict mode.
    let mut absent = sample.clone();
    let required = definition.parameters["required"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if let Some(map) = absent.as_object_mut() {
        for (name, value) in map.iter_mut() {
            if !required.contains(&serde_json::Value::from(name.as_str())) {
                *value = serde_json::Value::Null;
            }
        }
    }
    for mut answer in [sample, absent] {
        assert!(strict.is_valid(&answer), "{}: {answer}", definition.name);
        adapted.restore_arguments(&mut answer);
        let errors: Vec<String> = original
            .iter_errors(&answer)
            .map(|error| error.to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "{}: restored {answer} is invalid: {errors:?}",
            definition.name
        );
    }
}

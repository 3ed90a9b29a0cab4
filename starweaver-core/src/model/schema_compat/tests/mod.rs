//! The provider schema transforms: root rules, strict rewriting,
//! restoring arguments, and real schemars output.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod restore;
mod root;
mod schemars_output;
mod strict;

use serde_json::Value;

use super::{adapt_schema, AdaptedSchema, SchemaChange, SchemaDialect};

/// `schema` adapted to strict mode.
fn strict(schema: &Value) -> AdaptedSchema {
    adapt_schema(schema, SchemaDialect::OpenAiStrict).expect("strict mode takes the schema")
}

/// The (path, change, lost) triples of `adapted`, for exact asserts.
fn changes(adapted: &AdaptedSchema) -> Vec<(String, String, Option<String>)> {
    adapted
        .changes
        .iter()
        .map(|SchemaChange { path, change, lost }| (path.clone(), change.clone(), lost.clone()))
        .collect()
}

/// The paths of the lossy changes of `adapted`.
fn lossy_paths(adapted: &AdaptedSchema) -> Vec<String> {
    adapted
        .lossy_changes()
        .map(|change| change.path.clone())
        .collect()
}

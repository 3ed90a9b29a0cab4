//! PLACEHOLDER replaced by the schema branch at merge (identity transform with the agreed API).
#![allow(missing_docs, clippy::missing_errors_doc)]

use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemaDialect {
    OpenAiStrict,
    OpenAi,
    Anthropic,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SchemaChange {
    pub path: String,
    pub change: String,
    pub lost: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AdaptedSchema {
    pub schema: Value,
    pub changes: Vec<SchemaChange>,
}

impl AdaptedSchema {
    #[must_use]
    pub fn is_lossless(&self) -> bool {
        self.changes.iter().all(|change| change.lost.is_none())
    }
    pub fn restore_arguments(&self, _arguments: &mut Value) {}
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at `{path}`: {reason}")]
pub struct SchemaIncompatible {
    pub path: String,
    pub reason: String,
    pub help: String,
}

pub fn adapt_schema(
    schema: &Value,
    _dialect: SchemaDialect,
) -> Result<AdaptedSchema, SchemaIncompatible> {
    Ok(AdaptedSchema {
        schema: schema.clone(),
        changes: Vec::new(),
    })
}

pub fn check_tool_name(_name: &str) -> Result<(), SchemaIncompatible> {
    Ok(())
}

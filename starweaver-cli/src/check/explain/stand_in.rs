//! Stand-in code tools: a catalog file lists each tool's definition, which is all the loader
//! needs to assemble an agent for explanation. A stand-in is never called; if something did
//! call it, it refuses.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};
use starweaver_core::model::ToolDefinition;
use starweaver_core::tools::{
    DynTool, Tool, ToolContext, ToolError, ToolFacts, ToolResult, TAGS_METADATA_KEY,
    TOOL_DEPENDENCIES_METADATA_KEY, TOOL_KIND_METADATA_KEY,
};
use starweaver_core::BoxFuture;

use starweaver_config::validate::{catalog_names, CatalogFileError};

/// A tool known only by its catalog definition.
#[derive(Debug)]
pub(super) struct StandIn {
    definition: ToolDefinition,
    facts: ToolFacts,
}

impl Tool for StandIn {
    fn name(&self) -> &str {
        &self.definition.name
    }

    fn definition(&self) -> ToolDefinition {
        self.definition.clone()
    }

    fn call<'a>(
        &'a self,
        _ctx: ToolContext,
        _arguments: &'a Value,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        let name = self.definition.name.clone();
        Box::pin(async move {
            Err(ToolError::execution(format!(
                "`{name}` is a stand-in built from a tool catalog for `starweaver check --explain`; it cannot run"
            )))
        })
    }

    fn facts(&self) -> ToolFacts {
        self.facts.clone()
    }
}

/// A stand-in for a code tool no catalog describes, so a manifest can be explained without
/// one (its tools are then shown as unverified).
pub(super) fn unverified(name: &str) -> DynTool {
    Arc::new(StandIn {
        definition: ToolDefinition::new(name, None, json!({"type": "object"})),
        facts: ToolFacts::default(),
    })
}

/// Stand-ins for every tool of a catalog file's JSON (`starweaver::catalog::to_json()`), by
/// name. The names are read by the checker's own reader, so a file the check accepted is
/// accepted here; the other fields are optional and read leniently.
///
/// # Errors
/// [`CatalogFileError`] when the bytes are not a catalog.
pub(super) fn stand_ins(json: &[u8]) -> Result<BTreeMap<String, DynTool>, CatalogFileError> {
    let names = catalog_names(json)?;
    let value: Value =
        serde_json::from_slice(json).map_err(|error| CatalogFileError::Json(error.to_string()))?;
    let entries = value
        .get("tools")
        .and_then(Value::as_array)
        .ok_or(CatalogFileError::NoTools)?;
    let mut tools = BTreeMap::new();
    for (name, entry) in names.into_iter().zip(entries) {
        if tools.contains_key(&name) {
            continue;
        }
        let tool: DynTool = Arc::new(stand_in(name.clone(), entry));
        tools.insert(name, tool);
    }
    Ok(tools)
}

fn stand_in(name: String, entry: &Value) -> StandIn {
    let text = |key: &str| entry.get(key).and_then(Value::as_str).map(str::to_string);
    let flag = |key: &str| entry.get(key).and_then(Value::as_bool);
    let parameters = entry
        .get("parameters")
        .filter(|value| value.is_object())
        .cloned()
        .unwrap_or_else(|| json!({"type": "object"}));
    let mut definition = ToolDefinition::new(name, text("description"), parameters);
    definition.return_schema = entry.get("return_schema").filter(|v| !v.is_null()).cloned();
    definition.strict = flag("strict");
    definition.sequential = flag("sequential");
    for (field, key) in [
        ("tags", TAGS_METADATA_KEY),
        ("kind", TOOL_KIND_METADATA_KEY),
        ("dependencies", TOOL_DEPENDENCIES_METADATA_KEY),
    ] {
        if let Some(value) = entry.get(field).filter(|value| !value.is_null()) {
            definition.metadata.insert(key.to_string(), value.clone());
        }
    }
    let mut facts = ToolFacts::from_metadata(&definition.metadata);
    facts.timeout_ms = entry.get("timeout_ms").and_then(Value::as_u64);
    facts.max_retries = entry
        .get("max_retries")
        .and_then(Value::as_u64)
        .and_then(|retries| u32::try_from(retries).ok());
    StandIn { definition, facts }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn catalog_definitions_become_tools_that_refuse_to_run() {
        let json = br#"{"version":1,"tools":[
            {"name":"deploy","description":"Ships it","parameters":{"type":"object","properties":{"env":{"type":"string"}}},
             "tags":["ops"],"kind":"function","timeout_ms":500,"max_retries":2,"sequential":true},
            {"name":"bare"}]}"#;
        let tools = stand_ins(json).unwrap();
        let deploy = &tools["deploy"];
        let definition = deploy.definition();
        assert_eq!(definition.description.as_deref(), Some("Ships it"));
        assert_eq!(definition.parameters["properties"]["env"]["type"], "string");
        assert_eq!(definition.metadata[TAGS_METADATA_KEY], json!(["ops"]));
        assert_eq!(definition.sequential, Some(true));
        assert_eq!(deploy.facts().timeout_ms, Some(500));
        assert_eq!(deploy.facts().max_retries, Some(2));
        assert_eq!(
            tools["bare"].definition().parameters,
            json!({"type": "object"})
        );
        assert!(stand_ins(b"[]").is_err());
        assert!(stand_ins(br#"{"tools":[{"nom":"x"}]}"#).is_err());
    }
}

//! The tools a served manifest offers, as MCP describes tools: the registry's definitions
//! with their own names and JSON Schema, the return schema as `outputSchema` where MCP can
//! carry it, and the facts as annotations. Deferred tools are left out: their calls wait for
//! an outside worker, which an MCP call cannot wait for.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
use serde_json::Value;
use starweaver_core::context::AgentContext;
use starweaver_core::model::ToolDefinition;
use starweaver_core::tools::{ToolFacts, ToolRegistry};

use super::annotations::annotations;

/// What the registry offers right now, split into what is served and what is not.
#[derive(Clone, Debug, Default)]
pub(crate) struct Listing {
    /// The served tools, in the registry's order.
    pub(crate) tools: Vec<Tool>,
    /// Tools left out because they are deferred.
    pub(crate) deferred: Vec<String>,
}

/// The tools `registry` offers in `context` (what a model's first request would carry, so
/// tools behind a tool search appear once it loads them), minus the deferred ones.
pub(crate) fn list(registry: &ToolRegistry, context: &AgentContext) -> Listing {
    let mut listing = Listing::default();
    for definition in registry.definitions_for_context(context) {
        let facts = registry.facts(&definition.name);
        if facts.is_some_and(ToolFacts::is_deferred) {
            listing.deferred.push(definition.name);
            continue;
        }
        listing.tools.push(describe(&definition, facts));
    }
    listing
}

/// One definition as an MCP tool.
pub(crate) fn describe(definition: &ToolDefinition, facts: Option<&ToolFacts>) -> Tool {
    let input = match &definition.parameters {
        Value::Object(schema) => schema.clone(),
        // A definition always has an object schema; anything else is served as "any object"
        // rather than a schema MCP clients would reject.
        _ => object_schema(),
    };
    let mut tool = Tool::new_with_raw(
        definition.name.clone(),
        definition.description.clone().map(Into::into),
        Arc::new(input),
    );
    tool.output_schema = output_schema(definition).map(Arc::new);
    tool.annotations = facts.and_then(annotations);
    tool
}

/// The return schema as MCP's `outputSchema`, when there is one MCP accepts: its root must
/// describe an object (a tool returning a list or a number keeps its plain text result).
pub(crate) fn output_schema(definition: &ToolDefinition) -> Option<JsonObject> {
    match definition.return_schema.as_ref()? {
        Value::Object(schema) if schema.get("type").and_then(Value::as_str) == Some("object") => {
            Some(schema.clone())
        }
        _ => None,
    }
}

fn object_schema() -> JsonObject {
    let mut schema = JsonObject::new();
    schema.insert("type".to_string(), Value::from("object"));
    schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_object_return_schema_is_the_output_schema_and_others_are_not() {
        let mut definition = ToolDefinition::new("t", None, json!({"type": "object"}));
        definition.return_schema = Some(json!({"type": "object", "properties": {}}));
        assert!(describe(&definition, None).output_schema.is_some());
        definition.return_schema = Some(json!({"type": "array"}));
        assert!(describe(&definition, None).output_schema.is_none());
        definition.return_schema = None;
        assert!(describe(&definition, None).output_schema.is_none());
    }

    #[test]
    fn names_descriptions_and_schemas_are_kept() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
        let definition = ToolDefinition::new("get-sum", Some("Adds.".into()), schema.clone());
        let tool = describe(&definition, None);
        assert_eq!(tool.name, "get-sum");
        assert_eq!(tool.description.as_deref(), Some("Adds."));
        assert_eq!(Value::Object((*tool.input_schema).clone()), schema);
        let odd = ToolDefinition::new("x", None, json!(true));
        assert_eq!(
            describe(&odd, None).input_schema.get("type"),
            Some(&json!("object"))
        );
    }
}

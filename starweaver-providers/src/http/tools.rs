//! Tool definitions as one provider takes them: each schema adapted once (and again only when
//! the definition changes), tools the provider cannot take left out with the reason, and the
//! arguments of adapted tools restored before they are dispatched.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};

use starweaver_core::bounds::MAX_JSON_DEPTH;
use starweaver_core::model::{
    check_tool_name, AdaptedSchema, ModelResponse, RequestNotice, RequestNoticeKind, ResponsePart,
    SchemaIncompatible, ToolCallArguments, ToolDefinition,
};

/// A tool as it goes on the wire.
#[derive(Debug)]
pub struct WireTool {
    /// The schema to send, serialized once: every request copies these bytes instead of
    /// writing the schema again.
    pub schema: Box<serde_json::value::RawValue>,
    /// Whether to ask for strict argument decoding (OpenAI).
    pub strict: bool,
    /// The adaptation, kept to restore arguments.
    adapted: AdaptedSchema,
}

/// What becomes of one definition.
#[derive(Debug)]
pub struct Planned {
    /// The tool to send, or `None` when it is left out.
    pub wire: Option<WireTool>,
    /// What to report about it.
    pub notice: Option<RequestNotice>,
}

/// A definition and its plan, as request builders borrow them.
pub type PlannedTool<'a> = (&'a ToolDefinition, Arc<Planned>);

/// How a provider adapts one definition: the adapted schema and whether it is sent strict.
pub(crate) type Adapt = fn(&ToolDefinition) -> Result<(AdaptedSchema, bool), SchemaIncompatible>;

/// The per-model cache of planned tools.
#[derive(Debug)]
pub(crate) struct ToolAdapter {
    adapt: Adapt,
    provider: &'static str,
    cache: Mutex<HashMap<String, (ToolDefinition, Arc<Planned>)>>,
}

/// Most definitions kept; a run with more distinct tools recomputes the rest.
const MAX_CACHED: usize = 4096;

impl ToolAdapter {
    pub(crate) fn new(provider: &'static str, adapt: Adapt) -> Self {
        Self {
            adapt,
            provider,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The plan for `definition`, from the cache when the definition is unchanged.
    pub(crate) fn plan(&self, definition: &ToolDefinition) -> Arc<Planned> {
        if let Ok(cache) = self.cache.lock() {
            if let Some((seen, planned)) = cache.get(&definition.name) {
                if same_definition(seen, definition) {
                    return Arc::clone(planned);
                }
            }
        }
        let planned = Arc::new(self.compute(definition));
        if let Ok(mut cache) = self.cache.lock() {
            if cache.len() >= MAX_CACHED {
                cache.clear();
            }
            cache.insert(
                definition.name.clone(),
                (definition.clone(), Arc::clone(&planned)),
            );
        }
        planned
    }

    fn compute(&self, definition: &ToolDefinition) -> Planned {
        let adapted = check_tool_name(&definition.name).and_then(|()| (self.adapt)(definition));
        let serialized = adapted.and_then(|(adapted, strict)| {
            serde_json::value::to_raw_value(&adapted.schema)
                .map(|schema| (adapted, strict, schema))
                .map_err(|error| SchemaIncompatible {
                    path: String::new(),
                    reason: format!("the schema cannot be written as JSON: {error}"),
                    help: "give the tool a schema of plain JSON values".to_string(),
                })
        });
        match serialized {
            Ok((adapted, strict, schema)) => {
                let notice = (!adapted.changes.is_empty()).then(|| RequestNotice {
                    kind: RequestNoticeKind::ToolSchemaAdapted,
                    subject: definition.name.clone(),
                    reason: format!(
                        "the argument schema was rewritten for {}{} ({} change{}){}",
                        self.provider,
                        if strict { " strict mode" } else { "" },
                        adapted.changes.len(),
                        if adapted.changes.len() == 1 { "" } else { "s" },
                        if adapted.is_lossless() {
                            ", without losing meaning"
                        } else {
                            "; some constraints are no longer enforced by the provider (the tool still validates its arguments)"
                        }
                    ),
                    changes: adapted.changes.clone(),
                });
                Planned {
                    wire: Some(WireTool {
                        schema,
                        strict,
                        adapted,
                    }),
                    notice,
                }
            }
            Err(incompatible) => Planned {
                wire: None,
                notice: Some(RequestNotice::tool_left_out(
                    definition.name.clone(),
                    format!(
                        "{} cannot take this tool: {incompatible}; {}",
                        self.provider, incompatible.help
                    ),
                )),
            },
        }
    }

    /// The plans of these definitions, in order (every request asks: a cached plan costs one
    /// comparison of the definition with the one it was made for).
    pub(crate) fn plan_all<'a>(
        &self,
        definitions: &'a [Arc<ToolDefinition>],
    ) -> Vec<PlannedTool<'a>> {
        definitions
            .iter()
            .map(|definition| (&**definition, self.plan(definition)))
            .collect()
    }
}

/// The plans one request was built with, by tool name. The answer's calls are restored with
/// these, never with what the shared cache holds by the time the answer arrives (another
/// request may have planned a same-named tool with another schema, or the cache may have been
/// cleared).
#[derive(Clone, Debug, Default)]
pub(crate) struct Plans(Arc<HashMap<String, Arc<Planned>>>);

impl Plans {
    /// The plans of a request's tools.
    pub(crate) fn of(planned: &[PlannedTool<'_>]) -> Self {
        Self(Arc::new(
            planned
                .iter()
                .map(|(definition, plan)| (definition.name.clone(), Arc::clone(plan)))
                .collect(),
        ))
    }

    /// Undoes the adaptation on the arguments of every call in `response` (strict mode's
    /// nulls for absent optional fields). Arguments that do not parse are left as they are:
    /// dispatch reports them.
    pub(crate) fn restore(&self, response: &mut ModelResponse) {
        for part in &mut response.parts {
            let ResponsePart::ToolCall(call) = part else {
                continue;
            };
            let Some(wire) = self.0.get(&call.name).and_then(|plan| plan.wire.as_ref()) else {
                continue;
            };
            if wire.adapted.changes.is_empty() {
                continue;
            }
            if let Ok(mut value) = call.arguments.to_json() {
                wire.adapted.restore_arguments(&mut value);
                call.arguments = ToolCallArguments::Json(value);
            }
        }
    }
}

/// Whether `seen` and `definition` are equal, as `==` says, without hashing in the common case:
/// a definition rebuilt from the same source keeps its JSON keys in order, so its schema is
/// compared entry by entry, and only objects whose keys are in another order are compared as
/// maps (`==`, a hash lookup per key). Runs on every request for every tool.
fn same_definition(seen: &ToolDefinition, definition: &ToolDefinition) -> bool {
    // Every field, named: a field added to definitions fails to compile here until compared.
    let ToolDefinition {
        name,
        description,
        parameters,
        return_schema,
        strict,
        sequential,
        metadata,
    } = seen;
    *name == definition.name
        && *description == definition.description
        && *strict == definition.strict
        && *sequential == definition.sequential
        && same_json(parameters, &definition.parameters, 0)
        && match (return_schema, &definition.return_schema) {
            (Some(left), Some(right)) => same_json(left, right, 0),
            (None, None) => true,
            _ => false,
        }
        && same_map(metadata, &definition.metadata, 0)
}

/// `left == right`, walking objects in order (see [`same_definition`]); past
/// [`MAX_JSON_DEPTH`] it leaves the rest to `==`.
fn same_json(left: &Value, right: &Value, depth: usize) -> bool {
    match (left, right) {
        (Value::Object(left), Value::Object(right)) => same_map(left, right, depth),
        (Value::Array(left), Value::Array(right)) if depth < MAX_JSON_DEPTH => {
            left.len() == right.len()
                && left
                    .iter()
                    .zip(right)
                    .all(|(left, right)| same_json(left, right, depth + 1))
        }
        _ => left == right,
    }
}

/// Two objects compared entry by entry while their keys are in the same order, as maps when
/// they are not.
fn same_map(left: &Map<String, Value>, right: &Map<String, Value>, depth: usize) -> bool {
    if left.len() != right.len() {
        return false;
    }
    if depth >= MAX_JSON_DEPTH {
        return left == right;
    }
    for ((left_key, left_value), (right_key, right_value)) in left.iter().zip(right) {
        if left_key != right_key {
            return left == right;
        }
        if !same_json(left_value, right_value, depth + 1) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn definition(parameters: Value) -> ToolDefinition {
        ToolDefinition::new("lookup", Some("Find a record.".into()), parameters)
    }

    // Regression: a call was restored with whatever plan the shared cache held when its answer
    // arrived, so a request planned meanwhile for a same-named tool with another schema (or a
    // cleared cache) decided which nulls were removed.
    #[test]
    fn calls_are_restored_with_the_plans_their_request_was_built_with() {
        let adapter = ToolAdapter::new("Test", |definition| {
            Ok((
                starweaver_core::model::adapt_schema(
                    &definition.parameters,
                    starweaver_core::model::SchemaDialect::OpenAiStrict,
                )?,
                true,
            ))
        });
        let optional =
            definition(json!({"type": "object", "properties": {"limit": {"type": "integer"}}}));
        let nullable = definition(
            json!({"type": "object", "properties": {"limit": {"type": ["integer", "null"]}}, "required": ["limit"]}),
        );
        let first = [Arc::new(optional)];
        let plans = Plans::of(&adapter.plan_all(&first));
        // Another request plans the same name with a schema whose null is meaningful.
        let second = [Arc::new(nullable)];
        let _ = adapter.plan_all(&second);
        let answer = || {
            starweaver_core::model::ModelResponse::tool_calls([
                starweaver_core::model::ToolCallPart::new("c1", "lookup", "{\"limit\": null}"),
            ])
        };
        let mut response = answer();
        plans.restore(&mut response);
        assert_eq!(
            response.calls().next().map(|call| call.arguments.clone()),
            Some(ToolCallArguments::Json(json!({})))
        );
        let mut response = answer();
        Plans::of(&adapter.plan_all(&second)).restore(&mut response);
        assert_eq!(
            response.calls().next().map(|call| call.arguments.to_json()),
            Some(Ok(json!({"limit": null})))
        );
    }

    #[test]
    fn definitions_compare_as_equality_does() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]});
        let reordered = json!({"required": ["a"], "type": "object", "properties": {"b": {"type": "integer"}, "a": {"type": "string"}}});
        let changed = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "number"}}, "required": ["a"]});
        let cases = [
            (definition(schema.clone()), definition(schema.clone())),
            (definition(schema.clone()), definition(reordered)),
            (definition(schema.clone()), definition(changed)),
            (
                definition(schema.clone()),
                definition(json!({"type": "object"})),
            ),
            (definition(json!([1, 2])), definition(json!([1, 3]))),
            (definition(schema.clone()), {
                let mut other = definition(schema.clone());
                other.strict = Some(true);
                other
            }),
            (definition(schema.clone()), {
                let mut other = definition(schema.clone());
                other.metadata.insert("tag".into(), json!("x"));
                other
            }),
        ];
        for (left, right) in &cases {
            assert_eq!(
                same_definition(left, right),
                left == right,
                "{left:?} vs {right:?}"
            );
        }
    }

    #[test]
    fn deep_schemas_compare_past_the_walk_limit() {
        let mut deep = json!({"type": "string"});
        for _ in 0..(MAX_JSON_DEPTH + 10) {
            deep = json!({"items": deep});
        }
        assert!(same_definition(
            &definition(deep.clone()),
            &definition(deep.clone())
        ));
        let mut other = json!({"type": "integer"});
        for _ in 0..(MAX_JSON_DEPTH + 10) {
            other = json!({"items": other});
        }
        assert!(!same_definition(&definition(deep), &definition(other)));
    }

    #[test]
    fn a_changed_definition_is_planned_again() {
        let adapter = ToolAdapter::new("Test", |definition| {
            Ok((
                starweaver_core::model::adapt_schema(
                    &definition.parameters,
                    starweaver_core::model::SchemaDialect::OpenAi,
                )?,
                false,
            ))
        });
        let first = adapter.plan(&definition(json!({"type": "object"})));
        let again = adapter.plan(&definition(json!({"type": "object"})));
        assert!(Arc::ptr_eq(&first, &again));
        let changed = adapter.plan(&definition(json!({"type": "object", "properties": {}})));
        assert!(!Arc::ptr_eq(&first, &changed));
        let schema = changed
            .wire
            .as_ref()
            .and_then(|wire| serde_json::from_str::<Value>(wire.schema.get()).ok());
        assert_eq!(schema, Some(json!({"type": "object", "properties": {}})));
    }
}

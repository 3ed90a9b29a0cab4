//! Tool definitions as one provider takes them: each schema adapted once (and again only when
//! the definition changes), tools the provider cannot take left out with the reason, and the
//! arguments of adapted tools restored before they are dispatched.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::model::{
    check_tool_name, AdaptedSchema, RequestNotice, RequestNoticeKind, SchemaIncompatible,
    ToolCallArguments, ToolDefinition,
};

/// A tool as it goes on the wire.
#[derive(Debug)]
pub(crate) struct WireTool {
    /// The schema to send.
    pub schema: Value,
    /// Whether to ask for strict argument decoding (OpenAI).
    pub strict: bool,
    /// The adaptation, kept to restore arguments.
    adapted: AdaptedSchema,
}

/// What becomes of one definition.
#[derive(Debug)]
pub(crate) struct Planned {
    /// The tool to send, or `None` when it is left out.
    pub wire: Option<WireTool>,
    /// What to report about it.
    pub notice: Option<RequestNotice>,
}

/// A definition and its plan, as request builders borrow them.
pub(crate) type PlannedTool<'a> = (&'a ToolDefinition, Arc<Planned>);

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
                if seen == definition {
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
        match adapted {
            Ok((adapted, strict)) => {
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
                        schema: adapted.schema.clone(),
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

    /// The plans of these definitions, in order.
    pub(crate) fn plan_all<'a>(&self, definitions: &'a [ToolDefinition]) -> Vec<PlannedTool<'a>> {
        definitions
            .iter()
            .map(|definition| (definition, self.plan(definition)))
            .collect()
    }

    /// The notices for these definitions.
    pub(crate) fn notices(&self, definitions: &[ToolDefinition]) -> Vec<RequestNotice> {
        definitions
            .iter()
            .filter_map(|definition| self.plan(definition).notice.clone())
            .collect()
    }

    /// Undoes the adaptation on a call's arguments (strict mode's nulls for absent optional
    /// fields). Arguments that do not parse are left as they are: dispatch reports them.
    pub(crate) fn restore(&self, tool: &str, arguments: &mut ToolCallArguments) {
        let planned = match self.cache.lock() {
            Ok(cache) => cache.get(tool).map(|(_, planned)| Arc::clone(planned)),
            Err(_) => None,
        };
        let Some(wire) = planned.as_ref().and_then(|planned| planned.wire.as_ref()) else {
            return;
        };
        if wire.adapted.changes.is_empty() {
            return;
        }
        if let Ok(mut value) = arguments.to_json() {
            wire.adapted.restore_arguments(&mut value);
            *arguments = ToolCallArguments::Json(value);
        }
    }
}

//! Looking tools up: link-time entries and run-time registrations, with
//! conflicts reported.

use std::collections::BTreeMap;
use std::panic::Location;
use std::sync::{PoisonError, RwLock};

use serde::Serialize;
use serde_json::{json, Value};

use super::CatalogEntry;
use crate::model::ToolDefinition;
use crate::tools::{DynTool, ToolDependencyRequirements};

/// Version of the JSON that [`to_json`] writes (and `starweaver check
/// --catalog` reads).
pub const CATALOG_FORMAT_VERSION: u32 = 1;

/// Tools registered at run time, with where [`register`] was called.
static REGISTERED: RwLock<Vec<(DynTool, String)>> = RwLock::new(Vec::new());

/// Two or more tools registered under one name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CatalogConflict {
    /// The name.
    pub name: String,
    /// `file:line` of every registration, sorted.
    pub sources: Vec<String>,
}

/// Adds a tool built by hand (the call site is its source location).
/// Registering a name twice, or one a `#[starweaver::tool]` already has,
/// is a conflict (see [`conflicts`]), never an overwrite.
#[track_caller]
pub fn register(tool: DynTool) {
    let caller = Location::caller();
    let source = format!("{}:{}", caller.file(), caller.line());
    REGISTERED
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .push((tool, source));
}

/// One name's registrations: how to build each and where it came from.
enum Source {
    Linked(&'static CatalogEntry),
    Registered(DynTool),
}

fn by_name() -> BTreeMap<String, Vec<(Source, String)>> {
    let mut tools: BTreeMap<String, Vec<(Source, String)>> = BTreeMap::new();
    for entry in inventory::iter::<CatalogEntry> {
        tools
            .entry(entry.name().to_string())
            .or_default()
            .push((Source::Linked(entry), entry.source()));
    }
    for (tool, source) in REGISTERED
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
    {
        tools
            .entry(tool.name().to_string())
            .or_default()
            .push((Source::Registered(tool.clone()), source.clone()));
    }
    tools
}

/// Every registered name, sorted (conflicting names included, once).
#[must_use]
pub fn names() -> Vec<String> {
    by_name().into_keys().collect()
}

/// The tool for `name`: freshly built for a `#[starweaver::tool]`, the
/// registered one for [`register`]; `None` for an unknown name or a
/// conflict.
#[must_use]
pub fn get(name: &str) -> Option<DynTool> {
    let mut tools = by_name();
    let mut found = tools.remove(name)?;
    if found.len() != 1 {
        return None;
    }
    found.pop().map(|(source, _)| match source {
        Source::Linked(entry) => entry.build(),
        Source::Registered(tool) => tool,
    })
}

/// Names registered more than once, with every source location.
#[must_use]
pub fn conflicts() -> Vec<CatalogConflict> {
    by_name()
        .into_iter()
        .filter(|(_, found)| found.len() > 1)
        .map(|(name, found)| {
            let mut sources: Vec<String> = found.into_iter().map(|(_, source)| source).collect();
            sources.sort();
            CatalogConflict { name, sources }
        })
        .collect()
}

/// The definitions of every tool without a conflict, sorted by name.
#[must_use]
pub fn definitions() -> Vec<ToolDefinition> {
    by_name()
        .into_values()
        .filter_map(|mut found| {
            (found.len() == 1)
                .then(|| found.pop())
                .flatten()
                .map(|(source, _)| built(source).definition())
        })
        .collect()
}

fn built(source: Source) -> DynTool {
    match source {
        Source::Linked(entry) => entry.build(),
        Source::Registered(tool) => tool,
    }
}

/// The catalog as JSON, the file `starweaver check --catalog` reads:
/// `{"version", "tools": [{name, description, parameters, return_schema,
/// tags, kind, dependencies, timeout_ms, max_retries, strict, sequential,
/// source}], "conflicts": [{name, sources}]}`.
#[must_use]
pub fn to_json() -> Value {
    let mut tools = Vec::new();
    for (_, mut found) in by_name() {
        if found.len() != 1 {
            continue;
        }
        let Some((source, location)) = found.pop() else {
            continue;
        };
        let tool = match source {
            Source::Linked(entry) => entry.build(),
            Source::Registered(tool) => tool,
        };
        let definition = tool.definition();
        let facts = tool.facts();
        tools.push(json!({
            "name": definition.name,
            "description": definition.description,
            "parameters": definition.parameters,
            "return_schema": definition.return_schema,
            "tags": facts.tags,
            "kind": facts.kind.unwrap_or_default().as_str(),
            "dependencies": facts.dependencies.as_ref().map(ToolDependencyRequirements::to_metadata_value),
            "timeout_ms": facts.timeout_ms,
            "max_retries": facts.max_retries,
            "strict": definition.strict,
            "sequential": definition.sequential,
            "source": location,
        }));
    }
    json!({
        "version": CATALOG_FORMAT_VERSION,
        "tools": tools,
        "conflicts": conflicts(),
    })
}

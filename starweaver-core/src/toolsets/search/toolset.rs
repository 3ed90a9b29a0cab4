//! The tool search toolset: its index, preloads, reports and refreshes.
//! The model-facing `tool_search` tool is in `tool.rs`; what both use is
//! in `shared.rs`.

use std::collections::BTreeSet;
use std::sync::{Arc, PoisonError, RwLock};

use serde_json::Value;

use super::shared::{is_usable, loaded_event, Shared, TOOL_SEARCH_NAME};
use super::tool::{search_tool, validate_query, MAX_QUERY_CHARS};
use super::{SearchIndex, ToolSearchRefreshReport, ToolSearchReport};
use crate::context::{AgentContext, ContextEventKind};
use crate::tools::wrapped::WrappedTool;
use crate::tools::{DynTool, ToolError, ToolInstruction};
use crate::tools::{DynToolset, IntoDynToolset, Toolset};

/// Most tools one search loads unless `with_max_results` says otherwise.
const DEFAULT_MAX_RESULTS: usize = 8;

/// Hides toolsets behind `tool_search`; matched tools become ordinary
/// direct tools from the next model turn on.
pub struct ToolSearchToolset {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for ToolSearchToolset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSearchToolset")
            .field("name", &self.shared.name)
            .field("indexed_tools", &self.shared.index().tools.len())
            .finish()
    }
}

/// A search toolset named `tool_search` over these toolsets.
pub fn tool_search_toolset<T: IntoDynToolset>(toolsets: Vec<T>) -> Arc<ToolSearchToolset> {
    Arc::new(ToolSearchToolset::new(
        TOOL_SEARCH_NAME,
        toolsets
            .iter()
            .map(IntoDynToolset::to_dyn_toolset)
            .collect(),
    ))
}

impl ToolSearchToolset {
    /// Indexes the toolsets.
    pub fn new(name: impl Into<String>, toolsets: Vec<DynToolset>) -> Self {
        let index = SearchIndex::build(&toolsets);
        Self {
            shared: Arc::new(Shared {
                name: name.into(),
                toolsets,
                index: RwLock::new(Arc::new(index)),
                max_results: DEFAULT_MAX_RESULTS,
            }),
        }
    }

    /// Most tools one search may load (default 8).
    #[must_use]
    pub fn with_max_results(self, max_results: usize) -> Self {
        let shared = Shared {
            name: self.shared.name.clone(),
            toolsets: self.shared.toolsets.clone(),
            index: RwLock::new(self.shared.index()),
            max_results: max_results.max(1),
        };
        Self {
            shared: Arc::new(shared),
        }
    }

    /// Searches without loading: the names of the best available matches.
    ///
    /// # Errors
    /// A model-retry error for an empty or over-long query.
    pub fn search(
        &self,
        context: &AgentContext,
        query: &str,
        limit: Option<usize>,
    ) -> Result<Vec<String>, ToolError> {
        validate_query(query)?;
        let index = self.shared.index();
        let limit = limit
            .unwrap_or(self.shared.max_results)
            .clamp(1, self.shared.max_results);
        Ok(index.search(query, limit, |tool| {
            is_usable(tool, context).then(|| tool.name.clone())
        }))
    }

    /// Loads a namespace as a host decision, recording the same state and
    /// publishing the same `tool_search_loaded` event as a search.
    ///
    /// # Errors
    /// [`ToolError::UserError`] when the namespace is unknown.
    pub fn preload_namespace(
        &self,
        context: &mut AgentContext,
        namespace: &str,
    ) -> Result<Vec<String>, ToolError> {
        let index = self.shared.index();
        let positions = index.namespaces.get(namespace).ok_or_else(|| {
            ToolError::user_error(format!(
                "unknown tool-search namespace `{namespace}`; known namespaces: {}",
                index
                    .namespaces
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
        let tools: Vec<String> = positions
            .iter()
            .map(|&position| index.tools[position].name.clone())
            .collect();
        let namespaces = vec![namespace.to_string()];
        context.record_tool_search_loaded(Vec::<String>::new(), namespaces.clone());
        context.emit(
            ContextEventKind::ToolSearchLoaded,
            loaded_event(&self.shared.name, "preload", None, &tools, &namespaces),
        );
        Ok(tools)
    }

    /// Inventory, availability and loaded state for this context.
    #[must_use]
    pub fn initialization_report(&self, context: &AgentContext) -> ToolSearchReport {
        let index = self.shared.index();
        let available = index
            .tools
            .iter()
            .filter(|tool| is_usable(tool, context))
            .count();
        let state = &context.tool_search;
        ToolSearchReport {
            toolset: self.shared.name.clone(),
            indexed_tools: index.tools.len(),
            namespaces: index.namespaces.keys().cloned().collect(),
            available_tools: available,
            unavailable_tools: index.tools.len() - available,
            loaded_tools: index
                .tools
                .iter()
                .filter(|tool| state.loaded_tools.contains(&tool.name))
                .map(|tool| tool.name.clone())
                .collect(),
            loaded_namespaces: index
                .namespaces
                .keys()
                .filter(|namespace| state.loaded_namespaces.contains(*namespace))
                .cloned()
                .collect(),
            max_results: self.shared.max_results,
            max_query_chars: MAX_QUERY_CHARS,
        }
    }

    /// The same report, named for use after a refresh.
    #[must_use]
    pub fn refresh_report(&self, context: &AgentContext) -> ToolSearchReport {
        self.initialization_report(context)
    }

    /// Publishes the initialization report as `tool_search_initialized`.
    pub fn publish_initialization_report(&self, context: &mut AgentContext) -> ToolSearchReport {
        let report = self.initialization_report(context);
        context.emit(ContextEventKind::ToolSearchInitialized, to_json(&report));
        report
    }

    /// Publishes the refresh report as `tool_search_refreshed`.
    pub fn publish_refresh_report(&self, context: &mut AgentContext) -> ToolSearchReport {
        let report = self.refresh_report(context);
        context.emit(ContextEventKind::ToolSearchRefreshed, to_json(&report));
        report
    }

    /// Re-reads the inventory and prunes loaded tools and namespaces of
    /// this toolset that are stale (gone from the inventory) or no longer
    /// available; publishes `tool_search_refreshed`.
    pub fn refresh_loaded_state(&self, context: &mut AgentContext) -> ToolSearchRefreshReport {
        let report = self.refresh_without_event(context);
        context.emit(ContextEventKind::ToolSearchRefreshed, to_json(&report));
        report
    }

    pub(crate) fn refresh_without_event(
        &self,
        context: &mut AgentContext,
    ) -> ToolSearchRefreshReport {
        let old = self.shared.index();
        let new = Arc::new(SearchIndex::build(&self.shared.toolsets));
        let removed_tools: Vec<String> = context
            .tool_search
            .loaded_tools
            .iter()
            .filter(|name| old.by_name.contains_key(*name) || new.by_name.contains_key(*name))
            .filter(|name| match new.by_name.get(*name) {
                None => true,
                Some(&position) => !is_usable(&new.tools[position], context),
            })
            .cloned()
            .collect();
        let removed_namespaces: Vec<String> = context
            .tool_search
            .loaded_namespaces
            .iter()
            .filter(|namespace| {
                old.namespaces.contains_key(*namespace) && !new.namespaces.contains_key(*namespace)
            })
            .cloned()
            .collect();
        let state = &mut context.tool_search;
        for name in &removed_tools {
            state.loaded_tools.remove(name);
        }
        for namespace in &removed_namespaces {
            state.loaded_namespaces.remove(namespace);
        }
        *self
            .shared
            .index
            .write()
            .unwrap_or_else(PoisonError::into_inner) = new.clone();
        ToolSearchRefreshReport {
            toolset: self.shared.name.clone(),
            removed_tools,
            removed_namespaces,
            loaded_tools: owned(&new, &state.loaded_tools, |index, name| {
                index.by_name.contains_key(name)
            }),
            loaded_namespaces: owned(&new, &state.loaded_namespaces, |index, name| {
                index.namespaces.contains_key(name)
            }),
            indexed_tools: new.tools.len(),
            ..ToolSearchRefreshReport::default()
        }
    }

    /// Clears every loaded tool and namespace of this toolset; publishes
    /// `tool_search_invalidated`.
    pub fn invalidate_loaded_state(&self, context: &mut AgentContext) -> ToolSearchRefreshReport {
        let index = self.shared.index();
        let state = &mut context.tool_search;
        let removed_tools = owned(&index, &state.loaded_tools, |index, name| {
            index.by_name.contains_key(name)
        });
        let removed_namespaces = owned(&index, &state.loaded_namespaces, |index, name| {
            index.namespaces.contains_key(name)
        });
        for name in &removed_tools {
            state.loaded_tools.remove(name);
        }
        for namespace in &removed_namespaces {
            state.loaded_namespaces.remove(namespace);
        }
        let report = ToolSearchRefreshReport {
            toolset: self.shared.name.clone(),
            removed_tools,
            removed_namespaces,
            indexed_tools: index.tools.len(),
            ..ToolSearchRefreshReport::default()
        };
        context.emit(ContextEventKind::ToolSearchInvalidated, to_json(&report));
        report
    }
}

fn owned(
    index: &SearchIndex,
    names: &BTreeSet<String>,
    belongs: impl Fn(&SearchIndex, &str) -> bool,
) -> Vec<String> {
    names
        .iter()
        .filter(|name| belongs(index, name))
        .cloned()
        .collect()
}

pub(super) fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

impl Toolset for ToolSearchToolset {
    fn name(&self) -> &str {
        &self.shared.name
    }

    fn wrapped_toolsets(&self) -> Vec<DynToolset> {
        self.shared.toolsets.clone()
    }

    fn get_instructions(&self) -> Vec<ToolInstruction> {
        let mut instructions = vec![ToolInstruction::new(
            format!("{}:usage", self.shared.name),
            "More tools are available through tool_search: search with a few keywords; matching tools can be called directly from your next turn.",
        )];
        for toolset in &self.shared.toolsets {
            instructions.extend(toolset.get_instructions());
        }
        instructions
    }

    fn get_tools(&self) -> Vec<DynTool> {
        // Registering (again) reads the current inventory.
        let index = Arc::new(SearchIndex::build(&self.shared.toolsets));
        *self
            .shared
            .index
            .write()
            .unwrap_or_else(PoisonError::into_inner) = index.clone();
        let mut tools = Vec::with_capacity(index.tools.len() + 1);
        tools.push(search_tool(self.shared.clone()));
        for indexed in &index.tools {
            let name = indexed.name.clone();
            let namespace = indexed
                .namespace
                .clone()
                .unwrap_or_else(|| indexed.toolset.clone());
            let loaded = Arc::new(move |context: &AgentContext| {
                context.tool_search.is_loaded(&name, Some(&namespace))
            });
            let wrapped = WrappedTool::new(indexed.tool.clone(), indexed.tool.definition())
                .with_loaded(loaded)
                .with_defaults(indexed.toolset_timeout_ms, indexed.toolset_max_retries)
                .with_toolset(indexed.toolset.clone());
            tools.push(Arc::new(wrapped) as DynTool);
        }
        tools
    }
}

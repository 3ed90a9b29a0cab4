//! An inverted index over tool names, tags, namespaces and descriptions.

use std::collections::{BTreeMap, HashMap};

use crate::tools::DynTool;
use crate::tools::DynToolset;

/// One searchable tool.
pub(crate) struct IndexedTool {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) namespace: Option<String>,
    pub(crate) toolset: String,
    pub(crate) tool: DynTool,
    pub(crate) toolset_timeout_ms: Option<u64>,
    pub(crate) toolset_max_retries: Option<u32>,
}

const NAME_WEIGHT: u8 = 4;
const TAG_WEIGHT: u8 = 3;
const NAMESPACE_WEIGHT: u8 = 2;
const DESCRIPTION_WEIGHT: u8 = 1;

/// Tools of some toolsets with a token index. Built once per inventory;
/// a search touches only the postings of the query's tokens.
#[derive(Default)]
pub(crate) struct SearchIndex {
    pub(crate) tools: Vec<IndexedTool>,
    pub(crate) by_name: HashMap<String, usize>,
    /// Namespace (toolset id, else toolset name) to tool positions.
    pub(crate) namespaces: BTreeMap<String, Vec<usize>>,
    postings: HashMap<String, Vec<(u32, u8)>>,
    /// Position of each tool in name order, for cheap tie-breaks.
    name_rank: Vec<u32>,
}

/// Lowercase alphanumeric tokens (`lookup_docs` gives `lookup`, `docs`).
pub(crate) fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|token| !token.is_empty())
        .map(str::to_lowercase)
}

impl SearchIndex {
    pub(crate) fn build(toolsets: &[DynToolset]) -> Self {
        let mut index = Self::default();
        for toolset in toolsets {
            let namespace = toolset.id().map(str::to_string);
            for tool in toolset.get_tools() {
                let definition = tool.definition();
                let tags = tool.facts().tags;
                let position = index.tools.len();
                let key = namespace
                    .clone()
                    .unwrap_or_else(|| toolset.name().to_string());
                index.namespaces.entry(key).or_default().push(position);
                index.by_name.insert(definition.name.clone(), position);
                index.tools.push(IndexedTool {
                    name: definition.name.clone(),
                    description: definition.description.clone().unwrap_or_default(),
                    namespace: namespace.clone(),
                    toolset: toolset.name().to_string(),
                    tool,
                    toolset_timeout_ms: toolset.timeout_ms(),
                    toolset_max_retries: toolset.max_retries(),
                });
                let mut weights: HashMap<String, u8> = HashMap::new();
                let mut add = |text: &str, weight: u8| {
                    for token in tokens(text) {
                        let entry = weights.entry(token).or_insert(0);
                        *entry = (*entry).max(weight);
                    }
                };
                add(&definition.name, NAME_WEIGHT);
                for tag in &tags {
                    add(tag, TAG_WEIGHT);
                }
                add(toolset.name(), NAMESPACE_WEIGHT);
                if let Some(namespace) = &namespace {
                    add(namespace, NAMESPACE_WEIGHT);
                }
                add(
                    definition.description.as_deref().unwrap_or_default(),
                    DESCRIPTION_WEIGHT,
                );
                let position = u32::try_from(position).unwrap_or(u32::MAX);
                for (token, weight) in weights {
                    index
                        .postings
                        .entry(token)
                        .or_default()
                        .push((position, weight));
                }
            }
        }
        let mut by_name: Vec<usize> = (0..index.tools.len()).collect();
        by_name.sort_by(|a, b| index.tools[*a].name.cmp(&index.tools[*b].name));
        index.name_rank = vec![0; index.tools.len()];
        for (rank, position) in by_name.into_iter().enumerate() {
            index.name_rank[position] = u32::try_from(rank).unwrap_or(u32::MAX);
        }
        index
    }

    /// What `accept` makes of the best matches, best first (ties by name),
    /// keeping only tools it returns `Some` for; it runs once per
    /// candidate, until `limit` are kept. A query equal to a tool name
    /// ranks it first.
    pub(crate) fn search<'a, T>(
        &'a self,
        query: &str,
        limit: usize,
        mut accept: impl FnMut(&'a IndexedTool) -> Option<T>,
    ) -> Vec<T> {
        // Dense score tables: one slot per tool, plus the list of tools
        // touched, so broad queries do no hashing.
        let count = self.tools.len();
        let mut scores = vec![0u32; count];
        let mut token_best = vec![0u8; count];
        let mut touched: Vec<usize> = Vec::new();
        let mut token_touched: Vec<usize> = Vec::new();
        for token in tokens(query) {
            for variant in variants(&token) {
                for &(position, weight) in self.postings.get(&variant).into_iter().flatten() {
                    let position = position as usize;
                    let Some(best) = token_best.get_mut(position) else {
                        continue;
                    };
                    if *best == 0 {
                        token_touched.push(position);
                    }
                    *best = (*best).max(weight);
                }
            }
            for position in token_touched.drain(..) {
                if scores[position] == 0 {
                    touched.push(position);
                }
                scores[position] += u32::from(token_best[position]);
                token_best[position] = 0;
            }
        }
        if let Some(&exact) = self.by_name.get(query.trim()) {
            if scores[exact] == 0 {
                touched.push(exact);
            }
            scores[exact] += 100;
        }
        // Best first: higher score, then name order. Only the top `limit`
        // usable tools are fully ordered.
        let key = |&(score, position): &(u32, usize)| {
            (
                std::cmp::Reverse(score),
                self.name_rank.get(position).copied().unwrap_or(u32::MAX),
            )
        };
        let mut ranked: Vec<(u32, usize)> = touched
            .into_iter()
            .map(|position| (scores[position], position))
            .collect();
        // Order a small head first; most searches fill their results from
        // it. The rest is ordered only when too many of the head are not
        // accepted.
        let head = limit.saturating_mul(4).max(16).min(ranked.len());
        if head < ranked.len() {
            ranked.select_nth_unstable_by_key(head, key);
        }
        ranked[..head].sort_unstable_by_key(key);
        let mut take = |found: &mut Vec<T>, candidates: &[(u32, usize)]| {
            for &(_, position) in candidates {
                if found.len() == limit {
                    return;
                }
                if let Some(kept) = self.tools.get(position).and_then(&mut accept) {
                    found.push(kept);
                }
            }
        };
        let mut found = Vec::with_capacity(limit);
        take(&mut found, &ranked[..head]);
        if found.len() < limit && head < ranked.len() {
            let rest = &mut ranked[head..];
            rest.sort_unstable_by_key(key);
            take(&mut found, rest);
        }
        found
    }
}

/// A token and its singular/plural neighbour (`doc` and `docs`).
fn variants(token: &str) -> Vec<String> {
    let mut variants = vec![token.to_string()];
    match token.strip_suffix('s') {
        Some(singular) if !singular.is_empty() => variants.push(singular.to_string()),
        _ => variants.push(format!("{token}s")),
    }
    variants
}

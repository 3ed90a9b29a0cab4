//! What a context event reports: the typed kind hosts match on.

use std::fmt;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// What a [`super::ContextEvent`] reports.
///
/// Hosts match on the variant instead of comparing strings, so a misspelt
/// kind fails to compile. On the wire a kind is its snake_case name
/// (`tools_unavailable`), the string events carried before their kind was
/// typed, so event logs and stream records stored by older builds still
/// load. A name this build does not know, a host's own event or one from a
/// newer writer, loads as [`ContextEventKind::Other`] and is written back
/// unchanged.
///
/// Two kinds are equal when their names are: `Other("tools_unavailable")`
/// equals [`ContextEventKind::ToolsUnavailable`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ContextEventKind {
    /// `tools_unavailable`: context-aware filtering skipped tools before a
    /// model request.
    ToolsUnavailable,
    /// `toolset_initialized`: a toolset's lifecycle setup succeeded.
    ToolsetInitialized,
    /// `toolset_failed`: a toolset's lifecycle setup failed; its tools are
    /// hidden.
    ToolsetFailed,
    /// `toolset_unavailable`: a toolset reported itself unavailable; its
    /// tools are hidden.
    ToolsetUnavailable,
    /// `toolset_closed`: a toolset was closed at the end of a run.
    ToolsetClosed,
    /// `toolset_refreshed`: a toolset's tool list changed during the run (an MCP server
    /// announced a new one) and was read again before the next model request; the payload
    /// names the tools `added` and `removed`.
    ToolsetRefreshed,
    /// `tool_search_loaded`: tool search loaded tools or namespaces, by a
    /// search or a host preload.
    ToolSearchLoaded,
    /// `tool_search_initialized`: tool search published its index report.
    ToolSearchInitialized,
    /// `tool_search_refreshed`: a tool search refresh report, or a refresh
    /// that pruned stale loaded tools.
    ToolSearchRefreshed,
    /// `tool_search_invalidated`: all loaded state of a search toolset was
    /// cleared.
    ToolSearchInvalidated,
    /// `tool_search_failed`: a search query was invalid.
    ToolSearchFailed,
    /// `tool_search_no_match`: a valid search query matched nothing.
    ToolSearchNoMatch,
    /// `skills_scanned`: a lenient skill scan finished: skill count and
    /// diagnostics, published at run start.
    SkillsScanned,
    /// `skill_activated`: a skill was activated (its full markdown loaded;
    /// the payload carries its summary, never the body).
    SkillActivated,
    /// `skills_reloaded`: a skill registry was reloaded: added, removed and
    /// modified skills.
    SkillsReloaded,
    /// `model_request_adjusted`: a model changed or left out part of a
    /// request (its request notices, each distinct one once per run).
    ModelRequestAdjusted,
    /// Any other name: a host's own event, or a kind from a newer writer.
    Other(String),
}

impl ContextEventKind {
    /// Every kind the runtime emits, for lookups by name.
    const KNOWN: [Self; 16] = [
        Self::ToolsUnavailable,
        Self::ToolsetInitialized,
        Self::ToolsetFailed,
        Self::ToolsetUnavailable,
        Self::ToolsetClosed,
        Self::ToolsetRefreshed,
        Self::ToolSearchLoaded,
        Self::ToolSearchInitialized,
        Self::ToolSearchRefreshed,
        Self::ToolSearchInvalidated,
        Self::ToolSearchFailed,
        Self::ToolSearchNoMatch,
        Self::SkillsScanned,
        Self::SkillActivated,
        Self::SkillsReloaded,
        Self::ModelRequestAdjusted,
    ];

    /// The kind's wire name, such as `tools_unavailable`.
    #[must_use]
    pub fn as_str(&self) -> &str {
        match self {
            Self::ToolsUnavailable => "tools_unavailable",
            Self::ToolsetInitialized => "toolset_initialized",
            Self::ToolsetFailed => "toolset_failed",
            Self::ToolsetUnavailable => "toolset_unavailable",
            Self::ToolsetClosed => "toolset_closed",
            Self::ToolsetRefreshed => "toolset_refreshed",
            Self::ToolSearchLoaded => "tool_search_loaded",
            Self::ToolSearchInitialized => "tool_search_initialized",
            Self::ToolSearchRefreshed => "tool_search_refreshed",
            Self::ToolSearchInvalidated => "tool_search_invalidated",
            Self::ToolSearchFailed => "tool_search_failed",
            Self::ToolSearchNoMatch => "tool_search_no_match",
            Self::SkillsScanned => "skills_scanned",
            Self::SkillActivated => "skill_activated",
            Self::SkillsReloaded => "skills_reloaded",
            Self::ModelRequestAdjusted => "model_request_adjusted",
            Self::Other(name) => name,
        }
    }

    fn known(name: &str) -> Option<Self> {
        Self::KNOWN.into_iter().find(|kind| kind.as_str() == name)
    }
}

impl From<&str> for ContextEventKind {
    /// The kind named `name`: a known variant, or [`Self::Other`].
    fn from(name: &str) -> Self {
        Self::known(name).unwrap_or_else(|| Self::Other(name.to_string()))
    }
}

impl From<String> for ContextEventKind {
    /// The kind named `name`: a known variant, or [`Self::Other`].
    fn from(name: String) -> Self {
        Self::known(&name).unwrap_or(Self::Other(name))
    }
}

impl PartialEq for ContextEventKind {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for ContextEventKind {}

impl Hash for ContextEventKind {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialEq<str> for ContextEventKind {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ContextEventKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Display for ContextEventKind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

impl Serialize for ContextEventKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ContextEventKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use super::ContextEventKind;

    #[test]
    fn every_known_kind_reads_back_from_its_name() {
        for kind in ContextEventKind::KNOWN {
            let read = ContextEventKind::from(kind.as_str());
            assert!(!matches!(read, ContextEventKind::Other(_)), "{kind}");
            assert_eq!(read, kind);
        }
    }

    #[test]
    fn an_unknown_name_is_kept() {
        let kind = ContextEventKind::from("announced");
        assert_eq!(kind, ContextEventKind::Other("announced".to_string()));
        assert_eq!(kind, "announced");
        assert_eq!(
            ContextEventKind::Other("tools_unavailable".to_string()),
            ContextEventKind::ToolsUnavailable
        );
    }
}

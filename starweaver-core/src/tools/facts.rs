//! What the runtime knows about a tool, as typed data the tool carries.
//!
//! A tool's kind, approval gate, tags, dependency profile and limits
//! decide how the registry runs it. They travel as [`ToolFacts`], read
//! once when the tool is registered. The model-facing
//! [`ToolDefinition::metadata`](crate::model::ToolDefinition) still shows
//! hosts the keys they read (`starweaver_tool_kind`, `deferred_call`,
//! `tags`, ...), written from these facts by [`ToolFacts::write_metadata`];
//! the runtime never parses them back. A host that rewrites a definition's
//! metadata changes what it shows, not how the tool runs.

use serde_json::Value;

use super::metadata::{
    APPROVAL_REQUEST_KIND_METADATA_KEY, APPROVAL_REQUIRED_METADATA_KEY, DEFERRED_CALL_METADATA_KEY,
    HIDDEN_BY_TAGS_METADATA_KEY, TAGS_METADATA_KEY, TOOL_KIND_METADATA_KEY,
};
use super::{ToolDependencyRequirements, ToolKind, TOOL_DEPENDENCIES_METADATA_KEY};
use crate::JsonMap;

/// Every metadata key that [`ToolFacts`] reads and writes.
pub const FACT_METADATA_KEYS: [&str; 7] = [
    TOOL_KIND_METADATA_KEY,
    DEFERRED_CALL_METADATA_KEY,
    APPROVAL_REQUIRED_METADATA_KEY,
    APPROVAL_REQUEST_KIND_METADATA_KEY,
    TAGS_METADATA_KEY,
    HIDDEN_BY_TAGS_METADATA_KEY,
    TOOL_DEPENDENCIES_METADATA_KEY,
];

/// The typed facts the runtime decides from: how a tool is gated,
/// grouped, limited and given dependencies.
///
/// Builders ([`super::FunctionTool`]'s `with_*` methods, the macro,
/// toolset combinators) set them; [`super::Tool::facts`] hands them to the
/// registry. Non-exhaustive so new facts can be added: start from
/// [`ToolFacts::default`] and set fields.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct ToolFacts {
    /// What sort of tool this is, when declared. [`ToolKind::Deferred`]
    /// hands calls to an external worker.
    pub kind: Option<ToolKind>,
    /// Calls wait for a human's approval before they run.
    pub approval_required: bool,
    /// The request kind an approval shows hosts (`tool_approval` when
    /// unset; the clarifying-questions tool uses its own).
    pub approval_request_kind: Option<String>,
    /// Capability tags, in order, without duplicates.
    pub tags: Vec<String>,
    /// Tags that hide this tool when another exposed tool carries one.
    pub hidden_by_tags: Vec<String>,
    /// The declared dependency profile; `None` is the Legacy default.
    pub dependencies: Option<ToolDependencyRequirements>,
    /// Tool-level timeout; wins over toolset and registry defaults.
    pub timeout_ms: Option<u64>,
    /// Tool-level retry budget; wins over toolset and registry defaults.
    pub max_retries: Option<u32>,
    /// Calls must not run twice (a payment, an email). Journaled runs run calls at least
    /// once: a call that was running when the run's process died runs again when the run
    /// resumes elsewhere. Such a call of this tool waits for a person's approval instead.
    pub at_most_once: bool,
}

impl ToolFacts {
    /// Reads facts from definition metadata: the input form for tools
    /// that declare them as metadata (a hand-written [`super::Tool`] or
    /// one built from another protocol). A malformed
    /// `starweaver_tool_dependencies` value fails closed to Strict with
    /// nothing requested; other malformed values are ignored.
    #[must_use]
    pub fn from_metadata(metadata: &JsonMap) -> Self {
        let mut facts = Self::default();
        for (key, value) in metadata {
            facts.absorb(key, value);
        }
        facts
    }

    /// Takes one metadata entry into the facts when `key` is one of
    /// [`FACT_METADATA_KEYS`]; other keys are left alone. The one reader
    /// of fact metadata.
    pub(crate) fn absorb(&mut self, key: &str, value: &Value) {
        match key {
            TOOL_KIND_METADATA_KEY => {
                self.kind = value.as_str().and_then(ToolKind::parse);
                if self.kind == Some(ToolKind::Unapproved) {
                    self.approval_required = true;
                }
            }
            APPROVAL_REQUIRED_METADATA_KEY => {
                self.approval_required = value.as_bool() == Some(true);
            }
            APPROVAL_REQUEST_KIND_METADATA_KEY => {
                self.approval_request_kind = value.as_str().map(str::to_string);
            }
            TAGS_METADATA_KEY => self.tags = dedup(strings(value)),
            HIDDEN_BY_TAGS_METADATA_KEY => self.hidden_by_tags = dedup(strings(value)),
            TOOL_DEPENDENCIES_METADATA_KEY => {
                self.dependencies = Some(ToolDependencyRequirements::from_metadata_value(value));
            }
            _ => {}
        }
    }

    /// Writes the facts hosts can read into definition metadata, setting
    /// or removing each key of [`FACT_METADATA_KEYS`] so the metadata
    /// always says what the facts say. The one writer of fact metadata.
    pub fn write_metadata(&self, metadata: &mut JsonMap) {
        set(
            metadata,
            TOOL_KIND_METADATA_KEY,
            self.kind.map(|kind| Value::from(kind.as_str())),
        );
        set(
            metadata,
            DEFERRED_CALL_METADATA_KEY,
            (self.kind == Some(ToolKind::Deferred)).then_some(Value::Bool(true)),
        );
        set(
            metadata,
            APPROVAL_REQUIRED_METADATA_KEY,
            self.approval_required.then_some(Value::Bool(true)),
        );
        set(
            metadata,
            APPROVAL_REQUEST_KIND_METADATA_KEY,
            self.approval_request_kind.clone().map(Value::String),
        );
        set(metadata, TAGS_METADATA_KEY, list(&self.tags));
        set(
            metadata,
            HIDDEN_BY_TAGS_METADATA_KEY,
            list(&self.hidden_by_tags),
        );
        set(
            metadata,
            TOOL_DEPENDENCIES_METADATA_KEY,
            self.dependencies
                .as_ref()
                .map(ToolDependencyRequirements::to_metadata_value),
        );
    }

    /// The dependency profile the tool runs under (Legacy when none was
    /// declared).
    #[must_use]
    pub fn dependency_requirements(&self) -> ToolDependencyRequirements {
        self.dependencies
            .clone()
            .unwrap_or_else(ToolDependencyRequirements::legacy)
    }

    /// True for tools whose calls are handed to an external worker.
    #[must_use]
    pub fn is_deferred(&self) -> bool {
        self.kind == Some(ToolKind::Deferred)
    }

    /// Sets the kind; kind `unapproved` also requires approval.
    pub(crate) fn set_kind(&mut self, kind: ToolKind) {
        self.kind = Some(kind);
        if kind == ToolKind::Unapproved {
            self.approval_required = true;
        }
    }

    /// Appends tags without duplicates.
    pub(crate) fn add_tags(&mut self, tags: impl IntoIterator<Item = String>) {
        push_unique(&mut self.tags, tags);
    }

    /// Appends hiding tags without duplicates.
    pub(crate) fn add_hidden_by_tags(&mut self, tags: impl IntoIterator<Item = String>) {
        push_unique(&mut self.hidden_by_tags, tags);
    }
}

fn set(metadata: &mut JsonMap, key: &str, value: Option<Value>) {
    match value {
        Some(value) => {
            metadata.insert(key.to_string(), value);
        }
        None => {
            metadata.remove(key);
        }
    }
}

fn list(items: &[String]) -> Option<Value> {
    (!items.is_empty()).then(|| Value::Array(items.iter().cloned().map(Value::String).collect()))
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn dedup(items: Vec<String>) -> Vec<String> {
    let mut unique = Vec::with_capacity(items.len());
    push_unique(&mut unique, items);
    unique
}

fn push_unique(current: &mut Vec<String>, items: impl IntoIterator<Item = String>) {
    for item in items {
        if !current.contains(&item) {
            current.push(item);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::ToolDependencyProfile;

    #[test]
    fn facts_written_to_metadata_read_back_the_same() {
        let mut facts = ToolFacts::default();
        facts.set_kind(ToolKind::Deferred);
        facts.approval_required = true;
        facts.approval_request_kind = Some("clarifying_questions".into());
        facts.add_tags(["a".to_string(), "a".to_string(), "b".to_string()]);
        facts.add_hidden_by_tags(["c".to_string()]);
        facts.dependencies = Some(ToolDependencyRequirements::filtered(["db"]));
        let mut metadata = JsonMap::new();
        facts.write_metadata(&mut metadata);
        assert_eq!(
            metadata.get(DEFERRED_CALL_METADATA_KEY),
            Some(&Value::Bool(true))
        );
        let mut read = ToolFacts::from_metadata(&metadata);
        // Limits are not metadata.
        read.timeout_ms = facts.timeout_ms;
        assert_eq!(read, facts);
        assert_eq!(facts.tags, vec!["a", "b"]);
    }

    #[test]
    fn writing_cleared_facts_removes_their_keys_and_keeps_others() {
        let mut metadata = JsonMap::new();
        metadata.insert("owner".into(), Value::from("team"));
        let mut facts = ToolFacts {
            approval_required: true,
            ..ToolFacts::default()
        };
        facts.add_tags(["x".to_string()]);
        facts.write_metadata(&mut metadata);
        facts.approval_required = false;
        facts.tags.clear();
        facts.write_metadata(&mut metadata);
        assert_eq!(metadata.len(), 1);
        assert_eq!(metadata.get("owner"), Some(&Value::from("team")));
    }

    #[test]
    fn unapproved_kind_implies_approval_and_bad_values_are_ignored_or_fail_closed() {
        let mut metadata = JsonMap::new();
        metadata.insert(TOOL_KIND_METADATA_KEY.into(), Value::from("unapproved"));
        metadata.insert(TAGS_METADATA_KEY.into(), serde_json::json!(["x", 3, null]));
        metadata.insert(TOOL_DEPENDENCIES_METADATA_KEY.into(), Value::from(7));
        let facts = ToolFacts::from_metadata(&metadata);
        assert!(facts.approval_required);
        assert_eq!(facts.tags, vec!["x"]);
        assert_eq!(
            facts.dependency_requirements().profile,
            ToolDependencyProfile::Strict
        );
        assert_eq!(
            ToolFacts::default().dependency_requirements().profile,
            ToolDependencyProfile::Legacy
        );
    }
}

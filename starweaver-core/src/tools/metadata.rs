//! Stable metadata keys on [`crate::model::ToolDefinition::metadata`], and
//! helpers hosts use to read them. Keys the project adds are spelled
//! `starweaver_<snake_case>`; `tags`, `hidden_by_tags` and `deferred_call`
//! keep their established names. The runtime itself reads typed
//! [`super::ToolFacts`] instead.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::JsonMap;

/// Metadata key holding the [`ToolKind`].
pub const TOOL_KIND_METADATA_KEY: &str = "starweaver_tool_kind";
/// Metadata key holding capability tags.
pub const TAGS_METADATA_KEY: &str = "tags";
/// Metadata key holding tags that hide this tool when another available
/// tool carries them.
pub const HIDDEN_BY_TAGS_METADATA_KEY: &str = "hidden_by_tags";
/// Metadata key set to `true` on deferred tools, for hosts that look for
/// it. The runtime reads deferral from the kind alone.
pub const DEFERRED_CALL_METADATA_KEY: &str = "deferred_call";
/// Metadata key set to `true` on tools that need human approval, for hosts
/// (written from [`super::ToolFacts::approval_required`];
/// `with_kind(ToolKind::Unapproved)` sets it too).
pub const APPROVAL_REQUIRED_METADATA_KEY: &str = "starweaver_approval_required";

/// Metadata key naming the approval request kind shown to hosts
/// (default `tool_approval`; `ask_user_question` uses
/// `clarifying_questions`).
pub const APPROVAL_REQUEST_KIND_METADATA_KEY: &str = "starweaver_approval_request_kind";

/// Tool-context metadata key under which a resumed approval exposes the
/// call's arguments to the tool's user-input preprocessor.
pub const HITL_ARGUMENTS_METADATA_KEY: &str = "starweaver_hitl_arguments";

/// The default request kind of an approval request.
pub(crate) const TOOL_APPROVAL_REQUEST_KIND: &str = "tool_approval";
/// The request kind of an approval asked for a call of an at-most-once tool that may have run
/// already (its run resumed from the journal after its process died while the call ran).
pub(crate) const INTERRUPTED_CALL_REQUEST_KIND: &str = "interrupted_call";
/// The request kind of a deferred call.
pub(crate) const DEFERRED_CALL_REQUEST_KIND: &str = "deferred_call";

/// What sort of tool a definition describes, for hosts and UIs. Its
/// stable names ([`ToolKind::as_str`]) are also its serialized form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ToolKind {
    /// An ordinary function tool.
    #[default]
    Function,
    /// A tool whose call is the run's final output.
    Output,
    /// A tool executed outside this process.
    External,
    /// A tool that needs human approval before it runs.
    Unapproved,
    /// A tool whose calls are handed to an external worker.
    Deferred,
}

impl ToolKind {
    /// Every kind.
    pub const ALL: [Self; 5] = [
        Self::Function,
        Self::Output,
        Self::External,
        Self::Unapproved,
        Self::Deferred,
    ];

    /// Stable snake_case name: the one mapping between kinds and names
    /// (parsing and serde use it too).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Function => "function",
            Self::Output => "output",
            Self::External => "external",
            Self::Unapproved => "unapproved",
            Self::Deferred => "deferred",
        }
    }

    /// Parses a stable name.
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == name)
    }
}

impl Serialize for ToolKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ToolKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let names = Self::ALL.map(Self::as_str);
        crate::model::from_name(deserializer, "tool kind", &names, Self::parse)
    }
}

fn string_list(metadata: &JsonMap, key: &str) -> Vec<String> {
    metadata
        .get(key)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Capability tags of a tool, in order.
#[must_use]
pub fn tool_metadata_tags(metadata: &JsonMap) -> Vec<String> {
    string_list(metadata, TAGS_METADATA_KEY)
}

/// Tags that hide a tool when another available tool carries them.
#[must_use]
pub fn tool_metadata_hidden_by_tags(metadata: &JsonMap) -> Vec<String> {
    string_list(metadata, HIDDEN_BY_TAGS_METADATA_KEY)
}

/// The tool kind, when set and valid.
#[must_use]
pub fn tool_metadata_kind(metadata: &JsonMap) -> Option<ToolKind> {
    metadata
        .get(TOOL_KIND_METADATA_KEY)
        .and_then(Value::as_str)
        .and_then(ToolKind::parse)
}

/// True when calls need human approval: `approval_required: true`, the
/// one key for that fact (the builders set it for kind `unapproved`).
#[must_use]
pub fn tool_metadata_requires_approval(metadata: &JsonMap) -> bool {
    metadata
        .get(APPROVAL_REQUIRED_METADATA_KEY)
        .and_then(Value::as_bool)
        == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_serde_share_one_mapping() {
        for kind in ToolKind::ALL {
            let value = serde_json::to_value(kind).unwrap_or_default();
            assert_eq!(value, kind.as_str());
            assert_eq!(ToolKind::parse(kind.as_str()), Some(kind));
            assert_eq!(serde_json::from_value::<ToolKind>(value).ok(), Some(kind));
        }
        assert!(serde_json::from_value::<ToolKind>(serde_json::json!("tool")).is_err());
    }

    #[test]
    fn kinds_round_trip_through_metadata() {
        for kind in [
            ToolKind::Function,
            ToolKind::Output,
            ToolKind::External,
            ToolKind::Unapproved,
            ToolKind::Deferred,
        ] {
            let mut metadata = JsonMap::new();
            metadata.insert(TOOL_KIND_METADATA_KEY.into(), Value::from(kind.as_str()));
            assert_eq!(tool_metadata_kind(&metadata), Some(kind));
        }
        let mut bad = JsonMap::new();
        bad.insert(TOOL_KIND_METADATA_KEY.into(), Value::from("robot"));
        assert_eq!(tool_metadata_kind(&bad), None);
    }
}

//! The outcome of one tool call, as it goes back into the conversation.

use compact_str::CompactString;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::JsonMap;

/// What kind of outcome a [`ToolReturnPart`] carries. Its stable names
/// ([`ToolReturnKind::as_str`]) are also its serialized form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolReturnKind {
    /// The tool succeeded.
    Success,
    /// An expected condition the agent can reason about (not an error).
    Feedback,
    /// The tool asked the model to correct its call.
    ModelRetry,
    /// The arguments failed validation; the model should correct them.
    InvalidArguments,
    /// The model called a tool that does not exist or is not loaded.
    NotFound,
    /// A developer or integration mistake; not retried.
    UserError,
    /// An unexpected failure that survived the internal retry budget.
    ExecutionFailed,
    /// The tool ran past its timeout.
    Timeout,
    /// The call was cancelled cooperatively.
    Cancelled,
    /// Control flow: the call waits for human approval.
    ApprovalRequired,
    /// Control flow: the call was handed to an external worker.
    Deferred,
}

impl ToolReturnKind {
    /// Every kind.
    pub const ALL: [Self; 11] = [
        Self::Success,
        Self::Feedback,
        Self::ModelRetry,
        Self::InvalidArguments,
        Self::NotFound,
        Self::UserError,
        Self::ExecutionFailed,
        Self::Timeout,
        Self::Cancelled,
        Self::ApprovalRequired,
        Self::Deferred,
    ];

    /// Parses a stable name.
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == name)
    }

    /// Stable snake_case name, as used in tool return content: the one
    /// mapping between kinds and names (parsing and serde use it too).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::Feedback => "feedback",
            Self::ModelRetry => "model_retry",
            Self::InvalidArguments => "invalid_arguments",
            Self::NotFound => "not_found",
            Self::UserError => "user_error",
            Self::ExecutionFailed => "execution_failed",
            Self::Timeout => "timeout",
            Self::Cancelled => "cancelled",
            Self::ApprovalRequired => "approval_required",
            Self::Deferred => "deferred",
        }
    }

    /// True when the model should be asked to correct its call, consuming
    /// the model retry budget.
    #[must_use]
    pub const fn is_model_retry(self) -> bool {
        matches!(
            self,
            Self::ModelRetry | Self::InvalidArguments | Self::NotFound
        )
    }

    /// True for the approval and deferred control-flow outcomes.
    #[must_use]
    pub const fn is_control_flow(self) -> bool {
        matches!(self, Self::ApprovalRequired | Self::Deferred)
    }

    /// True when the return is an error (Feedback and Success are not).
    #[must_use]
    pub const fn is_error(self) -> bool {
        !matches!(
            self,
            Self::Success | Self::Feedback | Self::ApprovalRequired | Self::Deferred
        )
    }
}

impl Serialize for ToolReturnKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ToolReturnKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let names = Self::ALL.map(Self::as_str);
        from_name(deserializer, "tool return kind", &names, Self::parse)
    }
}

/// Deserializes a value spelled by one of its stable `names`, so serde
/// and `as_str`/`parse` share one mapping; an unknown name is an error
/// listing the known ones.
pub(crate) fn from_name<'de, D: serde::Deserializer<'de>, T>(
    deserializer: D,
    what: &str,
    names: &[&str],
    parse: impl Fn(&str) -> Option<T>,
) -> Result<T, D::Error> {
    let name = std::borrow::Cow::<str>::deserialize(deserializer)?;
    parse(&name).ok_or_else(|| {
        serde::de::Error::custom(format!(
            "unknown {what} `{}`; expected one of {}",
            crate::bounds::echo(&name),
            names.join(", ")
        ))
    })
}

/// The result of one tool call. Every dispatch outcome, failures included,
/// is one of these: the registry never returns `Err` to its caller.
///
/// The id and the name are [`CompactString`]s: every tool call builds a
/// return, and ids and names of up to 24 bytes are kept inline instead of
/// allocated. They serialize as plain strings, and build from `&str` and
/// `String` with `.into()`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolReturnPart {
    /// Id of the call this answers.
    pub tool_call_id: CompactString,
    /// Name of the tool that was called.
    pub tool_name: CompactString,
    /// Model-visible content: the tool's JSON result on success, or an
    /// object with `success`, `is_error`, `error_kind` and `message`.
    pub content: Value,
    /// Outcome class.
    pub kind: ToolReturnKind,
    /// Public metadata (retry counters, tool result metadata).
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub metadata: JsonMap,
    /// Host-only metadata: never shown to the model.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub private_metadata: JsonMap,
}

impl ToolReturnPart {
    /// Whether this return is an error: read from its kind, the one
    /// source of truth (feedback, success and control flow are not).
    #[must_use]
    pub fn is_error(&self) -> bool {
        self.kind.is_error()
    }

    /// True when the call succeeded.
    #[must_use]
    pub fn is_success(&self) -> bool {
        self.kind == ToolReturnKind::Success
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_serde_share_one_mapping() {
        for kind in ToolReturnKind::ALL {
            let value = serde_json::to_value(kind).unwrap_or_default();
            assert_eq!(value, kind.as_str());
            assert_eq!(ToolReturnKind::parse(kind.as_str()), Some(kind));
            assert_eq!(
                serde_json::from_value::<ToolReturnKind>(value).ok(),
                Some(kind)
            );
        }
        assert!(serde_json::from_value::<ToolReturnKind>(serde_json::json!("oops")).is_err());
    }

    #[test]
    fn a_return_part_serializes_its_id_and_name_as_plain_strings() {
        // One id that fits inline and one that does not: both spell the
        // same JSON as the `String` fields did, and read back equal.
        let long_id = "toolu_01A09q90qw90lq917835lq9_and_more";
        for id in ["call_1", long_id] {
            let part = ToolReturnPart {
                tool_call_id: id.into(),
                tool_name: "add".into(),
                content: serde_json::json!({"sum": 3}),
                kind: ToolReturnKind::Success,
                metadata: JsonMap::new(),
                private_metadata: JsonMap::new(),
            };
            let value = serde_json::to_value(&part).unwrap_or_default();
            assert_eq!(
                value,
                serde_json::json!({
                    "tool_call_id": id,
                    "tool_name": "add",
                    "content": {"sum": 3},
                    "kind": "success",
                })
            );
            let back: Option<ToolReturnPart> = serde_json::from_value(value).ok();
            assert_eq!(back.as_ref(), Some(&part));
            assert_eq!(part.tool_call_id, id);
        }
    }
}

//! What a model changed or left out of a request, so a run reports it instead of hiding it.

use serde::{Deserialize, Serialize};

use super::SchemaChange;

/// What kind of adjustment a notice reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestNoticeKind {
    /// A tool the provider cannot take was left out of the request.
    ToolLeftOut,
    /// A tool's argument schema was rewritten to what the provider accepts.
    ToolSchemaAdapted,
    /// A setting the provider or model does not take was left out of the request.
    SettingLeftOut,
}

/// One adjustment a model makes when it sends a request: a tool left out, a schema adapted, or
/// a setting dropped, with the reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestNotice {
    /// What kind of adjustment.
    pub kind: RequestNoticeKind,
    /// The tool or setting it concerns.
    pub subject: String,
    /// Why, in words a user can act on.
    pub reason: String,
    /// For adapted schemas: each change, with the path into the original schema.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<SchemaChange>,
}

impl RequestNotice {
    /// A tool left out of the request.
    pub fn tool_left_out(tool: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            kind: RequestNoticeKind::ToolLeftOut,
            subject: tool.into(),
            reason: reason.into(),
            changes: Vec::new(),
        }
    }

    /// A setting left out of the request.
    pub fn setting_left_out(setting: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            kind: RequestNoticeKind::SettingLeftOut,
            subject: setting.into(),
            reason: reason.into(),
            changes: Vec::new(),
        }
    }
}

//! Progress a running tool reports while it works: typed updates that reach whoever watches
//! the call (a run's event observer, an MCP client) as they happen, before the call returns.
//! A long call is then visibly alive instead of silent until its result.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Characters of a progress message kept; the rest is cut, so a tool (or the server behind
/// one) cannot grow a run's records without bound through its messages.
pub const MAX_PROGRESS_MESSAGE_CHARS: usize = 1024;

/// One progress update of a running call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolProgress {
    /// How far the work is, in units the tool chooses; it grows with each update.
    pub progress: f64,
    /// Where `progress` ends, when the tool knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// What the tool is doing now, at most [`MAX_PROGRESS_MESSAGE_CHARS`] characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl ToolProgress {
    /// An update at `progress`, with no total and no message.
    #[must_use]
    pub fn new(progress: f64) -> Self {
        Self {
            progress,
            total: None,
            message: None,
        }
    }

    /// Where the progress ends.
    #[must_use]
    pub fn with_total(mut self, total: f64) -> Self {
        self.total = Some(total);
        self
    }

    /// What the tool is doing now (cut to [`MAX_PROGRESS_MESSAGE_CHARS`] characters).
    #[must_use]
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        let mut message = message.into();
        Self::cut_message(&mut message);
        self.message = Some(message);
        self
    }

    /// Cuts `message` to [`MAX_PROGRESS_MESSAGE_CHARS`] characters, the length a progress
    /// record keeps (for a message held before it becomes an update, as the MCP client holds
    /// a server's early notifications).
    pub fn cut_message(message: &mut String) {
        if let Some((cut, _)) = message.char_indices().nth(MAX_PROGRESS_MESSAGE_CHARS) {
            message.truncate(cut);
        }
    }

    /// Whether the update can be passed on: finite numbers only (JSON has no NaN or
    /// infinity, and a record that cannot be written back is worse than no record).
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.progress.is_finite() && self.total.is_none_or(f64::is_finite)
    }
}

/// A progress update with the call it belongs to, as a sink receives it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolProgressReport {
    /// The id of the call that reported.
    pub tool_call_id: String,
    /// The name of the tool that reported.
    pub tool_name: String,
    /// The update.
    pub update: ToolProgress,
}

impl ToolProgressReport {
    /// The update `update` of the call `tool_call_id` to `tool_name`.
    #[must_use]
    pub fn new(
        tool_call_id: impl Into<String>,
        tool_name: impl Into<String>,
        update: ToolProgress,
    ) -> Self {
        Self {
            tool_call_id: tool_call_id.into(),
            tool_name: tool_name.into(),
            update,
        }
    }
}

/// Where the progress of the calls made with a [`super::ToolContext`] goes: set by whoever
/// dispatches the calls (the run loop passes updates to its observer as stream events; `mcp
/// serve` to its client as progress notifications). It is called on the reporting tool's
/// task, so it should only hand the report on, never block.
#[derive(Clone)]
pub struct ToolProgressSink(Arc<dyn Fn(ToolProgressReport) + Send + Sync>);

impl ToolProgressSink {
    /// A sink calling `deliver` with every valid report.
    pub fn new(deliver: impl Fn(ToolProgressReport) + Send + Sync + 'static) -> Self {
        Self(Arc::new(deliver))
    }

    pub(crate) fn deliver(&self, report: ToolProgressReport) {
        (self.0)(report);
    }
}

impl std::fmt::Debug for ToolProgressSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ToolProgressSink")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_message_is_cut_and_non_finite_numbers_are_invalid() {
        let update = ToolProgress::new(1.0).with_message("é".repeat(5000));
        assert_eq!(
            update.message.as_deref().map(|m| m.chars().count()),
            Some(MAX_PROGRESS_MESSAGE_CHARS)
        );
        assert!(update.is_valid());
        assert!(!ToolProgress::new(f64::NAN).is_valid());
        assert!(!ToolProgress::new(1.0).with_total(f64::INFINITY).is_valid());
    }
}

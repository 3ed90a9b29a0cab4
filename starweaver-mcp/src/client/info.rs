//! What `starweaver tools` shows of one server tool: its mapped name, its
//! own name, and the hints it gives about itself.

use serde::{Deserialize, Serialize};

/// The behaviour hints a server gives for a tool (MCP `annotations`).
/// Hints come from the server and are not trusted for anything but the
/// approval rule the manifest chose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpToolHints {
    /// `readOnlyHint`: the tool changes nothing. Unset is `None`.
    pub read_only: Option<bool>,
    /// `destructiveHint`: the tool may destroy data. Unset is `None`.
    pub destructive: Option<bool>,
}

impl McpToolHints {
    /// Whether the tool counts as destructive for
    /// [`super::McpApproval::Destructive`]: MCP's defaults are
    /// `readOnlyHint: false` and `destructiveHint: true`, so a tool that
    /// says nothing counts, and a read-only one never does.
    #[must_use]
    pub fn is_destructive(&self) -> bool {
        if self.read_only == Some(true) {
            return false;
        }
        self.destructive.unwrap_or(true)
    }
}

/// One offered tool, as listed after the server started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpToolInfo {
    /// The name the model sees.
    pub name: String,
    /// The server's own name.
    pub server_name: String,
    /// Its description, as the server gave it.
    pub description: Option<String>,
    /// Its hints.
    pub hints: McpToolHints,
    /// Whether calls wait for approval.
    pub approval_required: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_hints_count_as_destructive_and_read_only_never_does() {
        assert!(McpToolHints::default().is_destructive());
        let read_only = McpToolHints {
            read_only: Some(true),
            destructive: Some(true),
        };
        assert!(!read_only.is_destructive());
        let safe = McpToolHints {
            read_only: Some(false),
            destructive: Some(false),
        };
        assert!(!safe.is_destructive());
    }
}

//! Where a skill comes from: its precedence level and directory kind.

use serde::{Deserialize, Serialize};

/// The precedence level of a skill scope. Levels are ordered: a skill at
/// a later level overrides a skill of the same name at an earlier one
/// (`Builtin < User < Workspace`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum SkillSource {
    /// Skills shipped with the host application.
    Builtin,
    /// Skills of the user (for example under a home directory).
    User,
    /// Skills of the project being worked on; the default.
    #[default]
    Workspace,
}

impl SkillSource {
    /// Stable snake_case name, as used in events.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Builtin => "builtin",
            Self::User => "user",
            Self::Workspace => "workspace",
        }
    }
}

impl std::fmt::Display for SkillSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which skills directory of a scope a skill lives in. Within one level,
/// tool-specific skills override shared ones of the same name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkillDirectoryKind {
    /// `<scope>/.agents/skills`: shared by every agent tool.
    Shared,
    /// `<scope>/skills`: specific to this tool.
    ToolSpecific,
}

impl SkillDirectoryKind {
    /// Both kinds, lowest precedence first.
    pub const ALL: [Self; 2] = [Self::Shared, Self::ToolSpecific];

    /// The directory, relative to its scope.
    #[must_use]
    pub const fn relative_dir(self) -> &'static str {
        match self {
            Self::Shared => ".agents/skills",
            Self::ToolSpecific => "skills",
        }
    }

    /// Stable snake_case name, as used in events.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Shared => "shared",
            Self::ToolSpecific => "tool_specific",
        }
    }

    /// Human words for messages (`"shared"`, `"tool-specific"`).
    pub(crate) const fn label(self) -> &'static str {
        match self {
            Self::Shared => "shared",
            Self::ToolSpecific => "tool-specific",
        }
    }
}

impl std::fmt::Display for SkillDirectoryKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

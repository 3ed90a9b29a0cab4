//! The stable names of the checks, so output can be filtered, documented and matched in tests
//! without depending on message wording.

use std::fmt;

/// Which check found a problem. The names returned by [`Rule::as_str`] are part of the format's
/// contract: they never change once published.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// The file is not readable YAML (or breaks a reading limit).
    Syntax,
    /// A key the format does not have at that place.
    UnknownField,
    /// A required key is absent.
    MissingField,
    /// A value of the wrong type, or not one of the allowed values.
    InvalidValue,
    /// A `version` this reader does not understand.
    UnsupportedVersion,
    /// Two things that must have distinct names share one.
    DuplicateName,
    /// A tool name that no registration provides.
    UnknownTool,
    /// A toolset name that no entry declares.
    UnknownToolset,
    /// A model id that no provider recognises.
    UnknownModel,
    /// An instructions template that does not parse.
    Template,
    /// A template variable that is never defined.
    UndefinedVariable,
    /// A shell setting that grants more than it seems to, or contradicts another.
    ShellPolicy,
    /// `shell.sandbox.mode: off`: commands run without a kernel sandbox.
    SandboxOff,
    /// A read-only filesystem toolset beside a shell whose sandbox lets commands change files.
    ShellCanWrite,
    /// A skill scope that is malformed or cannot be found.
    SkillScope,
    /// A path that leaves the folder it must stay in.
    PathEscape,
    /// A file the manifest names does not exist.
    MissingFile,
    /// The variable that should hold the model's API key is not set where `check` runs.
    MissingApiKey,
    /// A tool whose argument schema the manifest's model provider cannot take as declared.
    SchemaCompat,
    /// A value written into the manifest that looks like a secret (an MCP server's `env`, a
    /// password in its `url`).
    LiteralSecret,
    /// A sub-agent that is, through its own sub-agents, an ancestor of itself.
    AgentCycle,
    /// A tree of sub-agents deeper than a `max_depth` on its path allows.
    AgentDepth,
    /// A sub-agent's manifest has errors of its own (reported in that file).
    AgentInvalid,
}

impl Rule {
    /// Every rule, in documentation order.
    pub const ALL: [Self; 23] = [
        Self::Syntax,
        Self::UnknownField,
        Self::MissingField,
        Self::InvalidValue,
        Self::UnsupportedVersion,
        Self::DuplicateName,
        Self::UnknownTool,
        Self::UnknownToolset,
        Self::UnknownModel,
        Self::Template,
        Self::UndefinedVariable,
        Self::ShellPolicy,
        Self::SandboxOff,
        Self::ShellCanWrite,
        Self::SkillScope,
        Self::PathEscape,
        Self::MissingFile,
        Self::MissingApiKey,
        Self::SchemaCompat,
        Self::LiteralSecret,
        Self::AgentCycle,
        Self::AgentDepth,
        Self::AgentInvalid,
    ];

    /// The rule's stable kebab-case name (`unknown-field`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Syntax => "syntax",
            Self::UnknownField => "unknown-field",
            Self::MissingField => "missing-field",
            Self::InvalidValue => "invalid-value",
            Self::UnsupportedVersion => "unsupported-version",
            Self::DuplicateName => "duplicate-name",
            Self::UnknownTool => "unknown-tool",
            Self::UnknownToolset => "unknown-toolset",
            Self::UnknownModel => "unknown-model",
            Self::Template => "template",
            Self::UndefinedVariable => "undefined-variable",
            Self::ShellPolicy => "shell-policy",
            Self::SandboxOff => "sandbox-off",
            Self::ShellCanWrite => "shell-can-write",
            Self::SkillScope => "skill-scope",
            Self::PathEscape => "path-escape",
            Self::MissingFile => "missing-file",
            Self::MissingApiKey => "missing-api-key",
            Self::SchemaCompat => "schema-compat",
            Self::LiteralSecret => "literal-secret",
            Self::AgentCycle => "agent-cycle",
            Self::AgentDepth => "agent-depth",
            Self::AgentInvalid => "agent-invalid",
        }
    }

    /// The rule with stable name `name`, so names written by people (allow markers, command-line
    /// filters) can be turned back into rules.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|rule| rule.as_str() == name)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_round_trip() {
        let mut names: Vec<&str> = Rule::ALL.iter().map(|rule| rule.as_str()).collect();
        for rule in Rule::ALL {
            assert_eq!(Rule::from_name(rule.as_str()), Some(rule));
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Rule::ALL.len());
        assert_eq!(Rule::from_name("no-such-rule"), None);
        assert_eq!(Rule::PathEscape.to_string(), "path-escape");
    }
}

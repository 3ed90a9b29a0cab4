//! Errors of scanning, activating and reloading skills.

use super::text::printable;
use crate::environment::EnvironmentError;

/// What went wrong with a skill. Messages say what, where (the file) and
/// how to fix it. Paths and names are quoted with invisible characters
/// spelled out as `<U+XXXX>`, so a message is always one readable line.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// The file does not start with a `---` frontmatter line.
    #[error(
        "`{}` has no frontmatter ({found}); a SKILL.md must start with a `---` line, \
         then `name:` and `description:` lines, then a closing `---` line",
        printable(.path)
    )]
    MissingFrontmatter {
        /// The SKILL.md path.
        path: String,
        /// What the file starts with instead (quoted with invisible
        /// characters spelled out).
        found: String,
    },
    /// The frontmatter has no closing `---` line.
    #[error(
        "`{}`: the frontmatter opened on line 1 is never closed; \
         add a `---` line after the last frontmatter field",
        printable(.path)
    )]
    UnclosedFrontmatter {
        /// The SKILL.md path.
        path: String,
    },
    /// The frontmatter is not valid YAML, or a field has the wrong shape.
    #[error("`{}`: invalid frontmatter: {message}", printable(.path))]
    InvalidFrontmatter {
        /// The SKILL.md path.
        path: String,
        /// What is wrong, where (file line and column) and how to fix it.
        message: String,
        /// 1-based file line, when known.
        line: Option<u64>,
        /// 1-based column, when known.
        column: Option<u64>,
    },
    /// A required field is missing or empty.
    #[error(
        "`{}`: the frontmatter has no `{field}`; add `{}` between the `---` lines",
        printable(.path),
        field_example(.field)
    )]
    MissingField {
        /// The SKILL.md path.
        path: String,
        /// `"name"` or `"description"`.
        field: &'static str,
    },
    /// The `name` field is not a usable skill name.
    #[error(
        "`{}`: skill name `{}` is invalid: {reason}",
        printable(.path),
        printable(.name)
    )]
    InvalidName {
        /// The SKILL.md path.
        path: String,
        /// The name as written (shortened when very long).
        name: String,
        /// Why, and what is allowed.
        reason: String,
    },
    /// Two skills of one skills directory share a name.
    #[error(
        "skill `{name}` is defined twice in one skills directory: `{}` is used and \
         `{}` is ignored; rename one of them or remove the copy",
        printable(.kept),
        printable(.ignored)
    )]
    DuplicateSkill {
        /// The shared name.
        name: String,
        /// The SKILL.md that is kept (the first by folder name).
        kept: String,
        /// The SKILL.md that is ignored.
        ignored: String,
    },
    /// Nothing exists at the skill path.
    #[error(
        "skill file `{}` does not exist; activate the `path` of a scanned skill \
         (a `<skill>/SKILL.md` file)",
        printable(.path)
    )]
    NotFound {
        /// The path as given.
        path: String,
    },
    /// The skill file is not text (not UTF-8, or it holds NUL bytes).
    #[error(
        "`{}` is not text (not UTF-8, or it holds a NUL byte, U+0000); save SKILL.md as UTF-8 \
         text without NUL bytes",
        printable(.path)
    )]
    NotText {
        /// The SKILL.md path.
        path: String,
    },
    /// The environment could not read a skill file or directory.
    #[error("cannot read `{}`: {source}", printable(.path))]
    Unreadable {
        /// The file or directory.
        path: String,
        /// The environment's error.
        #[source]
        source: EnvironmentError,
    },
    /// No skill of that name is in the registry.
    #[error("no skill named `{}`{}", printable(.name), known_names(.known))]
    UnknownSkill {
        /// The name asked for.
        name: String,
        /// Names the registry knows, closest first.
        known: Vec<String>,
    },
    /// A scope's path is not a valid root-relative path.
    #[error("skill scope `{}` is not usable: {reason}", printable(.path))]
    InvalidScope {
        /// The scope path as given.
        path: String,
        /// Why.
        reason: String,
    },
    /// Any other environment error.
    #[error(transparent)]
    Environment(#[from] EnvironmentError),
}

impl SkillError {
    /// The file (or scope) the error concerns, when there is one.
    #[must_use]
    pub fn path(&self) -> Option<&str> {
        match self {
            Self::MissingFrontmatter { path, .. }
            | Self::UnclosedFrontmatter { path }
            | Self::InvalidFrontmatter { path, .. }
            | Self::MissingField { path, .. }
            | Self::InvalidName { path, .. }
            | Self::NotFound { path }
            | Self::NotText { path }
            | Self::Unreadable { path, .. }
            | Self::InvalidScope { path, .. } => Some(path),
            Self::DuplicateSkill { ignored, .. } => Some(ignored),
            Self::UnknownSkill { .. } => None,
            Self::Environment(error) => error.path(),
        }
    }
}

fn field_example(field: &str) -> &'static str {
    match field {
        "name" => "name: <skill-name, usually the folder name>",
        "description" => "description: <what the skill does and when to use it>",
        _ => "<field>: <value>",
    }
}

fn known_names(known: &[String]) -> String {
    if known.is_empty() {
        "; no skills are registered (check the scan's scopes and diagnostics)".to_string()
    } else {
        format!(
            "; registered skills (closest first): {}",
            printable(&known.join(", "))
        )
    }
}

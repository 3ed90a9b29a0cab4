//! The compact, prompt-sized summary of one skill: its frontmatter plus
//! where it was found. Bodies are never part of a summary.

use serde::{Deserialize, Serialize};
use starweaver_names::{name_problem, NameProblem};

use super::file::SkillFile;
use super::text::{code_point, is_invisible, one_line};
use super::{SkillDirectoryKind, SkillError, SkillSource};
use crate::bounds::shorten_chars;
use crate::environment::{file_name, parent_path};
use crate::JsonMap;

/// Longest accepted skill name, in characters.
pub const MAX_SKILL_NAME_CHARS: usize = crate::tools::MAX_TOOL_NAME_CHARS;

/// Longest description kept in a summary, in characters. Longer ones are
/// shortened (ending in `…`) so a skill cannot flood every prompt.
pub const MAX_SKILL_DESCRIPTION_CHARS: usize = 1024;

/// What a scan knows about one skill: enough for the model to decide
/// whether to read it, and for hosts to find it again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillSummary {
    /// The skill's name from its frontmatter (unique in a registry).
    pub name: String,
    /// What the skill does and when to use it, on one line (whitespace
    /// runs collapse to one space).
    pub description: String,
    /// Root-relative path of the `SKILL.md` entrypoint.
    pub path: String,
    /// Root-relative path of the skill's folder.
    pub directory: String,
    /// Precedence level of the scope it was found in.
    pub source: SkillSource,
    /// Which skills directory of the scope holds it.
    pub directory_kind: SkillDirectoryKind,
    /// The scope directory (normalized; `""` is the root).
    pub scope: String,
    /// The `license` field, if set.
    pub license: Option<String>,
    /// The `compatibility` field (environment requirements), if set.
    pub compatibility: Option<String>,
    /// The `allowed-tools` field, split into tool names.
    pub allowed_tools: Vec<String>,
    /// The `metadata` mapping (host-defined keys).
    pub metadata: JsonMap,
    /// A hash of the whole SKILL.md, so reloads notice body-only edits.
    pub fingerprint: String,
    /// Size of the SKILL.md in bytes.
    pub size: u64,
}

impl SkillSummary {
    /// A summary for a skill defined in code (or in tests). The folder,
    /// directory kind and scope are inferred from `path`; the source is
    /// [`SkillSource::Workspace`].
    #[must_use]
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        path: impl Into<String>,
    ) -> Self {
        let path = path.into();
        let location = SkillLocation::infer(&path);
        Self {
            name: name.into(),
            description: description.into(),
            directory: parent_path(&path).unwrap_or("").to_string(),
            path,
            source: location.source,
            directory_kind: location.kind,
            scope: location.scope,
            license: None,
            compatibility: None,
            allowed_tools: Vec::new(),
            metadata: JsonMap::new(),
            fingerprint: String::new(),
            size: 0,
        }
    }

    /// Sets the precedence level.
    #[must_use]
    pub fn with_source(mut self, source: SkillSource) -> Self {
        self.source = source;
        self
    }

    /// The skill folder's own name (the last segment of `directory`).
    #[must_use]
    pub fn folder_name(&self) -> &str {
        file_name(&self.directory)
    }

    /// Names of the fields that differ from `other` (`"content"` for the
    /// fingerprint or size). Empty when equal.
    #[must_use]
    pub fn changed_fields(&self, other: &Self) -> Vec<&'static str> {
        let mut changed = Vec::new();
        let mut check = |field, differs: bool| {
            if differs {
                changed.push(field);
            }
        };
        check("name", self.name != other.name);
        check("description", self.description != other.description);
        check("path", self.path != other.path);
        check("source", self.source != other.source);
        check(
            "directory_kind",
            self.directory_kind != other.directory_kind,
        );
        check("scope", self.scope != other.scope);
        check("license", self.license != other.license);
        check("compatibility", self.compatibility != other.compatibility);
        check("allowed_tools", self.allowed_tools != other.allowed_tools);
        check("metadata", self.metadata != other.metadata);
        check(
            "content",
            self.fingerprint != other.fingerprint || self.size != other.size,
        );
        changed
    }
}

/// Where a SKILL.md sits: level, directory kind and scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SkillLocation {
    pub source: SkillSource,
    pub kind: SkillDirectoryKind,
    pub scope: String,
}

impl SkillLocation {
    /// Best guess from a `<scope>/<skills dir>/<skill>/SKILL.md` path, for
    /// skills activated by path (no scope known). The level is
    /// [`SkillSource::Workspace`].
    pub(crate) fn infer(path: &str) -> Self {
        let directory = parent_path(path).unwrap_or("");
        let skills_dir = parent_path(directory).unwrap_or("");
        let (kind, scope) = [SkillDirectoryKind::Shared, SkillDirectoryKind::ToolSpecific]
            .into_iter()
            .find_map(|kind| {
                let suffix = kind.relative_dir();
                if skills_dir == suffix {
                    Some((kind, String::new()))
                } else {
                    skills_dir
                        .strip_suffix(suffix)
                        .and_then(|scope| scope.strip_suffix('/'))
                        .map(|scope| (kind, scope.to_string()))
                }
            })
            .unwrap_or((SkillDirectoryKind::ToolSpecific, skills_dir.to_string()));
        Self {
            source: SkillSource::Workspace,
            kind,
            scope,
        }
    }
}

/// Something about a skill worth a warning; it still loads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SummaryNote {
    /// The description had this many characters and was shortened.
    DescriptionTruncated { chars: usize },
}

/// Validates a parsed SKILL.md and builds its summary.
pub(crate) fn summarize(
    file: &SkillFile,
    location: SkillLocation,
) -> Result<(SkillSummary, Vec<SummaryNote>), SkillError> {
    let frontmatter = &file.parsed.frontmatter;
    let path = file.path.clone();
    let name = frontmatter
        .name
        .as_deref()
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .ok_or_else(|| SkillError::MissingField {
            path: path.clone(),
            field: "name",
        })?;
    validate_name(name).map_err(|reason| SkillError::InvalidName {
        path: path.clone(),
        name: shorten_chars(name, MAX_SKILL_NAME_CHARS + 16).into_owned(),
        reason,
    })?;
    let description = frontmatter
        .description
        .as_deref()
        .map(one_line)
        .filter(|text| !text.is_empty())
        .ok_or_else(|| SkillError::MissingField {
            path: path.clone(),
            field: "description",
        })?;
    let mut notes = Vec::new();
    let chars = description.chars().count();
    let description = if chars > MAX_SKILL_DESCRIPTION_CHARS {
        notes.push(SummaryNote::DescriptionTruncated { chars });
        shorten_chars(&description, MAX_SKILL_DESCRIPTION_CHARS).into_owned()
    } else {
        description
    };
    let summary = SkillSummary {
        name: name.to_string(),
        description,
        directory: parent_path(&path).unwrap_or("").to_string(),
        path,
        source: location.source,
        directory_kind: location.kind,
        scope: location.scope,
        license: frontmatter.license.clone(),
        compatibility: frontmatter.compatibility.clone(),
        allowed_tools: frontmatter.allowed_tools.clone(),
        metadata: frontmatter.metadata.clone(),
        fingerprint: file.fingerprint.clone(),
        size: file.size,
    };
    Ok((summary, notes))
}

/// Skill names follow the tool-name rule: 1 to 64 ASCII letters, digits,
/// `-` or `_`. They are shown to the model and used as keys, so no
/// spaces, slashes or control characters.
fn validate_name(name: &str) -> Result<(), String> {
    match name_problem(name) {
        None => Ok(()),
        Some(NameProblem::Empty) => Err("it is empty".to_string()),
        Some(NameProblem::TooLong(count)) => Err(format!(
            "it has {count} characters, at most {MAX_SKILL_NAME_CHARS} are allowed"
        )),
        Some(NameProblem::BadChar(bad)) => Err(format!(
            "{} is not allowed; use ASCII letters, digits, `-` and `_` \
             (for example the folder name, such as `pdf-tools`)",
            describe_char(bad)
        )),
    }
}

/// Names the offending character. Anything but printable ASCII is given
/// by code point: invisible characters (zero-width space, bidirectional
/// overrides, BOM) would otherwise show as nothing or reorder the message.
fn describe_char(c: char) -> String {
    if c.is_ascii_graphic() {
        format!("`{c}`")
    } else if c.is_whitespace() {
        format!("whitespace ({})", code_point(c))
    } else if c.is_control() {
        format!("the control character {}", code_point(c))
    } else if is_invisible(c) {
        format!("the invisible character {}", code_point(c))
    } else {
        format!("the non-ASCII character {}", code_point(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_tool_name_rule() {
        assert!(validate_name("research").is_ok());
        assert!(validate_name("PDF_tools-2").is_ok());
        assert!(validate_name(&"a".repeat(64)).is_ok());
        assert!(validate_name(&"a".repeat(65)).is_err());
        assert!(validate_name("two words").is_err());
        assert!(validate_name("a/b").is_err());
        assert!(validate_name("é").is_err());
        let control = validate_name("a\u{7}b").err().unwrap_or_default();
        assert!(control.contains("U+0007"), "{control}");
        for (name, expected) in [
            ("two words", "whitespace (U+0020)"),
            ("a\nb", "whitespace (U+000A)"),
            ("a\u{200b}", "the invisible character U+200B"),
            ("\u{202e}x", "the invisible character U+202E"),
            ("é", "the non-ASCII character U+00E9"),
            ("a/b", "`/`"),
        ] {
            let reason = validate_name(name).err().unwrap_or_default();
            assert!(reason.starts_with(expected), "{name:?}: {reason}");
        }
    }

    #[test]
    fn shorten_counts_characters() {
        assert_eq!(shorten_chars("héllo", 5), "héllo");
        assert_eq!(shorten_chars("héllo wörld", 5), "héll…");
        assert_eq!(shorten_chars("ab", 0), "…");
    }

    #[test]
    fn locations_are_inferred_from_paths() {
        let shared = SkillLocation::infer("home/.agents/skills/a/SKILL.md");
        assert_eq!(shared.kind, SkillDirectoryKind::Shared);
        assert_eq!(shared.scope, "home");
        let tool = SkillLocation::infer("skills/a/SKILL.md");
        assert_eq!(tool.kind, SkillDirectoryKind::ToolSpecific);
        assert_eq!(tool.scope, "");
        let root_shared = SkillLocation::infer(".agents/skills/a/SKILL.md");
        assert_eq!(root_shared.kind, SkillDirectoryKind::Shared);
        assert_eq!(root_shared.scope, "");
        let elsewhere = SkillLocation::infer("docs/guides/a/SKILL.md");
        assert_eq!(elsewhere.kind, SkillDirectoryKind::ToolSpecific);
        assert_eq!(elsewhere.scope, "docs/guides");
        let myskills = SkillLocation::infer("myskills/a/SKILL.md");
        assert_eq!(myskills.scope, "myskills");
        assert_eq!(SkillLocation::infer("SKILL.md").scope, "");
    }

    #[test]
    fn changed_fields_names_what_differs() {
        let before = SkillSummary::new("a", "one", "skills/a/SKILL.md");
        let mut after = before.clone();
        assert!(before.changed_fields(&after).is_empty());
        after.description = "two".to_string();
        after.fingerprint = "x".to_string();
        assert_eq!(before.changed_fields(&after), ["description", "content"]);
    }
}

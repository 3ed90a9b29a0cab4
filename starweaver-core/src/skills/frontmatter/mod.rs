//! Splitting a SKILL.md into its YAML frontmatter and markdown body, and
//! reading the frontmatter fields from `granit-parser`'s YAML events. The
//! known keys are read whatever their shape (with their location), so a
//! value of the wrong shape is reported in words a skill author can act
//! on; unknown keys are skipped.
//!
//! `fences` splits the file, `tree` builds the YAML's nodes with their
//! locations (`scalar` types its scalars), `fields` reads the known keys,
//! `yaml_errors` turns YAML errors into messages for skill authors.

use std::borrow::Cow;
use std::fmt::Display;

use granit_parser::ErrorKind;
use serde_json::Value;

use super::text::{code_point, is_invisible, quoted};
use crate::JsonMap;

mod fences;
mod fields;
mod scalar;
#[cfg(test)]
mod tests;
mod tree;
mod yaml_errors;

use fences::*;
use fields::*;
use scalar::ScalarError;
use tree::{compose, Kind, Location, Node, TreeError};
use yaml_errors::*;

/// The frontmatter fields a skill may set. Unknown keys are ignored so
/// skills written for other tools still load.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Frontmatter {
    pub name: Option<String>,
    pub description: Option<String>,
    pub license: Option<String>,
    pub compatibility: Option<String>,
    pub allowed_tools: Vec<String>,
    pub metadata: JsonMap,
}

/// A SKILL.md split into parts; the body is trimmed (`None` when empty).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ParsedSkillFile {
    pub frontmatter: Frontmatter,
    pub body: Option<String>,
}

/// Why a SKILL.md's frontmatter could not be read. The caller adds the
/// file path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum FrontmatterError {
    /// The first line is not `---`; `found` describes what is there.
    Missing { found: String },
    /// No closing `---` line.
    Unclosed,
    /// The YAML does not parse or a field has the wrong shape. The message
    /// says what, where and how to fix it; line and column count from the
    /// start of the file.
    Yaml {
        message: String,
        line: Option<u64>,
        column: Option<u64>,
    },
}

impl FrontmatterError {
    /// A [`FrontmatterError::Yaml`] reading "what at line L, column C; fix".
    /// `at` is a location in the YAML, which starts on line 2 of the file.
    fn yaml(at: Option<Location>, what: impl Display, fix: &str) -> Self {
        Self::yaml_at(
            at.filter(|at| at.line() > 0)
                .map(|at| (at.line(), at.column())),
            what,
            fix,
        )
    }

    /// Like [`Self::yaml`], for a line and column counted in the YAML.
    fn yaml_at(at: Option<(u64, u64)>, what: impl Display, fix: &str) -> Self {
        let at = at.map(|(line, column)| (line.saturating_add(1), column));
        let message = match at {
            Some((line, column)) => format!("{what} at line {line}, column {column}; {fix}"),
            None => format!("{what}; {fix}"),
        };
        Self::Yaml {
            message,
            line: at.map(|at| at.0),
            column: at.map(|at| at.1),
        }
    }
}

/// Parses a SKILL.md. Tolerates a UTF-8 byte-order mark, CRLF (and lone
/// CR) line endings and trailing spaces on the `---` lines.
pub(crate) fn parse_skill_file(text: &str) -> Result<ParsedSkillFile, FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text: Cow<'_, str> = if text.contains('\r') {
        Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(text)
    };
    let (yaml, body) = split(&text)?;
    let frontmatter = parse_yaml(yaml)?;
    let body = body.trim();
    Ok(ParsedSkillFile {
        frontmatter,
        body: (!body.is_empty()).then(|| body.to_string()),
    })
}

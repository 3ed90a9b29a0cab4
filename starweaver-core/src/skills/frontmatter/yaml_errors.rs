//! YAML errors as messages a skill author can act on, with line
//! and column.

use super::*;

/// The first control character in the YAML other than tab and line
/// breaks, named by code point at its line and column. YAML allows none
/// of them anywhere (the parser would print Rust's `\u{0}` escape, at the
/// start of the value rather than at the character).
pub(super) fn control_character(yaml: &str) -> Option<FrontmatterError> {
    yaml.split('\n').zip(1_u64..).find_map(|(line, number)| {
        let (column, c) = line
            .chars()
            .zip(1_u64..)
            .map(|(c, column)| (column, c))
            .find(|&(_, c)| c.is_control() && !matches!(c, '\t' | '\r'))?;
        Some(FrontmatterError::yaml_at(
            Some((number, column)),
            format!(
                "the control character <{}> is not allowed in the frontmatter",
                code_point(c)
            ),
            "remove it",
        ))
    })
}

/// The YAML line (counted from 1) a parser error at `at` is about when
/// the culprit is a line that starts with a tab, which YAML does not
/// allow as indentation. A tab error (`tab_error`) is often reported at
/// the value before the tab, so the first such line at or after `at`
/// is taken; any other error must point into that line's indentation.
/// Lines of only spaces and tabs are fine, and so are tab-led lines the
/// parser accepts (inside quotes or brackets), since the parser decides
/// whether there is an error at all.
pub(super) fn tab_indented_line(yaml: &str, at: Option<Location>, tab_error: bool) -> Option<u64> {
    let at = at.filter(|at| at.line() > 0)?;
    let (line, number) = yaml
        .split('\n')
        .zip(1_u64..)
        .skip(usize::try_from(at.line() - 1).ok()?)
        .find(|(line, _)| line.starts_with('\t') && !line.trim_matches([' ', '\t']).is_empty())?;
    if tab_error {
        return Some(number);
    }
    let indentation = line.len() - line.trim_start_matches([' ', '\t']).len();
    let in_indentation = usize::try_from(at.column()).is_ok_and(|column| column <= indentation + 1);
    (number == at.line() && in_indentation).then_some(number)
}

/// A YAML error in words for skill authors: what, where and how to fix
/// it, with no parser internals.
pub(super) fn yaml_error(yaml: &str, error: &TreeError) -> FrontmatterError {
    const QUOTE: &str = "fix the YAML between the `---` lines (quote values that contain `: ` \
                         or start with a special character)";
    const ALIASES: &str = "write the values out, or use fewer aliases (`*name`) of large \
                           anchored values";
    const DEEP: &str = "flatten the structure";
    const TAB: &str = "a tab is used for indentation";
    const TAB_FIX: &str = "indent with spaces, not tabs";
    let at = Some(error.location());
    let (what, fix) = match error {
        TreeError::DuplicateKey { key: Some(key), .. } => {
            let key = quoted(key, 40);
            return FrontmatterError::yaml(
                at,
                format!("`{key}` is set a second time"),
                &format!("keep one `{key}:` line"),
            );
        }
        TreeError::DuplicateKey { key: None, .. } => {
            ("a key is set a second time", "keep one of the two lines")
        }
        TreeError::NullKey { .. } => (
            "a key is null (`~`, `null` or empty), which cannot be read, even under keys \
             this crate ignores",
            "quote the key, such as `'~': value`, or remove the line",
        ),
        TreeError::Scalar {
            error: ScalarError::Timestamp,
            ..
        } => (
            "a tagged value (such as `!!timestamp 2001-12-14`) cannot be read, even under a \
             key this crate ignores",
            "quote the value instead of tagging it, such as `created: '2001-12-14'`",
        ),
        TreeError::Scalar {
            error: ScalarError::Binary,
            ..
        } => (
            "a `!!binary` value is not base64-encoded UTF-8 text",
            "quote the value instead of tagging it",
        ),
        TreeError::Scalar {
            error: ScalarError::DoesNotFitTag,
            ..
        } => (
            "a tagged value does not fit its tag (such as `!!int two`)",
            "quote the value instead of tagging it",
        ),
        TreeError::NotAMapping { .. } | TreeError::BadMerge { .. } => (
            "the frontmatter is not a set of `key: value` lines",
            "write it as `key: value` lines, such as `name: my-skill` and `description: ...`",
        ),
        TreeError::ComplexKey { .. } => (
            "a key is a list or mapping",
            "keys must be text, such as `author: ada`",
        ),
        TreeError::MultipleDocuments { .. } => (
            "a second YAML document starts",
            "the frontmatter must be one block of `key: value` lines; remove the `...` \
             (or `--- ...`) line before it",
        ),
        TreeError::UnknownAnchor { .. } => (
            "an alias (`*name`) refers to an anchor (`&name`) that is not defined above it",
            "define the anchor first, or quote the value if `*` is meant literally",
        ),
        TreeError::RecursiveAlias { .. } => (
            "an alias (`*name`) refers to a value that contains it",
            "write the value out instead of using the alias (loops cannot be read)",
        ),
        TreeError::AliasExpansion { .. } => {
            ("aliases (`*name`) expand to too many values", ALIASES)
        }
        TreeError::TooManyAliases { .. } => ("aliases (`*name`) are used too often", ALIASES),
        TreeError::TooDeep { .. } => ("values are nested too deeply", DEEP),
        TreeError::TooManyValues { .. } => (
            "the frontmatter holds too many values",
            "keep the frontmatter short and move data into the body or a separate file",
        ),
        TreeError::Parser { error, .. } => {
            let kind = error.kind();
            let tab_error = matches!(
                kind,
                ErrorKind::TabNotAllowed
                    | ErrorKind::TabInBlockIndentation
                    | ErrorKind::TabInIndentation
                    | ErrorKind::TabInPlainScalar
                    | ErrorKind::TabAtBlockScalarStart
            );
            if let Some(line) = tab_indented_line(yaml, at, tab_error) {
                return FrontmatterError::yaml_at(Some((line, 1)), TAB, TAB_FIX);
            }
            match kind {
                _ if tab_error => (TAB, TAB_FIX),
                ErrorKind::UnexpectedCharacter { character } => {
                    let character = *character;
                    return if is_invisible(character) || is_noncharacter(character) {
                        FrontmatterError::yaml(
                            at,
                            format!(
                                "the character <{}> is not allowed in YAML",
                                code_point(character)
                            ),
                            "remove it",
                        )
                    } else {
                        let shown = if character == '`' {
                            "a backquote".to_string()
                        } else {
                            format!("`{character}`")
                        };
                        FrontmatterError::yaml(
                            at,
                            format!("an unquoted value or key cannot start with {shown}"),
                            "quote it, such as `'@value'`",
                        )
                    };
                }
                ErrorKind::UnclosedQuotedScalar => (
                    "a quoted value is never closed",
                    "add the closing quote, or double a `'` inside a single-quoted value (`''`)",
                ),
                ErrorKind::RecursionLimitExceeded => ("values are nested too deeply", DEEP),
                _ => return FrontmatterError::yaml(at, quoted(&error.info(), 200), QUOTE),
            }
        }
    };
    FrontmatterError::yaml(at, what, fix)
}

/// Unicode noncharacters (U+FFFE, U+FDD0, ...), which YAML rejects and
/// which show as nothing or a box.
pub(super) fn is_noncharacter(c: char) -> bool {
    let c = u32::from(c);
    (0xFDD0..=0xFDEF).contains(&c) || c & 0xFFFE == 0xFFFE
}

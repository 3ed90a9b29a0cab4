//! Splitting a SKILL.md into its YAML frontmatter and markdown body, and
//! reading the frontmatter fields with `serde-saphyr`. The known keys are
//! read whatever their shape (with their location), so a value of the
//! wrong shape is reported in words a skill author can act on; unknown
//! keys are skipped by serde.

use std::borrow::Cow;
use std::fmt::{self, Display};

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::budget::BudgetBreach;
use serde_saphyr::granit_parser::ErrorKind;
use serde_saphyr::{
    Error as YamlError, ExternalMessageSource, Location, MessageFormatter, NonFiniteFloatPolicy,
    Options, Spanned, UserMessageFormatter,
};

use super::text::{code_point, is_invisible, quoted};
use crate::JsonMap;

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

fn is_delimiter(line: &str) -> bool {
    line.trim_end() == "---"
}

/// Returns the YAML between the `---` lines and the rest of the file.
fn split(text: &str) -> Result<(&str, &str), FrontmatterError> {
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if !is_delimiter(first) {
        return Err(FrontmatterError::Missing {
            found: describe_first_line(text, first),
        });
    }
    let yaml_start = first.len();
    let mut offset = yaml_start;
    for line in lines {
        if is_delimiter(line) {
            return Ok((&text[yaml_start..offset], &text[offset + line.len()..]));
        }
        offset += line.len();
    }
    Err(FrontmatterError::Unclosed)
}

/// Says what the first line holds instead of `---`. The line is quoted as
/// written (not trimmed) with invisible characters spelled out, and a
/// fence that is only indented or preceded by an invisible character is
/// called out, since it looks right.
fn describe_first_line(text: &str, first: &str) -> String {
    const SHOWN: usize = 40;
    if text.trim().is_empty() {
        return "the file is empty".to_string();
    }
    let line = first.strip_suffix('\n').unwrap_or(first);
    if line.trim().is_empty() {
        return "the first line is blank".to_string();
    }
    let shown = quoted(line, SHOWN);
    let before_fence = line.trim_end().strip_suffix("---").unwrap_or(line);
    if before_fence.len() < line.len() && before_fence.chars().all(is_invisible_or_space) {
        if before_fence.chars().all(|c| c == ' ') {
            let count = before_fence.len();
            let spaces = if count == 1 { "space" } else { "spaces" };
            return format!(
                "the first line `{shown}` is indented by {count} {spaces}, so it is not a \
                 `---` fence; remove the indentation"
            );
        }
        let characters: Vec<String> = before_fence.chars().map(code_point).collect();
        return format!(
            "the first line `{shown}` has {} before `---`, so it is not a fence; delete {}",
            if characters.len() == 1 {
                format!("the invisible character {}", characters.join(""))
            } else {
                format!("the invisible characters {}", characters.join(", "))
            },
            if characters.len() == 1 { "it" } else { "them" }
        );
    }
    format!("the first line is `{shown}`")
}

fn is_invisible_or_space(c: char) -> bool {
    c == ' ' || is_invisible(c)
}

/// The known keys, each kept whatever its shape. A key that is present
/// is `Some`, even when its value is null.
///
/// serde-saphyr expands `<<` merges itself: a merged key that is also set
/// explicitly (or by an earlier merge) is dropped, and merged entries
/// come after the explicit ones. It compares keys as written, so
/// `allowed-tools` and `allowed_tools` can both reach [`KeysVisitor`],
/// which keeps one the same way ([`Keys::set_allowed_tools`]) and records
/// two explicit lines as a repeat for [`parse_yaml`] to report. A merged
/// entry is told apart by its location: its key and value are both
/// referenced at the merge (`<<: *base`), while an explicit value always
/// follows its key. (A serde alias would not do: serde rejects the second
/// spelling as a duplicate field whether it was merged or not.)
#[derive(Default)]
struct Keys {
    name: Option<Spanned<Raw>>,
    description: Option<Spanned<Raw>>,
    license: Option<Spanned<Raw>>,
    compatibility: Option<Spanned<Raw>>,
    allowed_tools: Option<AllowedTools>,
    /// A second explicit `allowed-tools`/`allowed_tools` line: the first
    /// spelling and line, and the second.
    repeated_allowed_tools: Option<(&'static str, Location, &'static str, Location)>,
    metadata: Option<Spanned<Raw>>,
}

/// The `allowed-tools` value, with the spelling of its key and whether it
/// came from a `<<` merge.
struct AllowedTools {
    key: &'static str,
    value: Spanned<Raw>,
    merged: bool,
}

const KNOWN_KEYS: &[&str] = &[
    "name",
    "description",
    "license",
    "compatibility",
    "allowed-tools",
    "allowed_tools",
    "metadata",
];

impl<'de> Deserialize<'de> for Keys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct("Keys", KNOWN_KEYS, KeysVisitor)
    }
}

struct KeysVisitor;

impl<'de> Visitor<'de> for KeysVisitor {
    type Value = Keys;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a mapping of frontmatter keys")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
        let mut keys = Keys::default();
        while let Some(key) = map.next_key::<Spanned<String>>()? {
            let slot = match key.value.as_str() {
                "name" => &mut keys.name,
                "description" => &mut keys.description,
                "license" => &mut keys.license,
                "compatibility" => &mut keys.compatibility,
                "metadata" => &mut keys.metadata,
                spelling @ ("allowed-tools" | "allowed_tools") => {
                    let spelling = if spelling == "allowed-tools" {
                        "allowed-tools"
                    } else {
                        "allowed_tools"
                    };
                    let value: Spanned<Raw> = map.next_value()?;
                    let merged = key.referenced == value.referenced;
                    keys.set_allowed_tools(spelling, value, merged);
                    continue;
                }
                _ => {
                    map.next_value::<de::IgnoredAny>()?;
                    continue;
                }
            };
            // serde-saphyr rejects a key written twice and drops a merged
            // key that is also explicit, so each known key comes once.
            *slot = Some(map.next_value()?);
        }
        Ok(keys)
    }
}

impl Keys {
    /// Keeps one of `allowed-tools` and `allowed_tools`: an explicit line
    /// wins over a merged value, the first merged value over later ones,
    /// and a second explicit line is recorded as a repeat.
    fn set_allowed_tools(&mut self, key: &'static str, value: Spanned<Raw>, merged: bool) {
        let replace = match &self.allowed_tools {
            None => true,
            Some(first) if !first.merged && !merged => {
                if self.repeated_allowed_tools.is_none() {
                    self.repeated_allowed_tools =
                        Some((first.key, first.value.referenced, key, value.referenced));
                }
                false
            }
            Some(first) => first.merged && !merged,
        };
        if replace {
            self.allowed_tools = Some(AllowedTools { key, value, merged });
        }
    }
}

/// A YAML value, as JSON; a list keeps each item's location.
enum Raw {
    Value(Value),
    List(Vec<Spanned<Value>>),
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(RawVisitor)
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any YAML value")
    }

    fn visit_unit<E>(self) -> Result<Raw, E> {
        Ok(Raw::Value(Value::Null))
    }

    fn visit_bool<E>(self, value: bool) -> Result<Raw, E> {
        Ok(Raw::Value(value.into()))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Raw, E> {
        Ok(Raw::Value(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Raw, E> {
        Ok(Raw::Value(value.into()))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Raw, E> {
        Ok(Raw::Value(value.into()))
    }

    fn visit_str<E>(self, value: &str) -> Result<Raw, E> {
        Ok(Raw::Value(value.into()))
    }

    fn visit_string<E>(self, value: String) -> Result<Raw, E> {
        Ok(Raw::Value(value.into()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Raw, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Raw::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Raw, A::Error> {
        JsonMap::deserialize(de::value::MapAccessDeserializer::new(map))
            .map(|map| Raw::Value(Value::Object(map)))
    }
}

/// Reads a value's text and describes it, from the YAML it came from.
struct Reader<'y> {
    yaml: &'y str,
}

impl Reader<'_> {
    /// A scalar as written: text as parsed, numbers and booleans with
    /// their spelling in the file (`1.10`, not `1.1`).
    fn text(&self, value: &Value, at: Location) -> Option<String> {
        match value {
            Value::String(text) => Some(text.clone()),
            Value::Number(_) | Value::Bool(_) => {
                let span = at.span();
                let source = span
                    .byte_offset()
                    .zip(span.byte_len())
                    .and_then(|(at, len)| {
                        let at = usize::try_from(at).ok()?;
                        self.yaml
                            .get(at..at.checked_add(usize::try_from(len).ok()?)?)
                    });
                Some(source.map_or_else(|| value.to_string(), str::to_string))
            }
            _ => None,
        }
    }

    /// The value's type in words, for messages.
    fn describe(&self, value: &Value, at: Location) -> String {
        let text = || quoted(&self.text(value, at).unwrap_or_default(), 40);
        match value {
            Value::Null => "an empty value (null)".to_string(),
            Value::Bool(_) => format!("the boolean `{}`", text()),
            Value::Number(_) => format!("the number `{}`", text()),
            Value::String(_) => format!("the text `{}`", text()),
            Value::Array(_) => "a list".to_string(),
            Value::Object(_) => "a mapping".to_string(),
        }
    }

    /// Like [`Self::describe`], for a known key's value.
    fn describe_raw(&self, value: &Spanned<Raw>) -> String {
        match &value.value {
            Raw::Value(raw) => self.describe(raw, value.defined),
            Raw::List(_) => "a list".to_string(),
        }
    }

    /// A text field: any scalar reads as its text (`name: 42` is `"42"`),
    /// null is unset, a list or mapping is a shape error.
    fn text_field(
        &self,
        key: &str,
        value: Option<Spanned<Raw>>,
    ) -> Result<Option<String>, FrontmatterError> {
        let Some(value) = value else {
            return Ok(None);
        };
        match &value.value {
            Raw::Value(Value::Null) => Ok(None),
            Raw::Value(raw @ (Value::String(_) | Value::Number(_) | Value::Bool(_))) => {
                Ok(self.text(raw, value.defined))
            }
            _ => Err(FrontmatterError::yaml(
                Some(value.referenced),
                format!(
                    "`{key}` must be text, but it is {}",
                    self.describe_raw(&value)
                ),
                &format!(
                    "write `{key}:` followed by plain text on one line, and quote it if it \
                     starts with `[`, `{{` or another special character"
                ),
            )),
        }
    }

    /// `allowed-tools` is a string of tool names separated by spaces or
    /// commas, or a list of such strings. Tool names are text: a number,
    /// boolean, null, nested list or mapping is a shape error at its line.
    fn allowed_tools(
        &self,
        key: &str,
        value: Spanned<Raw>,
    ) -> Result<Vec<String>, FrontmatterError> {
        const FIX: &str = "list tool names as text, such as `allowed-tools: Read Grep` or one \
                           `- Bash(git status:*)` line per tool, and quote a name YAML would \
                           read as a number, boolean or null";
        let items = match &value.value {
            Raw::Value(Value::Null) => return Ok(Vec::new()),
            Raw::Value(Value::String(text)) => return split_tools(text, key, value.referenced),
            Raw::List(items) => items,
            Raw::Value(_) => {
                return Err(FrontmatterError::yaml(
                    Some(value.referenced),
                    format!(
                        "`{key}` must be tool names, but it is {}",
                        self.describe_raw(&value)
                    ),
                    FIX,
                ))
            }
        };
        let mut tools = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let Value::String(text) = &item.value else {
                return Err(FrontmatterError::yaml(
                    Some(item.referenced),
                    format!(
                        "item {} of `{key}` must be a tool name, but it is {}",
                        index + 1,
                        self.describe(&item.value, item.defined)
                    ),
                    FIX,
                ));
            };
            tools.extend(split_tools(text, key, item.referenced)?);
        }
        Ok(tools)
    }

    /// `metadata` is a mapping, kept as JSON.
    fn metadata(&self, value: Option<Spanned<Raw>>) -> Result<JsonMap, FrontmatterError> {
        let Some(value) = value else {
            return Ok(JsonMap::new());
        };
        match value.value {
            Raw::Value(Value::Null) => Ok(JsonMap::new()),
            Raw::Value(Value::Object(map)) => Ok(map),
            _ => Err(FrontmatterError::yaml(
                Some(value.referenced),
                format!(
                    "`metadata` must be a mapping, but it is {}",
                    self.describe_raw(&value)
                ),
                "write `metadata:` followed by indented `key: value` lines, such as \
                 `  author: ada`",
            )),
        }
    }
}

/// How serde-saphyr reads frontmatter: its default budgets and alias
/// limits (so alias bombs and deep nesting fail fast), duplicate keys as
/// errors, and YAML 1.2-like typing of plain scalars in `metadata`.
fn options() -> Options {
    let mut options = Options::default();
    options.non_finite_float_policy = NonFiniteFloatPolicy::AsString;
    options.strict_booleans = true;
    options.leading_zero_numbers_as_strings = true;
    options.underscored_numbers_as_strings = true;
    options.with_snippet = false;
    options
}

fn parse_yaml(yaml: &str) -> Result<Frontmatter, FrontmatterError> {
    if let Some(error) = control_character(yaml) {
        return Err(error);
    }
    let keys: Option<Keys> = serde_saphyr::from_str_with_options(yaml, options())
        .map_err(|error| yaml_error(yaml, &error))?;
    let Some(keys) = keys else {
        return Ok(Frontmatter::default());
    };
    let reader = Reader { yaml };
    // `allowed-tools` and `allowed_tools` are one key.
    if let Some((first, earlier, key, later)) = keys.repeated_allowed_tools {
        return Err(FrontmatterError::yaml(
            Some(later),
            format!(
                "`{key}` repeats `{first}` (set on line {})",
                earlier.line().saturating_add(1)
            ),
            &format!("keep one `{key}:` line"),
        ));
    }
    let allowed_tools = match keys.allowed_tools {
        Some(tools) => reader.allowed_tools(tools.key, tools.value)?,
        None => Vec::new(),
    };
    Ok(Frontmatter {
        name: reader.text_field("name", keys.name)?,
        description: reader.text_field("description", keys.description)?,
        license: non_empty(reader.text_field("license", keys.license)?),
        compatibility: non_empty(reader.text_field("compatibility", keys.compatibility)?),
        allowed_tools,
        metadata: reader.metadata(keys.metadata)?,
    })
}

fn non_empty(value: Option<String>) -> Option<String> {
    value
        .map(|value| value.trim().to_string())
        .filter(|value| !value.is_empty())
}

/// The first control character in the YAML other than tab and line
/// breaks, named by code point at its line and column. YAML allows none
/// of them anywhere (the parser would print Rust's `\u{0}` escape, at the
/// start of the value rather than at the character).
fn control_character(yaml: &str) -> Option<FrontmatterError> {
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
fn tab_indented_line(yaml: &str, at: Option<Location>, tab_error: bool) -> Option<u64> {
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

/// A serde-saphyr error in words for skill authors: what, where and how
/// to fix it, with no parser internals (option names, `Debug` dumps).
fn yaml_error(yaml: &str, error: &YamlError) -> FrontmatterError {
    const QUOTE: &str = "fix the YAML between the `---` lines (quote values that contain `: ` \
                         or start with a special character)";
    const ALIASES: &str = "write the values out, or use fewer aliases (`*name`) of large \
                           anchored values";
    const DEEP: &str = "flatten the structure";
    const TAB: &str = "a tab is used for indentation";
    const TAB_FIX: &str = "indent with spaces, not tabs";
    let at = error.location();
    let mut error = error.without_snippet();
    let through_alias = matches!(error, YamlError::AliasError { .. });
    while let YamlError::AliasError { error: inner, .. } = error {
        error = inner.without_snippet();
    }
    let (what, fix) = match error {
        YamlError::DuplicateMappingKey { key: Some(key), .. } => {
            let key = quoted(key, 40);
            return FrontmatterError::yaml(
                at,
                format!("`{key}` is set a second time"),
                &format!("keep one `{key}:` line"),
            );
        }
        YamlError::DuplicateMappingKey { key: None, .. } => {
            ("a key is set a second time", "keep one of the two lines")
        }
        YamlError::NullIntoString { .. } => (
            "a key is null (`~`, `null` or empty), which cannot be read, even under keys \
             this crate ignores",
            "quote the key, such as `'~': value`, or remove the line",
        ),
        YamlError::TaggedScalarCannotDeserializeIntoString { .. } => (
            "a tagged value (such as `!!timestamp 2001-12-14`) cannot be read, even under a \
             key this crate ignores",
            "quote the value instead of tagging it, such as `created: '2001-12-14'`",
        ),
        YamlError::InvalidBinaryBase64 { .. } | YamlError::BinaryNotUtf8 { .. } => (
            "a `!!binary` value is not base64-encoded UTF-8 text",
            "quote the value instead of tagging it",
        ),
        YamlError::InvalidScalar { .. } | YamlError::InvalidBooleanStrict { .. } => (
            "a tagged value does not fit its tag (such as `!!int two`)",
            "quote the value instead of tagging it",
        ),
        YamlError::Unexpected {
            expected: "mapping start",
            ..
        } => (
            "the frontmatter is not a set of `key: value` lines",
            "write it as `key: value` lines, such as `name: my-skill` and `description: ...`",
        ),
        YamlError::Unexpected {
            expected: "string scalar",
            ..
        } => (
            "a key is a list or mapping",
            "keys must be text, such as `author: ada`",
        ),
        YamlError::MultipleDocuments { .. } => (
            "a second YAML document starts",
            "the frontmatter must be one block of `key: value` lines; remove the `...` \
             (or `--- ...`) line before it",
        ),
        YamlError::UnknownAnchor { .. } => (
            "an alias (`*name`) refers to an anchor (`&name`) that is not defined above it",
            "define the anchor first, or quote the value if `*` is meant literally",
        ),
        YamlError::RecursiveReferencesRequireWeakTypes { .. } => (
            "an alias (`*name`) refers to a value that contains it",
            "write the value out instead of using the alias (loops cannot be read)",
        ),
        YamlError::AliasReplayLimitExceeded { .. }
        | YamlError::AliasExpansionLimitExceeded { .. }
        | YamlError::AliasReplayStackDepthExceeded { .. }
        | YamlError::AliasReplayCounterOverflow { .. } => {
            ("aliases (`*name`) expand to too many values", ALIASES)
        }
        YamlError::Budget { breach, .. } => match breach {
            BudgetBreach::Depth { .. } => ("values are nested too deeply", DEEP),
            BudgetBreach::Aliases { .. }
            | BudgetBreach::Anchors { .. }
            | BudgetBreach::AliasAnchorRatio { .. }
            | BudgetBreach::RecordedAnchorEvents { .. }
            | BudgetBreach::RecordedAnchorBytes { .. } => {
                ("aliases (`*name`) are used too often", ALIASES)
            }
            _ if through_alias => ("aliases (`*name`) expand to too many values", ALIASES),
            _ => (
                "the frontmatter holds too many values",
                "keep the frontmatter short and move data into the body or a separate file",
            ),
        },
        YamlError::ExternalMessage { source, msg, .. } => {
            let kind = match source.as_ref() {
                ExternalMessageSource::Parser(scan) => Some(scan.kind()),
                _ => None,
            };
            let tab_error = matches!(
                kind,
                Some(
                    ErrorKind::TabNotAllowed
                        | ErrorKind::TabInBlockIndentation
                        | ErrorKind::TabInIndentation
                        | ErrorKind::TabInPlainScalar
                        | ErrorKind::TabAtBlockScalarStart
                )
            );
            if kind.is_some() {
                if let Some(line) = tab_indented_line(yaml, at, tab_error) {
                    return FrontmatterError::yaml_at(Some((line, 1)), TAB, TAB_FIX);
                }
            }
            match kind {
                _ if tab_error => (TAB, TAB_FIX),
                Some(ErrorKind::UnexpectedCharacter { character }) => {
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
                Some(ErrorKind::UnclosedQuotedScalar) => (
                    "a quoted value is never closed",
                    "add the closing quote, or double a `'` inside a single-quoted value (`''`)",
                ),
                Some(ErrorKind::RecursionLimitExceeded) => ("values are nested too deeply", DEEP),
                _ => return FrontmatterError::yaml(at, quoted(msg, 200), QUOTE),
            }
        }
        other => {
            let message = UserMessageFormatter.format_message(other);
            return FrontmatterError::yaml(at, quoted(&message, 200), QUOTE);
        }
    };
    FrontmatterError::yaml(at, what, fix)
}

/// Unicode noncharacters (U+FFFE, U+FDD0, ...), which YAML rejects and
/// which show as nothing or a box.
fn is_noncharacter(c: char) -> bool {
    let c = u32::from(c);
    (0xFDD0..=0xFDEF).contains(&c) || c & 0xFFFE == 0xFFFE
}

/// Splits tool names on whitespace and commas outside parentheses, so
/// Claude-style patterns such as `Bash(git commit:*)` stay whole.
fn split_tools(text: &str, key: &str, at: Location) -> Result<Vec<String>, FrontmatterError> {
    let mut tools = Vec::new();
    let mut current = String::new();
    let mut depth = 0_usize;
    for c in text.chars() {
        match c {
            '(' => {
                depth += 1;
                current.push(c);
            }
            ')' => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            _ if depth == 0 && (c.is_whitespace() || c == ',') => {
                if !current.is_empty() {
                    tools.push(std::mem::take(&mut current));
                }
            }
            _ => current.push(c),
        }
    }
    if depth > 0 {
        return Err(FrontmatterError::yaml(
            Some(at),
            format!("`{key}` has an unclosed `(` in `{}`", quoted(&current, 40)),
            "close the parenthesis, as in `Bash(git status:*)`",
        ));
    }
    if !current.is_empty() {
        tools.push(current);
    }
    Ok(tools)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> ParsedSkillFile {
        match parse_skill_file(text) {
            Ok(parsed) => parsed,
            Err(error) => panic!("{text:?} did not parse: {error:?}"),
        }
    }

    fn error(text: &str) -> FrontmatterError {
        match parse_skill_file(text) {
            Ok(parsed) => panic!("{text:?} parsed: {parsed:?}"),
            Err(error) => error,
        }
    }

    #[test]
    fn reads_fields_and_trims_the_body() {
        let parsed =
            parse("---\nname: research\ndescription: Gather sources\n---\n\n  Body text.\n\n");
        assert_eq!(parsed.frontmatter.name.as_deref(), Some("research"));
        assert_eq!(
            parsed.frontmatter.description.as_deref(),
            Some("Gather sources")
        );
        assert_eq!(parsed.body.as_deref(), Some("Body text."));
    }

    #[test]
    fn empty_body_is_none() {
        assert_eq!(parse("---\nname: a\n---\n").body, None);
        assert_eq!(parse("---\nname: a\n---").body, None);
        assert_eq!(parse("---\nname: a\n---\n \n\t\n").body, None);
    }

    #[test]
    fn crlf_bom_and_trailing_spaces_are_tolerated() {
        let parsed =
            parse("\u{feff}---  \r\nname: a\r\ndescription: b\r\n--- \r\nline one\r\nline two\r\n");
        assert_eq!(parsed.frontmatter.name.as_deref(), Some("a"));
        assert_eq!(parsed.frontmatter.description.as_deref(), Some("b"));
        assert_eq!(parsed.body.as_deref(), Some("line one\nline two"));
        let old_mac = parse("---\rname: a\rdescription: b\r---\rbody\r");
        assert_eq!(old_mac.body.as_deref(), Some("body"));
    }

    #[test]
    fn optional_fields() {
        let parsed = parse(
            "---\nname: a\ndescription: b\nlicense: MIT\ncompatibility: ' needs git '\n\
             allowed-tools: Bash(git:*) Read, Grep\nmetadata:\n  author: ada\n  version: 2\n---\n",
        );
        let frontmatter = parsed.frontmatter;
        assert_eq!(frontmatter.license.as_deref(), Some("MIT"));
        assert_eq!(frontmatter.compatibility.as_deref(), Some("needs git"));
        assert_eq!(frontmatter.allowed_tools, ["Bash(git:*)", "Read", "Grep"]);
        assert_eq!(frontmatter.metadata["author"], "ada");
        assert_eq!(frontmatter.metadata["version"], 2);
        let listed = parse("---\nallowed-tools: [read_file, grep]\n---\n").frontmatter;
        assert_eq!(listed.allowed_tools, ["read_file", "grep"]);
    }

    #[test]
    fn unknown_keys_and_odd_scalars_are_tolerated() {
        let parsed = parse("---\nname: a\ndescription: b\nversion: 1.2\ntags: [x, y]\n7: seven\nnested: {k: [1, 2]}\n---\n");
        assert_eq!(parsed.frontmatter.name.as_deref(), Some("a"));
        // Scalars of other types read as their text.
        let numbers = parse("---\nname: 42\ndescription: true\n---\n").frontmatter;
        assert_eq!(numbers.name.as_deref(), Some("42"));
        assert_eq!(numbers.description.as_deref(), Some("true"));
    }

    #[test]
    fn empty_or_null_frontmatter_has_no_fields() {
        assert_eq!(parse("---\n---\nbody").frontmatter, Frontmatter::default());
        assert_eq!(parse("---\n  \n---\n").frontmatter, Frontmatter::default());
        assert_eq!(
            parse("---\nname: ~\ndescription:\n---\n").frontmatter,
            Frontmatter::default()
        );
    }

    #[test]
    fn missing_frontmatter_says_what_is_there() {
        assert_eq!(
            error(""),
            FrontmatterError::Missing {
                found: "the file is empty".to_string()
            }
        );
        assert_eq!(
            error(" \n\n"),
            FrontmatterError::Missing {
                found: "the file is empty".to_string()
            }
        );
        assert_eq!(
            error("\n---\nname: a\n---\n"),
            FrontmatterError::Missing {
                found: "the first line is blank".to_string()
            }
        );
        assert_eq!(
            error("# Research\n"),
            FrontmatterError::Missing {
                found: "the first line is `# Research`".to_string()
            }
        );
        let long = format!("{}\n", "x".repeat(500));
        match error(&long) {
            FrontmatterError::Missing { found } => assert!(found.chars().count() < 70, "{found}"),
            other => panic!("{other:?}"),
        }
        // `----` and `--- x` are not delimiters.
        assert!(matches!(error("----\n"), FrontmatterError::Missing { .. }));
    }

    #[test]
    fn indented_or_invisible_prefixed_fences_are_explained() {
        let found = |text: &str| match error(text) {
            FrontmatterError::Missing { found } => found,
            other => panic!("{other:?}"),
        };
        let indented = found("  ---\nname: a\n---\n");
        assert!(
            indented.contains("`  ---` is indented by 2 spaces"),
            "{indented}"
        );
        let hidden = found("\u{200b}---\nname: a\n---\n");
        assert!(hidden.contains("`<U+200B>---`"), "{hidden}");
        assert!(hidden.contains("invisible character U+200B"), "{hidden}");
        let control = found("a\u{7}b\n");
        assert_eq!(control, "the first line is `a<U+0007>b`");
    }

    #[test]
    fn unknown_keys_never_matter() {
        let parsed = parse(
            "---\nname: a\ndescription: b\ntimeout: .inf\nratio: 1e999\n\
             blob: !!binary aGVsbG8=\ncustom: !thing {x: [1, 2]}\n7: seven\n---\n",
        );
        assert_eq!(parsed.frontmatter.name.as_deref(), Some("a"));
        assert_eq!(parsed.frontmatter.description.as_deref(), Some("b"));
    }

    /// serde-saphyr reads every value, so a few things YAML allows reject
    /// the skill even under keys this crate ignores; the message says where
    /// and how to fix it.
    #[test]
    fn values_serde_saphyr_cannot_read_are_explained() {
        for (extra, line, column, needle) in [
            ("created: !!timestamp 2001-12-14", 4, 22, "quote the value"),
            ("~: nothing", 4, 1, "quote the key"),
            ("? [complex, key]\n: v", 4, 3, "keys must be text"),
            ("loop: &l [*l]", 4, 11, "loops cannot be read"),
            ("dup: 1\ndup: 2", 5, 1, "keep one `dup:` line"),
        ] {
            match error(&format!("---\nname: a\ndescription: b\n{extra}\n---\n")) {
                FrontmatterError::Yaml {
                    message,
                    line: found_line,
                    column: found_column,
                } => {
                    assert_eq!(
                        (found_line, found_column),
                        (Some(line), Some(column)),
                        "{message}"
                    );
                    let at = format!("at line {line}, column {column}");
                    assert!(message.contains(&at), "{message}");
                    assert!(message.contains(needle), "{message}");
                }
                other => panic!("{extra}: {other:?}"),
            }
        }
    }

    #[test]
    fn metadata_types_plain_scalars_like_yaml_1_2() {
        let metadata = parse(
            "---\nmetadata:\n  big: 1e999\n  inf: .inf\n  zip: 007\n  sep: 1_000\n\
             \x20 tag: !custom v\n  n: 2\n  x: 1.5\n  on: true\n  yes: yes\n  none: ~\n\
             \x20 1: one\n---\n",
        )
        .frontmatter
        .metadata;
        assert_eq!(metadata["big"], ".inf");
        assert_eq!(metadata["inf"], ".inf");
        assert_eq!(metadata["zip"], "007");
        assert_eq!(metadata["sep"], "1_000");
        assert_eq!(metadata["tag"], "v");
        assert_eq!(metadata["n"], 2);
        assert_eq!(metadata["x"], 1.5);
        assert_eq!(metadata["on"], true);
        assert_eq!(metadata["yes"], "yes");
        assert_eq!(metadata["none"], serde_json::Value::Null);
        assert_eq!(metadata["1"], "one");
    }

    #[test]
    fn text_fields_keep_scalars_as_written() {
        let frontmatter =
            parse("---\nname: 007\ndescription: 1.10\nlicense: No\ncompatibility: 0x1F\n---\n")
                .frontmatter;
        assert_eq!(frontmatter.name.as_deref(), Some("007"));
        assert_eq!(frontmatter.description.as_deref(), Some("1.10"));
        assert_eq!(frontmatter.license.as_deref(), Some("No"));
        assert_eq!(frontmatter.compatibility.as_deref(), Some("0x1F"));
    }

    #[test]
    fn allowed_tools_split_outside_parentheses() {
        let tools = |value: &str| {
            parse(&format!("---\nallowed-tools: {value}\n---\n"))
                .frontmatter
                .allowed_tools
        };
        assert_eq!(
            tools("Bash(git commit:*) Read, Grep"),
            ["Bash(git commit:*)", "Read", "Grep"]
        );
        assert_eq!(
            tools("[\"Bash(git diff, git log)\", 'Read Grep']"),
            ["Bash(git diff, git log)", "Read", "Grep"]
        );
        assert_eq!(
            tools("\n  - Bash(npm run test:*)\n  - Edit"),
            ["Bash(npm run test:*)", "Edit"]
        );
        assert!(tools("").is_empty());
        for bad in [
            "7",
            "true",
            "[Read, [Bash]]",
            "[Read, ~]",
            "[Read, 7]",
            "{a: 1}",
            "Bash(git",
        ] {
            let content = format!("---\nallowed-tools: {bad}\n---\n");
            match error(&content) {
                FrontmatterError::Yaml { message, line, .. } => {
                    assert_eq!(line, Some(2), "{bad}: {message}");
                    assert!(message.contains("`allowed-tools`"), "{bad}: {message}");
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
    }

    #[test]
    fn duplicate_known_keys_are_errors_unless_merged() {
        match error("---\nallowed_tools: a\nallowed-tools: b\n---\n") {
            FrontmatterError::Yaml { message, line, .. } => {
                assert_eq!(line, Some(3));
                assert!(message.contains("repeats `allowed_tools`"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        let merged = parse("---\nx-base: &b {license: MIT, name: base}\n<<: *b\nname: a\n---\n");
        assert_eq!(merged.frontmatter.name.as_deref(), Some("a"));
        assert_eq!(merged.frontmatter.license.as_deref(), Some("MIT"));
    }

    /// The two spellings of `allowed-tools` are one key: an explicit line
    /// wins over a merged value (wherever the `<<` is), the first merged
    /// value wins over later ones, and two explicit lines are a repeat
    /// even when a merge sets the key too.
    #[test]
    fn explicit_allowed_tools_win_over_merged_ones() {
        let tools = |yaml: &str| {
            parse(&format!("---\n{yaml}\n---\n"))
                .frontmatter
                .allowed_tools
        };
        assert_eq!(
            tools("base: &b {allowed_tools: Read}\n<<: *b\nallowed-tools: Grep"),
            ["Grep"]
        );
        assert_eq!(
            tools("allowed-tools: Grep\n<<: {allowed_tools: Read}"),
            ["Grep"]
        );
        assert_eq!(
            tools("<<: {allowed-tools: Read}\nallowed_tools: Grep"),
            ["Grep"]
        );
        assert_eq!(
            tools("t: &t [Grep]\nallowed-tools: *t\n<<: {allowed_tools: Read}"),
            ["Grep"]
        );
        assert_eq!(
            tools("b: &b {allowed_tools: Read}\nc: &c {<<: *b}\n<<: *c\nallowed-tools: Grep"),
            ["Grep"]
        );
        assert_eq!(
            tools("<<: [{allowed_tools: Read}, {allowed-tools: Grep}]"),
            ["Read"]
        );
        assert_eq!(tools("<<: {allowed_tools: Read}"), ["Read"]);
        match error("---\nallowed-tools: a\n<<: {allowed_tools: c}\nallowed_tools: b\n---\n") {
            FrontmatterError::Yaml { message, line, .. } => {
                assert_eq!(line, Some(4), "{message}");
                assert!(
                    message.contains("`allowed_tools` repeats `allowed-tools` (set on line 2)"),
                    "{message}"
                );
                assert!(
                    message.contains("keep one `allowed_tools:` line"),
                    "{message}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    /// A line that starts with a tab is reported on that line, column 1,
    /// with the tab fix, although the parser often reports the value
    /// before it. Tab-led lines the parser accepts still load.
    #[test]
    fn tab_indented_lines_are_reported_on_their_line() {
        for (yaml, line) in [
            ("name: a\n\tlicense: MIT", 3),
            ("name: a\ndescription: |\n  text\n\tmore", 5),
            ("description: |\n\ttext", 3),
            ("allowed-tools:\n\t- Read", 3),
            ("metadata:\n  a: 1\n\tb: 2", 4),
            ("description: x\n  y\n\tz", 4),
            ("name: [a]\n\tlicense: MIT", 3),
            ("description: \"x\n\ty\"\n\tlicense: MIT", 4),
        ] {
            match error(&format!("---\n{yaml}\n---\n")) {
                FrontmatterError::Yaml {
                    message,
                    line: found_line,
                    column,
                } => {
                    assert_eq!(
                        (found_line, column),
                        (Some(line), Some(1)),
                        "{yaml:?}: {message}"
                    );
                    assert!(
                        message.contains(&format!("at line {line}, column 1")),
                        "{message}"
                    );
                    assert!(
                        message.contains("indent with spaces, not tabs"),
                        "{message}"
                    );
                }
                other => panic!("{yaml:?}: {other:?}"),
            }
        }
        for yaml in [
            "description: \"x\n\ty\"",
            "metadata: {a: 1,\n\tb: 2}",
            "name: a\n\t\ndescription: b",
            "name: a\n\t# comment",
        ] {
            let _ = parse(&format!("---\n{yaml}\n---\n"));
        }
    }

    /// Control characters other than tab and line breaks are named by
    /// code point at their own line and column, with the fix to remove
    /// them; so are the noncharacters YAML rejects.
    #[test]
    fn control_characters_are_named_by_code_point() {
        for (yaml, shown, line, column) in [
            ("name: a\nnote: x\0y", "<U+0000>", 3, 8),
            ("# \u{1}\nname: a", "<U+0001>", 2, 3),
            ("name: 'a\u{7f}'", "<U+007F>", 2, 9),
            ("description: a\u{85}b", "<U+0085>", 2, 15),
            ("description: \"\u{1b}[31m\"", "<U+001B>", 2, 15),
            ("name: é\u{c}", "<U+000C>", 2, 8),
            ("name: a\u{fffe}", "<U+FFFE>", 2, 7),
        ] {
            match error(&format!("---\n{yaml}\n---\n")) {
                FrontmatterError::Yaml {
                    message,
                    line: found_line,
                    column: found_column,
                } => {
                    assert_eq!(
                        (found_line, found_column),
                        (Some(line), Some(column)),
                        "{yaml:?}: {message}"
                    );
                    assert!(message.contains(shown), "{message}");
                    assert!(message.ends_with("; remove it"), "{message}");
                    assert!(!message.contains("\\u{"), "{message}");
                    assert!(!message.chars().any(char::is_control), "{message:?}");
                }
                other => panic!("{yaml:?}: {other:?}"),
            }
        }
        match error("---\nname: @a\n---\n") {
            FrontmatterError::Yaml { message, .. } => {
                assert!(message.contains("cannot start with `@`"), "{message}");
                assert!(message.contains("quote it"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn unclosed_frontmatter() {
        assert_eq!(error("---\nname: a\n"), FrontmatterError::Unclosed);
        assert_eq!(error("---"), FrontmatterError::Unclosed);
        assert_eq!(error("---\nname: a\n--- x\n"), FrontmatterError::Unclosed);
    }

    #[test]
    fn yaml_errors_carry_file_lines() {
        match error("---\nname: a\ndescription: b: c\n---\n") {
            FrontmatterError::Yaml {
                message,
                line,
                column,
            } => {
                assert_eq!(line, Some(3));
                assert_eq!(column, Some(15));
                assert!(message.contains("line 3"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            error("---\n- a\n- b\n---\n"),
            FrontmatterError::Yaml { line: Some(2), .. }
        ));
        assert!(matches!(
            error("---\nname: a\nname: b\n---\n"),
            FrontmatterError::Yaml { line: Some(3), .. }
        ));
        assert!(matches!(
            error("---\nname: [a\n---\n"),
            FrontmatterError::Yaml { .. }
        ));
        assert!(matches!(
            error("---\ndescription: {a: 1}\n---\n"),
            FrontmatterError::Yaml { .. }
        ));
        assert!(matches!(
            error("---\nmetadata: [1, 2]\n---\n"),
            FrontmatterError::Yaml { .. }
        ));
        assert!(matches!(
            error("---\nallowed-tools: {a: 1}\n---\n"),
            FrontmatterError::Yaml { .. }
        ));
    }

    #[test]
    fn alias_bombs_fail_instead_of_expanding() {
        let mut yaml = String::from("---\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for level in 1..12 {
            let previous = level - 1;
            yaml.push_str(&format!(
                "a{level}: &a{level} [{}]\n",
                vec![format!("*a{previous}"); 10].join(", ")
            ));
        }
        yaml.push_str("metadata: {bomb: *a11}\n---\n");
        assert!(parse_skill_file(&yaml).is_err());
        // The classic nine-line bomb (10^9 values) under keys nobody reads.
        let mut bomb = String::from("---\na: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for pair in ["ab", "bc", "cd", "de", "ef", "fg", "gh", "hi"] {
            let (from, to) = pair.split_at(1);
            let items = vec![format!("*{from}"); 9].join(", ");
            bomb.push_str(&format!("{to}: &{to} [{items}]\n"));
        }
        bomb.push_str("---\n");
        match error(&bomb) {
            FrontmatterError::Yaml { message, line, .. } => {
                assert!(line.is_some(), "{message}");
                assert!(message.contains("aliases (`*name`)"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn deep_nesting_and_alias_loops_fail() {
        let deep = format!(
            "---\nmetadata: {}{}\n---\n",
            "[".repeat(100),
            "]".repeat(100)
        );
        assert!(matches!(error(&deep), FrontmatterError::Yaml { .. }));
        match error("---\nname: &x [*x]\n---\n") {
            FrontmatterError::Yaml { message, .. } => {
                assert!(message.contains("contains it"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn messages_never_leak_parser_internals() {
        for content in [
            "---\nname: a\nname: b\n---\n",
            "---\nname: !!int two\n---\n",
            "---\n- a\n---\n",
            "---\na: 1\n...\nb: 2\n---\n",
            "---\nmetadata: {[a]: 1}\n---\n",
            "---\na: *missing\n---\n",
        ] {
            match error(content) {
                FrontmatterError::Yaml { message, line, .. } => {
                    assert!(line.is_some(), "{content:?}: {message}");
                    for internal in ["Options", "Policy", "u64", "from_str", "String>", "{ "] {
                        assert!(!message.contains(internal), "{content:?}: {message}");
                    }
                }
                other => panic!("{content:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn never_panics_on_odd_input() {
        let inputs = [
            "---\n\0\n---\n",
            "---\n\u{feff}name: a\n---\n",
            "---\n:\n---\n",
            "---\n? [a]\n: b\n---\n",
            "---\n!!binary aGVsbG8=\n---\n",
            "---\n---\n---\n",
            "---\r\n",
            "\u{feff}",
            "---\n'unterminated\n---\n",
            "---\nname: \"\\uD800\"\n---\n",
        ];
        for input in inputs {
            let _ = parse_skill_file(input);
        }
        let huge = format!("---\ndescription: {}\n---\n", "word ".repeat(100_000));
        let parsed = parse(&huge);
        assert!(parsed.frontmatter.description.is_some());
    }
}

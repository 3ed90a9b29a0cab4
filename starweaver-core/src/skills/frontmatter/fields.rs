//! The known frontmatter keys, read with their positions whatever
//! their shape.

use super::*;

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
pub(super) struct Keys {
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
pub(super) struct AllowedTools {
    key: &'static str,
    value: Spanned<Raw>,
    merged: bool,
}

pub(super) const KNOWN_KEYS: &[&str] = &[
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

pub(super) struct KeysVisitor;

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
pub(super) enum Raw {
    Value(Value),
    List(Vec<Spanned<Value>>),
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(RawVisitor)
    }
}

pub(super) struct RawVisitor;

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
pub(super) struct Reader<'y> {
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
pub(super) fn options() -> Options {
    let mut options = Options::default();
    options.non_finite_float_policy = NonFiniteFloatPolicy::AsString;
    options.strict_booleans = true;
    options.leading_zero_numbers_as_strings = true;
    options.underscored_numbers_as_strings = true;
    options.with_snippet = false;
    options
}

pub(super) fn parse_yaml(yaml: &str) -> Result<Frontmatter, FrontmatterError> {
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

pub(super) fn non_empty(value: Option<String>) -> Option<String> {
    value
        .map(|value| value.trim().to_string())
        .filter(|value| !value.is_empty())
}

/// Splits tool names on whitespace and commas outside parentheses, so
/// Claude-style patterns such as `Bash(git commit:*)` stay whole.
pub(super) fn split_tools(
    text: &str,
    key: &str,
    at: Location,
) -> Result<Vec<String>, FrontmatterError> {
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

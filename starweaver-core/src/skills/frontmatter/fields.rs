//! The known frontmatter keys, read with their positions whatever
//! their shape.

use super::*;

/// The known keys, each kept whatever its shape. A key that is present
/// is `Some`, even when its value is null.
///
/// The tree expands `<<` merges: a merged key that is also set
/// explicitly (or by an earlier merge) is dropped, and merged entries
/// come after the explicit ones. It compares keys as written, so
/// `allowed-tools` and `allowed_tools` can both arrive here, and
/// [`Keys::set_allowed_tools`] keeps one, recording two explicit lines as
/// a repeat for [`parse_yaml`] to report.
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

/// A value with where it is used (an alias's place, for a value an
/// alias brings in), and its text as written when it is a scalar.
pub(super) struct Spanned<T> {
    pub value: T,
    pub referenced: Location,
    pub source: Option<String>,
}

impl Keys {
    /// The known keys of the frontmatter's root; `None` when it is empty or
    /// null. Every key must be text.
    pub(super) fn read(root: Option<&Node>) -> Result<Option<Self>, TreeError> {
        let Some(root) = root else {
            return Ok(None);
        };
        let entries = match root.kind.as_ref() {
            Kind::Mapping(entries) => entries,
            Kind::Scalar {
                value: Value::Null, ..
            } => return Ok(None),
            _ => {
                return Err(TreeError::NotAMapping {
                    at: root.referenced,
                })
            }
        };
        let mut keys = Keys::default();
        for entry in entries {
            let key = key_text(&entry.key)?;
            let slot = match key {
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
                    keys.set_allowed_tools(spelling, raw(&entry.value)?, entry.merged);
                    continue;
                }
                _ => continue,
            };
            // The tree refuses a key written twice and drops a merged key
            // that is also explicit, so each known key comes once.
            *slot = Some(raw(&entry.value)?);
        }
        Ok(Some(keys))
    }

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

/// A key's text: keys are read as text, so a null key or a list or
/// mapping as a key cannot be read.
fn key_text(key: &Node) -> Result<&str, TreeError> {
    match key.kind.as_ref() {
        Kind::Scalar {
            value: Value::Null, ..
        } => Err(TreeError::NullKey { at: key.referenced }),
        Kind::Scalar { text, .. } => Ok(text),
        _ => Err(TreeError::ComplexKey { at: key.referenced }),
    }
}

fn spanned<T>(node: &Node, value: T) -> Spanned<T> {
    Spanned {
        value,
        referenced: node.referenced,
        source: match node.kind.as_ref() {
            Kind::Scalar { text, .. } => Some(text.clone()),
            _ => None,
        },
    }
}

/// A known key's value: a list keeps its items' locations.
fn raw(node: &Node) -> Result<Spanned<Raw>, TreeError> {
    let value = match node.kind.as_ref() {
        Kind::Sequence(items) => Raw::List(
            items
                .iter()
                .map(|item| Ok(spanned(item, to_json(item)?)))
                .collect::<Result<_, TreeError>>()?,
        ),
        _ => Raw::Value(to_json(node)?),
    };
    Ok(spanned(node, value))
}

/// A node as JSON; mapping keys must be text.
fn to_json(node: &Node) -> Result<Value, TreeError> {
    match node.kind.as_ref() {
        Kind::Scalar { value, .. } => Ok(value.clone()),
        Kind::Sequence(items) => items
            .iter()
            .map(to_json)
            .collect::<Result<_, _>>()
            .map(Value::Array),
        Kind::Mapping(entries) => {
            let mut map = JsonMap::new();
            for entry in entries {
                map.insert(key_text(&entry.key)?.to_string(), to_json(&entry.value)?);
            }
            Ok(Value::Object(map))
        }
    }
}

/// Reads a value's text and describes it.
pub(super) struct Reader;

impl Reader {
    /// A scalar as written: text as parsed, numbers and booleans with
    /// their spelling in the file (`1.10`, not `1.1`).
    fn text(&self, value: &Value, source: Option<&str>) -> Option<String> {
        match value {
            Value::String(text) => Some(text.clone()),
            Value::Number(_) | Value::Bool(_) => {
                Some(source.map_or_else(|| value.to_string(), str::to_string))
            }
            _ => None,
        }
    }

    /// The value's type in words, for messages.
    fn describe(&self, value: &Value, source: Option<&str>) -> String {
        let text = || quoted(&self.text(value, source).unwrap_or_default(), 40);
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
            Raw::Value(raw) => self.describe(raw, value.source.as_deref()),
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
                Ok(self.text(raw, value.source.as_deref()))
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
                        self.describe(&item.value, item.source.as_deref())
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

pub(super) fn parse_yaml(yaml: &str) -> Result<Frontmatter, FrontmatterError> {
    if let Some(error) = control_character(yaml) {
        return Err(error);
    }
    let keys = compose(yaml)
        .and_then(|root| Keys::read(root.as_ref()))
        .map_err(|error| yaml_error(yaml, &error))?;
    let Some(keys) = keys else {
        return Ok(Frontmatter::default());
    };
    let reader = Reader;
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

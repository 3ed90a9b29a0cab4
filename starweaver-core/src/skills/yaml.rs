//! A small YAML node tree for frontmatter, built from the events of
//! `granit-parser` (the parser under `serde-saphyr`, which re-exports it).
//!
//! Frontmatter is read as nodes instead of being deserialized into a
//! struct so that keys this crate never reads can hold anything YAML
//! allows (`!!timestamp` values, `.inf`, null keys, ...) without rejecting
//! the skill: only the values of known keys are ever interpreted. Limits
//! on depth, size and alias expansion keep hostile files cheap to reject.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Number, Value};
use serde_saphyr::granit_parser::{
    ErrorKind, Event, Marker, Options, Parser, ScalarStyle, ScanError, Tag,
};

use super::frontmatter::FrontmatterError;
use super::text::quoted;

/// Deepest nesting of lists and mappings (serde-saphyr's default budget).
pub(crate) const MAX_DEPTH: usize = 64;

/// Most nodes in one frontmatter (serde-saphyr's default budget).
pub(crate) const MAX_NODES: usize = 250_000;

/// Most values that aliases (`*name`) may expand to in the fields read,
/// so an alias bomb fails instead of exhausting memory.
pub(crate) const MAX_ALIAS_VALUES: usize = 10_000;

const CORE_TAGS: &str = "tag:yaml.org,2002:";

/// A 1-based line and column of the SKILL.md file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Position {
    pub line: u64,
    pub column: u64,
}

impl Position {
    /// The YAML starts on line 2 of the file, after the opening `---`.
    fn from_marker(marker: &Marker) -> Self {
        let to_u64 = |value: usize| u64::try_from(value).unwrap_or(u64::MAX);
        Self {
            line: to_u64(marker.line()).saturating_add(1),
            column: to_u64(marker.col()).saturating_add(1),
        }
    }
}

/// The explicit tag of a scalar, reduced to what changes its meaning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ScalarTag {
    /// No tag: plain scalars are typed by the YAML 1.2 core schema.
    None,
    /// A `tag:yaml.org,2002:` tag (`!!str`, `!!int`, `!!timestamp`, ...),
    /// by its name.
    Core(String),
    /// The non-specific `!` tag: a string.
    NonSpecific,
    /// Any other (application) tag.
    Custom,
}

impl ScalarTag {
    fn of(tag: Option<&Tag>) -> Self {
        let Some(tag) = tag else {
            return Self::None;
        };
        if let Some(name) = tag.suffix_in_namespace(CORE_TAGS) {
            return Self::Core(name.into_owned());
        }
        match (tag.handle(), tag.suffix()) {
            ("", "!") | ("!", "") => Self::NonSpecific,
            _ => Self::Custom,
        }
    }

    fn is(&self, name: &str) -> bool {
        matches!(self, Self::Core(core) if core == name)
    }
}

/// One YAML node.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum NodeKind {
    Scalar {
        text: String,
        plain: bool,
        tag: ScalarTag,
    },
    Seq(Vec<usize>),
    /// Key and value node ids, in file order.
    Map(Vec<(usize, usize)>),
    /// An alias (`*name`), by anchor id.
    Alias(usize),
}

/// A node and where it starts.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    pub kind: NodeKind,
    pub at: Position,
}

impl Node {
    /// The node's type in words, for messages.
    pub(crate) fn describe(&self) -> String {
        match &self.kind {
            NodeKind::Seq(_) => "a list".to_string(),
            NodeKind::Map(_) => "a mapping".to_string(),
            NodeKind::Alias(_) => "an alias".to_string(),
            NodeKind::Scalar { text, plain, tag } => match scalar_value(text, *plain, tag) {
                Value::Null => "an empty value (null)".to_string(),
                Value::Bool(_) => format!("the boolean `{}`", quoted(text, 40)),
                Value::Number(_) => format!("the number `{}`", quoted(text, 40)),
                _ => format!("the text `{}`", quoted(text, 40)),
            },
        }
    }

    /// True for a null scalar (`~`, `null`, empty, `!!null`).
    pub(crate) fn is_null(&self) -> bool {
        match &self.kind {
            NodeKind::Scalar { text, plain, tag } => {
                tag.is("null") || (*tag == ScalarTag::None && *plain && is_null_text(text))
            }
            _ => false,
        }
    }
}

/// The parsed frontmatter: nodes by id, anchors and the root.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tree {
    nodes: Vec<Node>,
    anchors: HashMap<usize, usize>,
    root: Option<usize>,
}

/// A collection still receiving children while the tree is built.
struct Open {
    id: usize,
    key: Option<usize>,
}

impl Tree {
    /// Parses one YAML document (the text between the `---` lines).
    pub(crate) fn parse(yaml: &str) -> Result<Self, FrontmatterError> {
        let mut options = Options::default();
        options.set_emit_comments(false);
        let mut parser = Parser::new_from_str_with_options(yaml, options);
        let mut tree = Self::default();
        let mut open: Vec<Open> = Vec::new();
        let mut documents = 0_usize;
        while let Some(next) = parser.next_event() {
            let (event, span) = next.map_err(|error| syntax_error(&error))?;
            let at = Position::from_marker(&span.start);
            let id = match event {
                Event::DocumentStart(..) => {
                    documents += 1;
                    if documents > 1 {
                        return Err(FrontmatterError::yaml(
                            Some(at),
                            "a second YAML document starts",
                            "the frontmatter must be one block of `key: value` lines; \
                             remove the `...` (or `--- ...`) line before it",
                        ));
                    }
                    continue;
                }
                Event::Scalar(text, style, anchor, tag) => {
                    let kind = NodeKind::Scalar {
                        text: text.into_owned(),
                        plain: style == ScalarStyle::Plain,
                        tag: ScalarTag::of(tag.as_deref()),
                    };
                    tree.push(kind, at, anchor)?
                }
                Event::SequenceStart(_, anchor, _) | Event::MappingStart(_, anchor, _) => {
                    if open.len() >= MAX_DEPTH {
                        return Err(too_deep(at));
                    }
                    let kind = if matches!(event, Event::SequenceStart(..)) {
                        NodeKind::Seq(Vec::new())
                    } else {
                        NodeKind::Map(Vec::new())
                    };
                    let id = tree.push(kind, at, anchor)?;
                    open.push(Open { id, key: None });
                    continue;
                }
                Event::SequenceEnd | Event::MappingEnd => match open.pop() {
                    Some(closed) => closed.id,
                    None => continue,
                },
                Event::Alias(anchor) => tree.push(NodeKind::Alias(anchor), at, 0)?,
                _ => continue,
            };
            tree.attach(open.last_mut(), id);
        }
        Ok(tree)
    }

    fn push(
        &mut self,
        kind: NodeKind,
        at: Position,
        anchor: usize,
    ) -> Result<usize, FrontmatterError> {
        if self.nodes.len() >= MAX_NODES {
            return Err(FrontmatterError::yaml(
                Some(at),
                format!("the frontmatter holds more than {MAX_NODES} values"),
                "keep the frontmatter short and move data into the body or a separate file",
            ));
        }
        let id = self.nodes.len();
        self.nodes.push(Node { kind, at });
        if anchor != 0 {
            self.anchors.insert(anchor, id);
        }
        Ok(id)
    }

    fn attach(&mut self, parent: Option<&mut Open>, id: usize) {
        let Some(parent) = parent else {
            self.root.get_or_insert(id);
            return;
        };
        match self.nodes.get_mut(parent.id).map(|node| &mut node.kind) {
            Some(NodeKind::Seq(items)) => items.push(id),
            Some(NodeKind::Map(entries)) => match parent.key.take() {
                Some(key) => entries.push((key, id)),
                None => parent.key = Some(id),
            },
            _ => {}
        }
    }

    /// The document's root node id (`None` for an empty document).
    pub(crate) fn root(&self) -> Option<usize> {
        self.root
    }

    /// The node with this id.
    pub(crate) fn node(&self, id: usize) -> Option<&Node> {
        self.nodes.get(id)
    }

    /// The node with this id, following an alias to the node it names.
    pub(crate) fn resolve(&self, id: usize) -> Option<&Node> {
        match self.nodes.get(id) {
            Some(Node {
                kind: NodeKind::Alias(anchor),
                ..
            }) => self
                .anchors
                .get(anchor)
                .and_then(|target| self.nodes.get(*target)),
            other => other,
        }
    }

    /// The text of a scalar key (through an alias); `None` for lists and
    /// mappings used as keys.
    pub(crate) fn key_text(&self, id: usize) -> Option<&str> {
        match self.resolve(id).map(|node| &node.kind) {
            Some(NodeKind::Scalar { text, .. }) => Some(text),
            _ => None,
        }
    }

    fn is_merge_key(&self, id: usize) -> bool {
        matches!(
            self.node(id).map(|node| &node.kind),
            Some(NodeKind::Scalar { text, plain, tag })
                if text == "<<" && ((*plain && *tag == ScalarTag::None) || tag.is("merge"))
        )
    }
}

/// One `key: value` pair of a mapping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub key: usize,
    pub value: usize,
    /// True for a pair that came from a `<<` merge.
    pub merged: bool,
}

/// Reads values out of a tree, expanding aliases and `<<` merges within
/// [`MAX_ALIAS_VALUES`] and [`MAX_DEPTH`].
pub(crate) struct Expander<'t> {
    tree: &'t Tree,
    /// The aliases being expanded (anchor id and where the alias is).
    active: Vec<(usize, Position)>,
    expanded: usize,
}

impl<'t> Expander<'t> {
    pub(crate) fn new(tree: &'t Tree) -> Self {
        Self {
            tree,
            active: Vec::new(),
            expanded: 0,
        }
    }

    /// The pairs of the mapping `map`: its own pairs in file order
    /// (duplicates included, for the caller to judge), then pairs merged
    /// in by `<<` whose keys it does not set itself. Earlier merge sources
    /// win, as YAML specifies.
    pub(crate) fn entries(
        &mut self,
        map: usize,
        depth: usize,
    ) -> Result<Vec<Entry>, FrontmatterError> {
        let tree = self.tree;
        let Some(node) = tree.node(map) else {
            return Ok(Vec::new());
        };
        if depth > MAX_DEPTH {
            return Err(too_deep(node.at));
        }
        let NodeKind::Map(pairs) = &node.kind else {
            return Ok(Vec::new());
        };
        let mut entries = Vec::new();
        let mut sources = Vec::new();
        for (key, value) in pairs {
            if tree.is_merge_key(*key) {
                if let Some(found) = self.merge_sources(*value) {
                    sources.extend(found);
                    continue;
                }
            }
            entries.push(Entry {
                key: *key,
                value: *value,
                merged: false,
            });
        }
        let mut keys: HashSet<String> = entries
            .iter()
            .filter_map(|entry| tree.key_text(entry.key).map(str::to_string))
            .collect();
        for source in sources {
            let merged = self.through_alias(source, |expander, target| {
                expander.entries(target, depth + 1)
            })?;
            for entry in merged {
                self.count()?;
                if let Some(text) = tree.key_text(entry.key) {
                    if !keys.insert(text.to_string()) {
                        continue;
                    }
                }
                entries.push(Entry {
                    merged: true,
                    ..entry
                });
            }
        }
        Ok(entries)
    }

    /// The mappings a `<<` value merges in, or `None` when the value is
    /// not a mapping or a list of mappings (then `<<` is an ordinary key).
    fn merge_sources(&self, value: usize) -> Option<Vec<usize>> {
        let is_map = |id: usize| {
            matches!(
                self.tree.resolve(id).map(|node| &node.kind),
                Some(NodeKind::Map(_))
            )
        };
        if is_map(value) {
            return Some(vec![value]);
        }
        match self.tree.resolve(value).map(|node| &node.kind) {
            Some(NodeKind::Seq(items)) if items.iter().all(|item| is_map(*item)) => {
                Some(items.clone())
            }
            _ => None,
        }
    }

    /// Runs `read` on the node `id` names: itself, or an alias's target
    /// while the alias counts as being expanded.
    fn through_alias<T>(
        &mut self,
        id: usize,
        read: impl FnOnce(&mut Self, usize) -> Result<T, FrontmatterError>,
    ) -> Result<T, FrontmatterError> {
        let tree = self.tree;
        let Some(Node {
            kind: NodeKind::Alias(anchor),
            at,
        }) = tree.node(id)
        else {
            return read(self, id);
        };
        if self.active.iter().any(|(active, _)| active == anchor) {
            return Err(FrontmatterError::yaml(
                Some(*at),
                "an alias (`*name`) refers to a value that contains it",
                "write the value out instead of using the alias (loops cannot be read)",
            ));
        }
        let Some(target) = tree.anchors.get(anchor).copied() else {
            return Err(FrontmatterError::yaml(
                Some(*at),
                "an alias (`*name`) refers to an unknown anchor",
                "define `&name` before using `*name`",
            ));
        };
        self.active.push((*anchor, *at));
        let result = read(self, target);
        self.active.pop();
        result
    }

    /// Counts a value produced by an alias against [`MAX_ALIAS_VALUES`].
    fn count(&mut self) -> Result<(), FrontmatterError> {
        let Some((_, at)) = self.active.first() else {
            return Ok(());
        };
        self.expanded += 1;
        if self.expanded > MAX_ALIAS_VALUES {
            return Err(FrontmatterError::yaml(
                Some(*at),
                format!("aliases (`*name`) expand to more than {MAX_ALIAS_VALUES} values"),
                "write the values out, or use fewer aliases of large anchored values",
            ));
        }
        Ok(())
    }

    /// The node as JSON. `field` names the frontmatter field in messages.
    pub(crate) fn json(
        &mut self,
        id: usize,
        depth: usize,
        field: &str,
    ) -> Result<Value, FrontmatterError> {
        let tree = self.tree;
        let Some(node) = tree.node(id) else {
            return Ok(Value::Null);
        };
        if depth > MAX_DEPTH {
            return Err(too_deep(node.at));
        }
        self.count()?;
        match &node.kind {
            NodeKind::Scalar { text, plain, tag } => Ok(scalar_value(text, *plain, tag)),
            NodeKind::Seq(items) => items
                .iter()
                .map(|item| self.json(*item, depth + 1, field))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array),
            NodeKind::Map(_) => self.object(id, depth, field).map(Value::Object),
            NodeKind::Alias(_) => self.through_alias(id, |expander, target| {
                expander.json(target, depth + 1, field)
            }),
        }
    }

    fn object(
        &mut self,
        map: usize,
        depth: usize,
        field: &str,
    ) -> Result<Map<String, Value>, FrontmatterError> {
        let tree = self.tree;
        let mut object = Map::new();
        let mut first_seen: HashMap<String, Position> = HashMap::new();
        for entry in self.entries(map, depth)? {
            let Some(key_node) = tree.node(entry.key) else {
                continue;
            };
            let Some(key) = tree.key_text(entry.key) else {
                return Err(FrontmatterError::yaml(
                    Some(key_node.at),
                    format!("a key of `{field}` is {}", key_node.describe()),
                    &format!("keys of `{field}` must be text, such as `author: ada`"),
                ));
            };
            if !entry.merged {
                if let Some(first) = first_seen.insert(key.to_string(), key_node.at) {
                    return Err(FrontmatterError::yaml(
                        Some(key_node.at),
                        format!(
                            "`{field}` sets the key `{}` a second time (first on line {})",
                            quoted(key, 40),
                            first.line
                        ),
                        "keep one of the two lines",
                    ));
                }
            }
            let value = self.json(entry.value, depth + 1, field)?;
            object.insert(key.to_string(), value);
        }
        Ok(object)
    }
}

fn too_deep(at: Position) -> FrontmatterError {
    FrontmatterError::yaml(
        Some(at),
        format!("values are nested more than {MAX_DEPTH} levels deep"),
        "flatten the structure",
    )
}

/// A YAML syntax error, with a hint fitting the kind of mistake.
fn syntax_error(error: &ScanError) -> FrontmatterError {
    const QUOTE: &str = "fix the YAML between the `---` lines (quote values that contain `: ` \
                         or start with a special character)";
    let (what, fix) = match error.kind() {
        ErrorKind::UnknownAnchor => (
            "an alias (`*name`) refers to an anchor (`&name`) that is not defined above it"
                .to_string(),
            "define the anchor first, or quote the value if `*` is meant literally",
        ),
        ErrorKind::TabNotAllowed
        | ErrorKind::TabInBlockIndentation
        | ErrorKind::TabInIndentation => (
            "a tab is used for indentation".to_string(),
            "indent with spaces",
        ),
        ErrorKind::UnclosedQuotedScalar => (
            "a quoted value is never closed".to_string(),
            "add the closing quote, or double a `'` inside a single-quoted value (`''`)",
        ),
        ErrorKind::RecursionLimitExceeded => (
            "values are nested too deeply".to_string(),
            "flatten the structure",
        ),
        _ => {
            let info = error.info();
            let info = if info.is_empty() {
                "the YAML does not parse".to_string()
            } else {
                quoted(&info, 200)
            };
            (info, QUOTE)
        }
    };
    FrontmatterError::yaml(Some(Position::from_marker(error.marker())), what, fix)
}

fn is_null_text(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

/// A scalar's JSON value. Plain scalars follow the YAML 1.2 core schema
/// (null, `true`/`false`, integers, finite floats); everything else keeps
/// its text, including tags this crate does not know (`!!timestamp`,
/// `!custom`), non-finite floats (`.inf`, `1e999`: JSON has no infinity)
/// and integers with leading zeros (`007`).
pub(crate) fn scalar_value(text: &str, plain: bool, tag: &ScalarTag) -> Value {
    let text_value = || Value::String(text.to_string());
    match tag {
        ScalarTag::None if !plain => text_value(),
        ScalarTag::None => {
            if is_null_text(text) {
                Value::Null
            } else {
                parse_bool(text)
                    .or_else(|| parse_int(text))
                    .or_else(|| parse_float(text))
                    .unwrap_or_else(text_value)
            }
        }
        ScalarTag::Core(name) => match name.as_str() {
            "null" => Value::Null,
            "bool" => parse_bool(text).unwrap_or_else(text_value),
            "int" => parse_int(text).unwrap_or_else(text_value),
            "float" => parse_float(text)
                .or_else(|| parse_int(text))
                .unwrap_or_else(text_value),
            _ => text_value(),
        },
        ScalarTag::NonSpecific | ScalarTag::Custom => text_value(),
    }
}

fn parse_bool(text: &str) -> Option<Value> {
    match text {
        "true" | "True" | "TRUE" => Some(Value::Bool(true)),
        "false" | "False" | "FALSE" => Some(Value::Bool(false)),
        _ => None,
    }
}

fn parse_int(text: &str) -> Option<Value> {
    let (radix, digits) = if let Some(hex) = text.strip_prefix("0x") {
        (16, hex)
    } else if let Some(octal) = text.strip_prefix("0o") {
        (8, octal)
    } else {
        let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
        if unsigned.is_empty()
            || !unsigned.bytes().all(|byte| byte.is_ascii_digit())
            || (unsigned.len() > 1 && unsigned.starts_with('0'))
        {
            return None;
        }
        return text
            .parse::<i64>()
            .map(Value::from)
            .or_else(|_| text.trim_start_matches('+').parse::<u64>().map(Value::from))
            .ok();
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok().map(Value::from)
}

fn parse_float(text: &str) -> Option<Value> {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |part: &str| part.bytes().all(|byte| byte.is_ascii_digit());
    let valid_mantissa = digits(whole)
        && digits(fraction)
        && !(whole.is_empty() && fraction.is_empty())
        && (mantissa.contains('.') || exponent.is_some());
    let valid_exponent = exponent.is_none_or(|exponent| {
        let exponent = exponent.strip_prefix(['-', '+']).unwrap_or(exponent);
        !exponent.is_empty() && digits(exponent)
    });
    if !(valid_mantissa && valid_exponent) {
        return None;
    }
    let value: f64 = text.parse().ok()?;
    Number::from_f64(value).map(Value::Number)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn plain(text: &str) -> Value {
        scalar_value(text, true, &ScalarTag::None)
    }

    #[test]
    fn plain_scalars_follow_the_core_schema() {
        assert_eq!(plain("~"), Value::Null);
        assert_eq!(plain(""), Value::Null);
        assert_eq!(plain("true"), json!(true));
        assert_eq!(plain("yes"), json!("yes"));
        assert_eq!(plain("2"), json!(2));
        assert_eq!(plain("-7"), json!(-7));
        assert_eq!(plain("+7"), json!(7));
        assert_eq!(plain("18446744073709551615"), json!(u64::MAX));
        assert_eq!(plain("99999999999999999999"), json!("99999999999999999999"));
        assert_eq!(plain("007"), json!("007"));
        assert_eq!(plain("0x1F"), json!(31));
        assert_eq!(plain("0o17"), json!(15));
        assert_eq!(plain("1.5"), json!(1.5));
        assert_eq!(plain(".5"), json!(0.5));
        assert_eq!(plain("1e3"), json!(1000.0));
        assert_eq!(plain("1e999"), json!("1e999"));
        assert_eq!(plain(".inf"), json!(".inf"));
        assert_eq!(plain(".nan"), json!(".nan"));
        assert_eq!(plain("1.2.3"), json!("1.2.3"));
        assert_eq!(plain("e5"), json!("e5"));
        assert_eq!(plain("."), json!("."));
        assert_eq!(plain("1_000"), json!("1_000"));
    }

    #[test]
    fn tags_and_quotes_decide_the_type() {
        assert_eq!(scalar_value("2", false, &ScalarTag::None), json!("2"));
        let tagged =
            |name: &str, text: &str| scalar_value(text, true, &ScalarTag::Core(name.into()));
        assert_eq!(tagged("str", "2"), json!("2"));
        assert_eq!(tagged("int", "2"), json!(2));
        assert_eq!(tagged("int", "two"), json!("two"));
        assert_eq!(tagged("float", "2"), json!(2));
        assert_eq!(tagged("null", "x"), Value::Null);
        assert_eq!(tagged("timestamp", "2001-12-14"), json!("2001-12-14"));
        assert_eq!(scalar_value("x", true, &ScalarTag::Custom), json!("x"));
    }

    #[test]
    fn trees_keep_structure_and_positions() {
        match Tree::parse("a: [1, *x]\n") {
            Err(FrontmatterError::Yaml { line, message, .. }) => {
                assert_eq!(line, Some(2));
                assert!(message.contains("not defined above it"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        let tree = Tree::parse("a: &x {b: 1}\nc: *x\n").unwrap_or_default();
        let root = tree.root().unwrap_or(usize::MAX);
        let mut expander = Expander::new(&tree);
        let value = expander.json(root, 0, "test").unwrap_or_default();
        assert_eq!(value, json!({"a": {"b": 1}, "c": {"b": 1}}));
        assert_eq!(
            tree.node(root).map(|node| node.at),
            Some(Position { line: 2, column: 1 })
        );
    }

    #[test]
    fn merges_fill_in_keys_the_mapping_does_not_set() {
        let tree =
            Tree::parse("base: &b {x: 1, y: 2}\nm: {<<: *b, y: 3}\nl: {<<: [{z: 1}, {z: 2}]}\n")
                .unwrap_or_default();
        let root = tree.root().unwrap_or(usize::MAX);
        let value = Expander::new(&tree)
            .json(root, 0, "test")
            .unwrap_or_default();
        assert_eq!(value["m"], json!({"x": 1, "y": 3}));
        assert_eq!(value["l"], json!({"z": 1}));
    }

    #[test]
    fn loops_and_bombs_fail() {
        let tree = Tree::parse("a: &x [*x]\n").unwrap_or_default();
        let root = tree.root().unwrap_or(usize::MAX);
        assert!(Expander::new(&tree).json(root, 0, "test").is_err());
        let tree = Tree::parse("a: &x {<<: *x}\n").unwrap_or_default();
        let root = tree.root().unwrap_or(usize::MAX);
        assert!(Expander::new(&tree).json(root, 0, "test").is_err());
        let mut yaml = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for level in 1..8 {
            let previous = level - 1;
            yaml.push_str(&format!(
                "a{level}: &a{level} [{}]\n",
                vec![format!("*a{previous}"); 10].join(", ")
            ));
        }
        let tree = Tree::parse(&yaml).unwrap_or_default();
        let root = tree.root().unwrap_or(usize::MAX);
        match Expander::new(&tree).json(root, 0, "test") {
            Err(FrontmatterError::Yaml { message, .. }) => {
                assert!(message.contains("expand to more than"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_second_document_is_an_error() {
        assert!(Tree::parse("a: 1\n...\nb: 2\n").is_err());
        assert!(Tree::parse("a: 1\n...\n").is_ok());
    }
}

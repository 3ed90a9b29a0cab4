//! The frontmatter's YAML as a tree of nodes with their locations, built
//! from `granit-parser`'s events: aliases replayed (under limits, so alias
//! bombs fail fast), `<<` merges expanded, keys written twice refused, and
//! plain scalars typed like YAML 1.2.
//!
//! The tree is built with an explicit stack of open collections, never by
//! recursion, and its depth is bounded, so deep nesting cannot overflow
//! the thread's stack.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use granit_parser::{ErrorKind, Event, Marker, Parser, ScalarStyle, ScanError, Tag};
use serde_json::Value;

use super::scalar::{resolve, ScalarError};

/// How deeply collections may nest.
const MAX_DEPTH: usize = 64;
/// How many nodes the YAML may hold, before aliases are replayed.
const MAX_NODES: usize = 250_000;
/// How many nodes aliases may replay in all.
const MAX_REPLAYED_NODES: usize = 1_000_000;
/// How many aliases the YAML may hold.
const MAX_ALIASES: usize = 50_000;
/// From this many aliases on, there may be at most [`ALIASES_PER_ANCHOR`]
/// times as many aliases as anchors.
const MIN_ALIASES_FOR_RATIO: usize = 100;
const ALIASES_PER_ANCHOR: usize = 10;
/// How many `<<` merge keys the YAML may hold.
const MAX_MERGE_KEYS: usize = 10_000;

/// A place in the YAML: line and column, both counted from 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Location {
    line: u64,
    column: u64,
}

impl Location {
    fn of(marker: &Marker) -> Self {
        Self {
            line: u64::try_from(marker.line()).unwrap_or(u64::MAX),
            column: u64::try_from(marker.col()).map_or(u64::MAX, |col| col.saturating_add(1)),
        }
    }

    /// The line, counted from 1 in the YAML.
    pub(super) fn line(self) -> u64 {
        self.line
    }

    /// The column, counted from 1.
    pub(super) fn column(self) -> u64 {
        self.column
    }
}

/// What a node holds.
#[derive(Debug)]
pub(super) enum Kind {
    /// A scalar: its typed value and its text as parsed (for messages,
    /// and so `1.10` reads back as written).
    Scalar {
        value: Value,
        text: String,
    },
    Sequence(Vec<Node>),
    Mapping(Vec<Entry>),
}

/// A value with where it is used (the alias's place, for a value an
/// alias replays).
#[derive(Clone, Debug)]
pub(super) struct Node {
    pub kind: Rc<Kind>,
    pub referenced: Location,
    /// Nodes in this value, itself included (aliases counted whole).
    size: usize,
    /// How deeply this value nests, aliases followed.
    depth: usize,
}

/// A mapping entry; `merged` when a `<<` merge brought it in.
#[derive(Clone, Debug)]
pub(super) struct Entry {
    pub key: Node,
    pub value: Node,
    pub merged: bool,
}

/// Why the YAML could not be read as a tree. Each carries where.
#[derive(Debug)]
pub(super) enum TreeError {
    /// The parser refused the text.
    Parser { error: ScanError, at: Location },
    /// A key written twice in one mapping (`key` is its text).
    DuplicateKey { key: Option<String>, at: Location },
    /// A scalar that cannot be read (a tag it does not fit, `!!timestamp`, bad `!!binary`).
    Scalar { error: ScalarError, at: Location },
    /// A second document in the frontmatter.
    MultipleDocuments { at: Location },
    /// An alias to an anchor not defined before it.
    UnknownAnchor { at: Location },
    /// An alias inside the value its anchor names.
    RecursiveAlias { at: Location },
    /// Aliases replay too many values, or nest too deeply through each other.
    AliasExpansion { at: Location },
    /// Too many aliases, or too many for the anchors there are.
    TooManyAliases { at: Location },
    /// Collections nested deeper than [`MAX_DEPTH`].
    TooDeep { at: Location },
    /// Too many nodes or merge keys.
    TooManyValues { at: Location },
    /// A `<<` whose value is not a mapping or a list of mappings.
    BadMerge { at: Location },
    /// The root is not a mapping of keys (checked by the reader of keys).
    NotAMapping { at: Location },
    /// A null key, which cannot be read as text.
    NullKey { at: Location },
    /// A list or mapping as a key.
    ComplexKey { at: Location },
}

impl TreeError {
    /// Where the problem is.
    pub(super) fn location(&self) -> Location {
        match self {
            Self::Parser { at, .. }
            | Self::DuplicateKey { at, .. }
            | Self::Scalar { at, .. }
            | Self::MultipleDocuments { at }
            | Self::UnknownAnchor { at }
            | Self::RecursiveAlias { at }
            | Self::AliasExpansion { at }
            | Self::TooManyAliases { at }
            | Self::TooDeep { at }
            | Self::TooManyValues { at }
            | Self::BadMerge { at }
            | Self::NotAMapping { at }
            | Self::NullKey { at }
            | Self::ComplexKey { at } => *at,
        }
    }
}

/// Parses `yaml` into its root node; `None` for an empty stream.
pub(super) fn compose(yaml: &str) -> Result<Option<Node>, TreeError> {
    let options = granit_parser::options! {
        emit_comments: false,
    };
    let mut builder = Builder::default();
    for item in Parser::new_from_str_with_options(yaml, options) {
        let (event, span) = item.map_err(parser_error)?;
        builder.event(event, Location::of(&span.start))?;
    }
    Ok(builder.root)
}

fn parser_error(error: ScanError) -> TreeError {
    let at = Location::of(error.marker());
    match error.kind() {
        ErrorKind::MultipleDocumentsUnsupported => TreeError::MultipleDocuments { at },
        ErrorKind::UnknownAnchor => TreeError::UnknownAnchor { at },
        _ => TreeError::Parser { error, at },
    }
}

/// A collection whose end event has not arrived yet.
enum Frame {
    Sequence {
        at: Location,
        anchor: usize,
        items: Vec<Node>,
    },
    Mapping {
        at: Location,
        anchor: usize,
        /// Each key and value, and whether the key is a `<<` merge.
        pairs: Vec<(Node, Node, bool)>,
        key: Option<(Node, bool)>,
    },
}

#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    root: Option<Node>,
    documents: usize,
    anchors: HashMap<usize, Node>,
    /// Anchors of collections still open: an alias to one is a loop.
    open: HashSet<usize>,
    nodes: usize,
    replayed: usize,
    aliases: usize,
    merge_keys: usize,
}

impl Builder {
    fn event(&mut self, event: Event<'_>, at: Location) -> Result<(), TreeError> {
        match event {
            Event::DocumentStart(..) => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err(TreeError::MultipleDocuments { at });
                }
            }
            Event::Alias(id) => self.alias(id, at)?,
            Event::UnresolvedAlias(_) => return Err(TreeError::UnknownAnchor { at }),
            Event::Scalar(text, style, anchor, tag) => {
                self.count(at)?;
                let value = resolve(&text, style, tag.as_deref())
                    .map_err(|error| TreeError::Scalar { error, at })?;
                let merge_key = is_merge_key(&text, style, tag.as_deref());
                let node = Node {
                    kind: Rc::new(Kind::Scalar {
                        value,
                        text: text.into_owned(),
                    }),
                    referenced: at,
                    size: 1,
                    depth: 0,
                };
                self.finish(node, anchor, merge_key)?;
            }
            Event::SequenceStart(_, anchor, _) => {
                self.open(at, anchor)?;
                self.stack.push(Frame::Sequence {
                    at,
                    anchor,
                    items: Vec::new(),
                });
            }
            Event::MappingStart(_, anchor, _) => {
                self.open(at, anchor)?;
                self.stack.push(Frame::Mapping {
                    at,
                    anchor,
                    pairs: Vec::new(),
                    key: None,
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some(frame) = self.stack.pop() {
                    let (node, anchor) = self.close(frame)?;
                    self.open.remove(&anchor);
                    self.finish(node, anchor, false)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn count(&mut self, at: Location) -> Result<(), TreeError> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(TreeError::TooManyValues { at });
        }
        Ok(())
    }

    fn open(&mut self, at: Location, anchor: usize) -> Result<(), TreeError> {
        self.count(at)?;
        if self.stack.len() >= MAX_DEPTH {
            return Err(TreeError::TooDeep { at });
        }
        if anchor != 0 {
            self.open.insert(anchor);
        }
        Ok(())
    }

    fn alias(&mut self, id: usize, at: Location) -> Result<(), TreeError> {
        if self.open.contains(&id) {
            return Err(TreeError::RecursiveAlias { at });
        }
        let Some(anchored) = self.anchors.get(&id) else {
            return Err(TreeError::UnknownAnchor { at });
        };
        self.aliases += 1;
        let ratio_broken = self.aliases >= MIN_ALIASES_FOR_RATIO
            && self.aliases > self.anchors.len().saturating_mul(ALIASES_PER_ANCHOR);
        if self.aliases > MAX_ALIASES || ratio_broken {
            return Err(TreeError::TooManyAliases { at });
        }
        self.replayed = self.replayed.saturating_add(anchored.size);
        if self.replayed > MAX_REPLAYED_NODES
            || self.stack.len().saturating_add(anchored.depth) > 2 * MAX_DEPTH
        {
            return Err(TreeError::AliasExpansion { at });
        }
        let node = Node {
            referenced: at,
            ..anchored.clone()
        };
        self.place(node, false)
    }

    /// Records `node`'s anchor and hands it to its parent.
    fn finish(&mut self, node: Node, anchor: usize, merge_key: bool) -> Result<(), TreeError> {
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
        self.place(node, merge_key)
    }

    fn place(&mut self, node: Node, merge_key: bool) -> Result<(), TreeError> {
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Frame::Sequence { items, .. }) => items.push(node),
            Some(Frame::Mapping { pairs, key, .. }) => match key.take() {
                None => {
                    if merge_key {
                        self.merge_keys += 1;
                        if self.merge_keys > MAX_MERGE_KEYS {
                            return Err(TreeError::TooManyValues {
                                at: node.referenced,
                            });
                        }
                    }
                    *key = Some((node, merge_key));
                }
                Some((done, merge_key)) => pairs.push((done, node, merge_key)),
            },
        }
        Ok(())
    }

    fn close(&mut self, frame: Frame) -> Result<(Node, usize), TreeError> {
        match frame {
            Frame::Sequence { at, anchor, items } => {
                let (size, depth) = measure(items.iter());
                Ok((collection(Kind::Sequence(items), at, size, depth), anchor))
            }
            Frame::Mapping {
                at, anchor, pairs, ..
            } => {
                let entries = merge(pairs)?;
                let (size, depth) =
                    measure(entries.iter().flat_map(|entry| [&entry.key, &entry.value]));
                Ok((collection(Kind::Mapping(entries), at, size, depth), anchor))
            }
        }
    }
}

fn collection(kind: Kind, at: Location, size: usize, depth: usize) -> Node {
    Node {
        kind: Rc::new(kind),
        referenced: at,
        size,
        depth,
    }
}

/// The size and depth of a collection of `children`.
fn measure<'a>(children: impl Iterator<Item = &'a Node>) -> (usize, usize) {
    children.fold((1, 1), |(size, depth), child| {
        (
            size.saturating_add(child.size),
            depth.max(child.depth.saturating_add(1)),
        )
    })
}

/// `<<` as a merge key: plain and untagged.
fn is_merge_key(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> bool {
    text == "<<" && style == ScalarStyle::Plain && tag.is_none()
}

/// A scalar key's text, for telling keys apart.
fn key_text(node: &Node) -> Option<&str> {
    match node.kind.as_ref() {
        Kind::Scalar { text, .. } => Some(text),
        _ => None,
    }
}

/// A mapping's entries: the explicit ones in order (a key written twice,
/// a null key and a list or mapping as a key are errors, since keys are
/// read as text wherever they are), then what `<<` merges bring in that is not set already, the
/// first merge winning over later ones.
fn merge(pairs: Vec<(Node, Node, bool)>) -> Result<Vec<Entry>, TreeError> {
    let mut entries: Vec<Entry> = Vec::with_capacity(pairs.len());
    let mut seen: HashSet<String> = HashSet::new();
    let mut merges = Vec::new();
    for (key, value, merge_key) in pairs {
        if merge_key {
            merges.push(value);
            continue;
        }
        match key.kind.as_ref() {
            Kind::Scalar {
                value: Value::Null, ..
            } => return Err(TreeError::NullKey { at: key.referenced }),
            Kind::Scalar { text, .. } => {
                if !seen.insert(text.clone()) {
                    return Err(TreeError::DuplicateKey {
                        key: Some(text.clone()),
                        at: key.referenced,
                    });
                }
            }
            Kind::Sequence(_) | Kind::Mapping(_) => {
                return Err(TreeError::ComplexKey { at: key.referenced })
            }
        }
        entries.push(Entry {
            key,
            value,
            merged: false,
        });
    }
    for source in merges {
        let at = source.referenced;
        let mappings: Vec<Node> = match source.kind.as_ref() {
            Kind::Mapping(_) => vec![source.clone()],
            Kind::Sequence(items) => items.clone(),
            Kind::Scalar { .. } => return Err(TreeError::BadMerge { at }),
        };
        for mapping in mappings {
            let Kind::Mapping(merged) = mapping.kind.as_ref() else {
                return Err(TreeError::BadMerge { at });
            };
            for entry in merged {
                if let Some(text) = key_text(&entry.key) {
                    if !seen.insert(text.to_string()) {
                        continue;
                    }
                }
                entries.push(Entry {
                    key: Node {
                        referenced: at,
                        ..entry.key.clone()
                    },
                    value: Node {
                        referenced: at,
                        ..entry.value.clone()
                    },
                    merged: true,
                });
            }
        }
    }
    Ok(entries)
}

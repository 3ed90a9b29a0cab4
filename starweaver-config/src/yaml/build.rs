//! Turns the parser's event stream into a [`Node`] tree, enforcing the node, depth and scalar
//! budgets as it goes.
//!
//! The tree is built with an explicit stack of open collections, never by recursion, so a deeply
//! nested document cannot overflow the thread's stack; the depth budget bounds that stack.

use std::borrow::Cow;
use std::collections::HashMap;

use granit_parser::{ErrorKind, Event, Marker, Parser, ScanError, StructureStyle, Tag};

use super::scalar::{resolve_bool, resolve_float, resolve_int, resolve_plain, Resolved};
use super::{Budgets, Comment, Document, Node, Position, ScalarStyle, Span, Value, YamlError};

/// Parses `text` (already checked for size and UTF-8) into a single-document tree.
pub(crate) fn build(text: &str, budgets: &Budgets) -> Result<Document, YamlError> {
    let options = granit_parser::options! {
        // The parser's own nesting limits back up the builder's depth check.
        flow_nesting_limit: budgets.max_depth,
        block_nesting_limit: budgets.max_depth,
        emit_comments: true,
        // Comments met while the parser looks ahead are buffered; a long comment block is normal
        // in a manifest, and the size budget already bounds how many a file can hold.
        max_buffered_comment_events: budgets.max_document_bytes,
    };
    let parser = Parser::new_from_str_with_options(text, options);
    let mut builder = Builder {
        text,
        budgets,
        nodes: 0,
        documents: 0,
        stack: Vec::new(),
        root: None,
        comments: Vec::new(),
    };
    for item in parser {
        let (event, span) = item.map_err(|error| scan_error(&error, budgets, text))?;
        builder.event(event, span)?;
    }
    let root = builder
        .root
        .unwrap_or_else(|| Node::new(Span::point(Position::START), Value::Null));
    Ok(Document {
        root,
        comments: builder.comments,
    })
}

/// A collection whose end event has not arrived yet.
enum Frame {
    Sequence {
        start: Span,
        style: StructureStyle,
        items: Vec<Node>,
    },
    Mapping {
        start: Span,
        style: StructureStyle,
        entries: Vec<(Node, Node)>,
        key: Option<Node>,
        seen: HashMap<KeyId, Position>,
    },
}

/// A scalar key's identity for duplicate detection: `1` and `"1"` differ, `a` and `"a"` do not.
#[derive(PartialEq, Eq, Hash)]
enum KeyId {
    Null,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String),
}

struct Builder<'a> {
    text: &'a str,
    budgets: &'a Budgets,
    nodes: usize,
    documents: usize,
    stack: Vec<Frame>,
    root: Option<Node>,
    comments: Vec<Comment>,
}

impl Builder<'_> {
    fn event(&mut self, event: Event<'_>, raw: granit_parser::Span) -> Result<(), YamlError> {
        let span = Span::new(position(raw.start), position(raw.end));
        // Tag problems point at the tag, which precedes the node's own span.
        let tag_at = raw.tag_start.map_or(span.start, position);
        match event {
            Event::DocumentStart(..) => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err(YamlError::MultipleDocuments { at: span.start });
                }
            }
            Event::Alias(_) | Event::UnresolvedAlias(_) => {
                return Err(YamlError::AliasUnsupported {
                    alias: self.source(span).to_owned(),
                    at: span.start,
                });
            }
            Event::Scalar(text, style, _anchor, tag) => {
                self.count(span)?;
                let value = self.scalar(text, style, tag.as_deref(), span, tag_at)?;
                self.push(Node::new(span, value))?;
            }
            Event::SequenceStart(style, _anchor, tag) => {
                self.open(span, tag.as_deref(), tag_at, "seq")?;
                self.stack.push(Frame::Sequence {
                    start: span,
                    style,
                    items: Vec::new(),
                });
            }
            Event::MappingStart(style, _anchor, tag) => {
                self.open(span, tag.as_deref(), tag_at, "map")?;
                self.stack.push(Frame::Mapping {
                    start: span,
                    style,
                    entries: Vec::new(),
                    key: None,
                    seen: HashMap::new(),
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some(frame) = self.stack.pop() {
                    let node = close(frame, span);
                    self.push(node)?;
                }
            }
            Event::Comment(text, _placement) => {
                let line_start = self
                    .text
                    .get(..span.start.offset)
                    .and_then(|before| before.rfind(['\n', '\r']))
                    .map_or(0, |at| at + 1);
                let own_line = self
                    .source(Span::new(
                        Position::new(span.start.line, 1, line_start),
                        span.start,
                    ))
                    .chars()
                    .all(|c| c == ' ' || c == '\t' || c == '\u{feff}');
                self.comments.push(Comment {
                    text: text.into_owned(),
                    span,
                    own_line,
                });
            }
            // Stream and document ends, and metadata events this reader does not request.
            _ => {}
        }
        Ok(())
    }

    /// Checks the budgets and the tag before a collection opens.
    fn open(
        &mut self,
        span: Span,
        tag: Option<&Tag>,
        tag_at: Position,
        core: &str,
    ) -> Result<(), YamlError> {
        self.count(span)?;
        if self.stack.len() >= self.budgets.max_depth {
            return Err(YamlError::TooDeep {
                limit: self.budgets.max_depth,
                at: span.start,
            });
        }
        match tag {
            Some(tag) if tag.core_suffix() != Some(core) => Err(YamlError::UnsupportedTag {
                tag: tag.original(),
                at: tag_at,
            }),
            _ => Ok(()),
        }
    }

    fn count(&mut self, span: Span) -> Result<(), YamlError> {
        self.nodes += 1;
        if self.nodes > self.budgets.max_nodes {
            return Err(YamlError::TooManyNodes {
                limit: self.budgets.max_nodes,
                at: span.start,
            });
        }
        Ok(())
    }

    fn scalar(
        &self,
        text: Cow<'_, str>,
        style: granit_parser::ScalarStyle,
        tag: Option<&Tag>,
        span: Span,
        tag_at: Position,
    ) -> Result<Value, YamlError> {
        if text.len() > self.budgets.max_scalar_bytes {
            return Err(YamlError::ScalarTooLong {
                length: text.len(),
                limit: self.budgets.max_scalar_bytes,
                at: span.start,
            });
        }
        let style = scalar_style(style);
        let string = |text: Cow<'_, str>| Value::String {
            text: text.into_owned(),
            style,
        };
        let Some(tag) = tag else {
            if !style.is_plain() {
                return Ok(string(text));
            }
            return match resolve_plain(&text) {
                Resolved::Null => Ok(Value::Null),
                Resolved::Bool(value) => Ok(Value::Bool(value)),
                Resolved::Int(value) => Ok(Value::Int(value)),
                Resolved::IntOutOfRange => Err(YamlError::IntegerOutOfRange {
                    text: text.into_owned(),
                    at: span.start,
                }),
                Resolved::Float(value) => Ok(Value::Float(value)),
                Resolved::Str => Ok(string(text)),
            };
        };
        let mismatch = |expected: &'static str| YamlError::TagMismatch {
            tag: tag.original(),
            text: text.to_string(),
            expected,
            at: span.start,
        };
        match tag.core_suffix() {
            Some("str") => Ok(string(text.clone())),
            Some("null") => match resolve_plain(&text) {
                Resolved::Null => Ok(Value::Null),
                _ => Err(mismatch("null")),
            },
            Some("bool") => resolve_bool(&text)
                .map(Value::Bool)
                .ok_or_else(|| mismatch("boolean")),
            Some("int") => match resolve_int(&text) {
                Some(Resolved::Int(value)) => Ok(Value::Int(value)),
                Some(_) => Err(YamlError::IntegerOutOfRange {
                    text: text.to_string(),
                    at: span.start,
                }),
                None => Err(mismatch("integer")),
            },
            Some("float") => resolve_float(&text)
                .map(Value::Float)
                .ok_or_else(|| mismatch("float")),
            _ => Err(YamlError::UnsupportedTag {
                tag: tag.original(),
                at: tag_at,
            }),
        }
    }

    /// Places a finished node: as the root, a sequence item, a mapping key or a mapping value.
    fn push(&mut self, node: Node) -> Result<(), YamlError> {
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Frame::Sequence { items, .. }) => items.push(node),
            Some(Frame::Mapping {
                entries, key, seen, ..
            }) => match key.take() {
                Some(key) => entries.push((key, node)),
                None => {
                    if let Some(id) = key_id(&node.value) {
                        if let Some(first) = seen.get(&id) {
                            return Err(YamlError::DuplicateKey {
                                key: match &node.value {
                                    Value::String { text, .. } => text.clone(),
                                    _ => source(self.text, node.span).to_owned(),
                                },
                                first: *first,
                                second: node.span.start,
                            });
                        }
                        seen.insert(id, node.span.start);
                    }
                    *key = Some(node);
                }
            },
        }
        Ok(())
    }

    fn source(&self, span: Span) -> &str {
        source(self.text, span)
    }
}

/// Finishes a collection. Flow collections end at their closing bracket; block collections end
/// where their last child ends (the parser's end event sits at the next token, possibly lines
/// further down).
fn close(frame: Frame, end: Span) -> Node {
    let extent = |start: Span, style: StructureStyle, last: Option<Span>| match (style, last) {
        (StructureStyle::Block, Some(last)) => start.to(last),
        (StructureStyle::Block, None) => start,
        (StructureStyle::Flow, _) => start.to(end),
    };
    match frame {
        Frame::Sequence {
            start,
            style,
            items,
        } => {
            let span = extent(start, style, items.last().map(|item| item.span));
            Node::new(span, Value::Sequence(items))
        }
        Frame::Mapping {
            start,
            style,
            mut entries,
            key,
            ..
        } => {
            // A key without a value cannot survive the parser, but keep it rather than drop it.
            if let Some(key) = key {
                let span = Span::point(key.span.end);
                entries.push((key, Node::new(span, Value::Null)));
            }
            let span = extent(start, style, entries.last().map(|(_, value)| value.span));
            Node::new(span, Value::Mapping(entries))
        }
    }
}

fn key_id(value: &Value) -> Option<KeyId> {
    Some(match value {
        Value::Null => KeyId::Null,
        Value::Bool(value) => KeyId::Bool(*value),
        Value::Int(value) => KeyId::Int(*value),
        Value::Float(value) => KeyId::Float(value.to_bits()),
        Value::String { text, .. } => KeyId::Str(text.clone()),
        Value::Sequence(_) | Value::Mapping(_) => return None,
    })
}

fn scalar_style(style: granit_parser::ScalarStyle) -> ScalarStyle {
    match style {
        granit_parser::ScalarStyle::SingleQuoted => ScalarStyle::SingleQuoted,
        granit_parser::ScalarStyle::DoubleQuoted => ScalarStyle::DoubleQuoted,
        granit_parser::ScalarStyle::Literal => ScalarStyle::Literal,
        granit_parser::ScalarStyle::Folded => ScalarStyle::Folded,
        // Plain, and any style a later parser version adds, resolve as plain text would.
        _ => ScalarStyle::Plain,
    }
}

/// Converts a parser marker (1-based line, 0-based column) to a 1-based [`Position`].
fn position(marker: Marker) -> Position {
    Position::new(
        marker.line(),
        marker.col() + 1,
        // String input always knows byte offsets; the character index is the same for ASCII.
        marker.byte_offset().unwrap_or_else(|| marker.index()),
    )
}

fn source(text: &str, span: Span) -> &str {
    text.get(span.start.offset..span.end.offset).unwrap_or("")
}

fn scan_error(error: &ScanError, budgets: &Budgets, text: &str) -> YamlError {
    let at = position(*error.marker());
    match error.kind() {
        ErrorKind::RecursionLimitExceeded => YamlError::TooDeep {
            limit: budgets.max_depth,
            at,
        },
        kind @ (ErrorKind::TabNotAllowed
        | ErrorKind::TabInBlockIndentation
        | ErrorKind::TabAtBlockScalarStart
        | ErrorKind::TabInIndentation
        | ErrorKind::TabInPlainScalar) => YamlError::Tab {
            context: kind.to_string(),
            // The parser stops after the tab, or at the value it was reading when the next
            // line's indentation began with one: point at the tab itself.
            at: tab_near(text, at.offset)
                .map_or(at, |offset| Position::of_offset(text.as_bytes(), offset)),
        },
        kind => YamlError::Syntax {
            message: kind.to_string(),
            at,
        },
    }
}

/// How far past the parser's stop a tab is looked for.
const TAB_SEARCH_BYTES: usize = 4096;

/// The byte offset of the first tab from the start of the line holding `offset`, within
/// [`TAB_SEARCH_BYTES`].
fn tab_near(text: &str, offset: usize) -> Option<usize> {
    let offset = offset.min(text.len());
    let line_start = text.as_bytes()[..offset]
        .iter()
        .rposition(|byte| *byte == b'\n')
        .map_or(0, |at| at + 1);
    let end = offset.saturating_add(TAB_SEARCH_BYTES).min(text.len());
    text.as_bytes()[line_start..end]
        .iter()
        .position(|byte| *byte == b'\t')
        .map(|at| line_start + at)
}

//! Reading manifests' YAML into a position-keeping tree: values, spans, and every refusal.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use starweaver_config::yaml::{
    parse, parse_with, Budgets, Comment, Node, Position, ScalarStyle, Span, Value, YamlError,
};

/// A span from (line, column, offset) to (line, column, offset).
fn span(start: (usize, usize, usize), end: (usize, usize, usize)) -> Span {
    Span::new(
        Position::new(start.0, start.1, start.2),
        Position::new(end.0, end.1, end.2),
    )
}

fn string(node: &Node) -> (&str, ScalarStyle) {
    match &node.value {
        Value::String { text, style } => (text.as_str(), *style),
        other => panic!("expected a string, found {other:?}"),
    }
}

#[test]
fn every_value_type_has_its_exact_span() {
    let text = "\
none: ~
bool: true
int: -42
float: 2.5
string: hello
seq:
  - 1
  - [a, b]
map: {k: v}
empty:
";
    let document = parse(text.as_bytes()).unwrap();
    let root = &document.root;
    // The mapping ends where its last value does; an empty value sits at its `:`.
    assert_eq!(root.span, span((1, 1, 0), (10, 6, 92)));
    let entries = root.as_mapping().unwrap();
    let keys: Vec<_> = entries.iter().map(|(k, _)| k.as_str().unwrap()).collect();
    assert_eq!(
        keys,
        ["none", "bool", "int", "float", "string", "seq", "map", "empty"]
    );

    let (key, value) = root.entry("none").unwrap();
    assert_eq!(key.span, span((1, 1, 0), (1, 5, 4)));
    assert_eq!(value.value, Value::Null);
    assert_eq!(value.span, span((1, 7, 6), (1, 8, 7)));

    let value = root.get("bool").unwrap();
    assert_eq!(value.value, Value::Bool(true));
    assert_eq!(value.span, span((2, 7, 14), (2, 11, 18)));

    let value = root.get("int").unwrap();
    assert_eq!(value.value, Value::Int(-42));
    assert_eq!(value.span, span((3, 6, 24), (3, 9, 27)));

    let value = root.get("float").unwrap();
    assert_eq!(value.value, Value::Float(2.5));
    assert_eq!(value.span, span((4, 8, 35), (4, 11, 38)));

    let value = root.get("string").unwrap();
    assert_eq!(string(value), ("hello", ScalarStyle::Plain));
    assert_eq!(value.span, span((5, 9, 47), (5, 14, 52)));

    let seq = root.get("seq").unwrap();
    assert_eq!(seq.span, span((7, 3, 60), (8, 11, 74)));
    let items = seq.as_sequence().unwrap();
    assert_eq!(items[0].value, Value::Int(1));
    assert_eq!(items[0].span, span((7, 5, 62), (7, 6, 63)));
    assert_eq!(items[1].span, span((8, 5, 68), (8, 11, 74)));
    let flow = items[1].as_sequence().unwrap();
    assert_eq!(string(&flow[1]).0, "b");
    assert_eq!(flow[1].span, span((8, 9, 72), (8, 10, 73)));

    let (key, map) = root.entry("map").unwrap();
    assert_eq!(key.span, span((9, 1, 75), (9, 4, 78)));
    assert_eq!(map.span, span((9, 6, 80), (9, 12, 86)));
    let (k, v) = &map.as_mapping().unwrap()[0];
    assert_eq!(k.span, span((9, 7, 81), (9, 8, 82)));
    assert_eq!(string(v).0, "v");

    let value = root.get("empty").unwrap();
    assert_eq!(value.value, Value::Null);
    assert_eq!(value.span, Span::point(Position::new(10, 6, 92)));
}

#[test]
fn plain_keys_are_typed_like_values() {
    let document = parse(b"null: a\ntrue: b\n3: c\n").unwrap();
    let keys: Vec<_> = document
        .root
        .as_mapping()
        .unwrap()
        .iter()
        .map(|(k, _)| k.value.clone())
        .collect();
    assert_eq!(keys, [Value::Null, Value::Bool(true), Value::Int(3)]);
}

#[test]
fn mapping_keys_keep_source_order() {
    let document = parse(b"zeta: 1\nalpha: 2\nmid: 3\nbeta: 4\n").unwrap();
    let keys: Vec<_> = document
        .root
        .as_mapping()
        .unwrap()
        .iter()
        .map(|(k, _)| k.as_str().unwrap())
        .collect();
    assert_eq!(keys, ["zeta", "alpha", "mid", "beta"]);
}

#[test]
fn plain_scalars_follow_the_core_schema_and_quoted_ones_stay_strings() {
    let text = "\
yes: yes
no: no
on: on
quoted_int: \"1\"
single: '2'
int: 1
hex: 0x1F
octal: 0o17
inf: -.inf
nul: null
tilde_quoted: '~'
literal: |
  line
folded: >
  a
  b
tagged: !!str 12
tagged_int: !!int \"7\"
";
    let document = parse(text.as_bytes()).unwrap();
    let root = &document.root;
    for key in ["yes", "no", "on"] {
        assert_eq!(string(root.get(key).unwrap()), (key, ScalarStyle::Plain));
    }
    // `yes` as a key is a string too.
    assert!(root.entry("yes").is_some());
    assert_eq!(
        string(root.get("quoted_int").unwrap()),
        ("1", ScalarStyle::DoubleQuoted)
    );
    assert_eq!(
        string(root.get("single").unwrap()),
        ("2", ScalarStyle::SingleQuoted)
    );
    assert_eq!(root.get("int").unwrap().value, Value::Int(1));
    assert_eq!(root.get("hex").unwrap().value, Value::Int(31));
    assert_eq!(root.get("octal").unwrap().value, Value::Int(15));
    assert_eq!(
        root.get("inf").unwrap().value,
        Value::Float(f64::NEG_INFINITY)
    );
    assert_eq!(root.get("nul").unwrap().value, Value::Null);
    assert_eq!(
        string(root.get("tilde_quoted").unwrap()),
        ("~", ScalarStyle::SingleQuoted)
    );
    assert_eq!(
        string(root.get("literal").unwrap()),
        ("line\n", ScalarStyle::Literal)
    );
    assert_eq!(
        string(root.get("folded").unwrap()),
        ("a b\n", ScalarStyle::Folded)
    );
    assert_eq!(
        string(root.get("tagged").unwrap()),
        ("12", ScalarStyle::Plain)
    );
    assert_eq!(root.get("tagged_int").unwrap().value, Value::Int(7));
}

#[test]
fn positions_count_characters_and_crlf_line_ends() {
    let document = parse("é: ünï\r\nnext: x\r\n".as_bytes()).unwrap();
    let value = document.root.get("é").unwrap();
    assert_eq!(value.span, span((1, 4, 4), (1, 7, 9)));
    let value = document.root.get("next").unwrap();
    assert_eq!(value.span.start, Position::new(2, 7, 17));
}

#[test]
fn an_empty_or_comment_only_file_is_a_null_root() {
    for text in ["", "# just a comment\n", "\n\n"] {
        let document = parse(text.as_bytes()).unwrap();
        assert_eq!(document.root.value, Value::Null, "{text:?}");
    }
    assert_eq!(parse(b"").unwrap().root.span.start, Position::START);
}

#[test]
fn duplicate_keys_name_both_positions() {
    let error = parse(b"name: a\nother: 1\nname: b\n").unwrap_err();
    assert_eq!(
        error,
        YamlError::DuplicateKey {
            key: "name".into(),
            first: Position::new(1, 1, 0),
            second: Position::new(3, 1, 17),
        }
    );
    let message = error.to_string();
    assert!(message.contains("line 3, column 1"), "{message}");
    assert!(message.contains("line 1, column 1"), "{message}");

    // Quoting does not make a key different; its type does.
    let error = parse(b"{a: 1, \"a\": 2}").unwrap_err();
    assert!(matches!(error, YamlError::DuplicateKey { .. }), "{error}");
    assert!(parse(b"1: int\n\"1\": string\n").is_ok());
    // Nested mappings have their own key sets.
    assert!(parse(b"a: {x: 1}\nb: {x: 2}\n").is_ok());
}

#[test]
fn a_billion_laughs_alias_bomb_is_refused_at_the_first_alias() {
    let mut text = String::from("a: &a [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n");
    let names = ["b", "c", "d", "e", "f", "g", "h", "i", "j"];
    let mut previous = "a";
    for name in names {
        text.push_str(&format!(
            "{name}: &{name} [*{previous}, *{previous}, *{previous}, *{previous}, *{previous}]\n"
        ));
        previous = name;
    }
    let error = parse(text.as_bytes()).unwrap_err();
    assert_eq!(
        error,
        YamlError::AliasUnsupported {
            alias: "*a".into(),
            at: Position::new(2, 8, 49),
        }
    );
    assert!(error.to_string().contains("do not use YAML aliases"));
}

#[test]
fn anchors_without_aliases_are_ignored() {
    let document = parse(b"base: &base {x: 1}\n").unwrap();
    assert_eq!(
        document.root.get("base").unwrap().get("x").unwrap().value,
        Value::Int(1)
    );
}

#[test]
fn hundred_thousand_nested_flow_sequences_stop_at_the_depth_budget() {
    let text = "[".repeat(100_000);
    let error = parse(text.as_bytes()).unwrap_err();
    assert!(
        matches!(error, YamlError::TooDeep { limit: 64, .. }),
        "{error}"
    );
    assert_eq!(error.position().line, 1);
    assert_eq!(error.position().column, 65);
}

#[test]
fn hundred_thousand_nested_block_sequences_stop_at_the_depth_budget() {
    let mut text = "- ".repeat(100_000);
    text.push_str("leaf\n");
    let error = parse(text.as_bytes()).unwrap_err();
    assert!(
        matches!(error, YamlError::TooDeep { limit: 64, .. }),
        "{error}"
    );
    assert_eq!(error.position().line, 1);
    assert_eq!(error.position().column, 2 * 64 + 1);
}

#[test]
fn nesting_within_the_depth_budget_is_read() {
    let text = format!("{}{}", "[".repeat(64), "]".repeat(64));
    let document = parse(text.as_bytes()).unwrap();
    let mut depth = 0;
    let mut node = &document.root;
    while let Some(items) = node.as_sequence() {
        depth += 1;
        match items.first() {
            Some(child) => node = child,
            None => break,
        }
    }
    assert_eq!(depth, 64);
    let budgets = Budgets::default().with_max_depth(3);
    assert!(parse_with(b"a: {b: [1]}", &budgets).is_ok());
    assert!(matches!(
        parse_with(b"a: {b: [[1]]}", &budgets),
        Err(YamlError::TooDeep { limit: 3, .. })
    ));
}

#[test]
fn a_fifty_megabyte_file_is_refused_before_parsing() {
    let text = "key: value\n".repeat(50 * 1024 * 1024 / 11);
    assert!(text.len() > 50_000_000);
    let error = parse(text.as_bytes()).unwrap_err();
    match &error {
        YamlError::DocumentTooLarge { size, limit, at } => {
            assert_eq!(*size, text.len());
            assert_eq!(*limit, 4 * 1024 * 1024);
            assert_eq!(at.offset, 4 * 1024 * 1024);
            assert_eq!(at.line, 4 * 1024 * 1024 / 11 + 1);
        }
        other => panic!("expected DocumentTooLarge, got {other:?}"),
    }
    assert!(error.to_string().contains("split the file"));
}

#[test]
fn too_many_nodes_are_refused() {
    let text = format!("[{}0]", "0, ".repeat(100_000));
    let error = parse(text.as_bytes()).unwrap_err();
    assert!(
        matches!(error, YamlError::TooManyNodes { limit: 100_000, .. }),
        "{error}"
    );
    // The sequence is node 1; its 100,000th item is the first over the limit.
    assert_eq!(error.position().column, 2 + 3 * 99_999);

    let budgets = Budgets::default().with_max_nodes(5);
    // A mapping, two keys and two values: five nodes.
    assert!(parse_with(b"a: 1\nb: 2\n", &budgets).is_ok());
    let error = parse_with(b"a: 1\nb: 2\nc: 3\n", &budgets).unwrap_err();
    assert_eq!(
        error,
        YamlError::TooManyNodes {
            limit: 5,
            at: Position::new(3, 1, 10),
        }
    );
}

#[test]
fn overlong_scalars_are_refused() {
    let text = format!("text: \"{}\"\n", "x".repeat(1024 * 1024 + 1));
    let error = parse(text.as_bytes()).unwrap_err();
    assert_eq!(
        error,
        YamlError::ScalarTooLong {
            length: 1024 * 1024 + 1,
            limit: 1024 * 1024,
            at: Position::new(1, 7, 6),
        }
    );
    let budgets = Budgets::default().with_max_scalar_bytes(3);
    assert!(parse_with(b"abc: xyz", &budgets).is_ok());
    assert!(matches!(
        parse_with(b"abcd: x", &budgets),
        Err(YamlError::ScalarTooLong { length: 4, .. })
    ));
}

#[test]
fn invalid_utf8_names_its_byte_offset_and_line() {
    let error = parse(b"a: ok\nb: \xff\xfe\n").unwrap_err();
    assert_eq!(
        error,
        YamlError::InvalidUtf8 {
            at: Position::new(2, 4, 9),
        }
    );
    let message = error.to_string();
    assert!(message.contains("byte offset 9"), "{message}");
    assert!(message.contains("line 2"), "{message}");
}

#[test]
fn a_syntax_error_keeps_its_position() {
    let error = parse(b"name: scout\nlist: [1, 2\nnext: 3\n").unwrap_err();
    match &error {
        YamlError::Syntax { message, at } => {
            assert!(!message.is_empty());
            assert_eq!((at.line, at.column), (3, 5), "{error}");
        }
        other => panic!("expected a syntax error, got {other:?}"),
    }

    let error = parse(b"a: b: c\n").unwrap_err();
    assert!(matches!(error, YamlError::Syntax { .. }), "{error}");
    assert_eq!(
        (error.position().line, error.position().column),
        (1, 5),
        "{error}"
    );
}

#[test]
fn a_second_document_is_refused_where_it_starts() {
    let error = parse(b"a: 1\n---\nb: 2\n").unwrap_err();
    assert_eq!(
        error,
        YamlError::MultipleDocuments {
            at: Position::new(2, 1, 5),
        }
    );
    // One explicit document, with or without an end marker, is fine.
    assert!(parse(b"---\na: 1\n...\n").is_ok());
    let error = parse(b"--- a\n--- b\n").unwrap_err();
    assert_eq!(error.position().line, 2);
}

#[test]
fn out_of_range_integers_and_foreign_tags_are_refused() {
    let error = parse(b"big: 99999999999999999999\n").unwrap_err();
    assert_eq!(
        error,
        YamlError::IntegerOutOfRange {
            text: "99999999999999999999".into(),
            at: Position::new(1, 6, 5),
        }
    );
    let error = parse(b"x: !custom 1\n").unwrap_err();
    assert!(
        matches!(&error, YamlError::UnsupportedTag { tag, at } if tag == "!custom" && at.column == 4),
        "{error:?}"
    );
    let error = parse(b"x: !!map [1]\n").unwrap_err();
    assert!(matches!(error, YamlError::UnsupportedTag { .. }), "{error}");
    let error = parse(b"x: !!int abc\n").unwrap_err();
    assert!(
        matches!(
            &error,
            YamlError::TagMismatch {
                expected: "integer",
                ..
            }
        ),
        "{error:?}"
    );
    assert!(parse(b"x: !!seq [1]\ny: !!float 1\n").is_ok());
}

#[test]
fn comments_are_kept_with_their_lines() {
    let text = "\
# starweaver-check: allow(rule)
name: scout # trailing
tags: [\"#not-a-comment\", '# nor this']
  # indented
";
    let document = parse(text.as_bytes()).unwrap();
    assert_eq!(
        document.comments,
        [
            Comment {
                text: " starweaver-check: allow(rule)".into(),
                span: span((1, 1, 0), (1, 32, 31)),
                own_line: true,
            },
            Comment {
                text: " trailing".into(),
                span: span((2, 13, 44), (2, 23, 54)),
                own_line: false,
            },
            Comment {
                text: " indented".into(),
                span: span((4, 3, 96), (4, 13, 106)),
                own_line: true,
            },
        ]
    );
    assert_eq!(document.comments[1].line(), 2);
    assert_eq!(
        document.root.get("tags").unwrap().as_sequence().unwrap()[0].as_str(),
        Some("#not-a-comment")
    );
}

#[test]
fn long_comment_blocks_are_read() {
    let block = "# note\n".repeat(1_000);
    let text = format!("{block}a:\n{block}  - 1\n{block}b: 2\n{block}");
    let document = parse(text.as_bytes()).unwrap();
    assert_eq!(document.comments.len(), 4_000);
    assert_eq!(document.root.get("b").unwrap().value, Value::Int(2));
}

//! Frontmatter parsing edge cases.

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
    let parsed = parse("---\nname: research\ndescription: Gather sources\n---\n\n  Body text.\n\n");
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

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::diagnostics::{Rule, Severity};
use crate::manifest::tests::FULL;

fn check(text: &str) -> Vec<Diagnostic> {
    check_bytes(text.as_bytes())
}

#[test]
fn the_documented_manifest_has_no_problems() {
    let context = CheckContext::new().with_catalog(["lookup", "render_video"]);
    assert_eq!(super::check(FULL.as_bytes(), &context), []);
    let unverified = check(FULL);
    assert_eq!(unverified.len(), 1, "{unverified:?}");
    assert_eq!(unverified[0].rule, Rule::UnknownTool);
    assert_eq!(unverified[0].severity, Severity::Warning);
}

#[test]
fn catalog_files_give_the_known_tool_names() {
    let context = CheckContext::new()
        .with_catalog_json(r#"{"version": 1, "tools": [{"name": "lookup"}], "conflicts": []}"#)
        .unwrap();
    assert!(context.catalog().unwrap().contains("lookup"));
    assert_eq!(
        CheckContext::new().with_catalog_json("[]"),
        Err(CatalogFileError::NoTools)
    );
    assert_eq!(
        CheckContext::new().with_catalog_json(r#"{"tools": [{"id": 1}]}"#),
        Err(CatalogFileError::NoName { index: 0 })
    );
    assert!(matches!(
        CheckContext::new().with_catalog_json("{"),
        Err(CatalogFileError::Json(_))
    ));
    let found = super::check(
        b"version: 1\nname: a\nmodel: {id: test}\ntoolsets: [{type: tools, name: g, tools: [lokup]}]\n",
        &context,
    );
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].help.as_deref(), Some("did you mean `lookup`?"));
}

#[test]
fn unknown_fields_suggest_the_closest_name_or_list_them() {
    let found = check("version: 1\nname: a\nmodel: {id: test, temprature: 1}\n");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].rule, Rule::UnknownField);
    assert_eq!(found[0].severity, Severity::Error);
    assert_eq!(found[0].message, "unknown field `temprature` in `model`");
    assert_eq!(
        found[0].help.as_deref(),
        Some("the fields allowed here are `id`, `script`, `base_url`, `api_key_env`, `settings`, `stream`, `timeout_ms`, `connect_timeout_ms`, `max_retries`, `retry_budget_ms`")
    );
    let found = check("version: 1\nname: a\nmodel: {id: test}\ninstruction: hi\n");
    assert_eq!(
        found[0].message,
        "unknown field `instruction` at the top level"
    );
    assert_eq!(
        found[0].help.as_deref(),
        Some("did you mean `instructions`?")
    );
}

#[test]
fn a_misspelled_required_key_is_one_problem_and_an_absent_one_names_the_key() {
    let found = check("version: 1\nnmae: a\nmodel: {id: test}\n");
    assert_eq!(
        found.iter().map(|d| d.rule).collect::<Vec<_>>(),
        [Rule::UnknownField]
    );
    let found = check("version: 1\nmodel: {id: test}\n");
    assert_eq!(found[0].rule, Rule::MissingField);
    assert_eq!(
        found[0].message,
        "missing required field `name` at the top level"
    );
    assert_eq!(
        found[0].help.as_deref(),
        Some("add `name: repo-helper` (the agent's name)")
    );
}

#[test]
fn enum_values_list_the_allowed_ones() {
    let found =
        check("version: 1\nname: a\nmodel: {id: test}\nruntime: {unavailable_tools: fail}\n");
    assert_eq!(found[0].rule, Rule::InvalidValue);
    assert_eq!(
        found[0].message,
        "`runtime.unavailable_tools` must be one of `skip`, `fail_run`, found the string `fail`"
    );
}

#[test]
fn toolset_types_pick_the_variant_and_unknown_ones_list_the_types() {
    let found = check("version: 1\nname: a\nmodel: {id: test}\ntoolsets: [{type: serch}]\n");
    assert_eq!(found.len(), 1);
    assert!(found[0]
        .message
        .contains("`toolsets[0].type` must be one of `tools`"));
    assert_eq!(found[0].help.as_deref(), Some("did you mean `search`?"));
    // A valid type is checked against its own variant: `search` needs `name` and `toolsets`.
    let found = check("version: 1\nname: a\nmodel: {id: test}\ntoolsets: [{type: search}]\n");
    let messages: Vec<_> = found.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "missing required field `name` in `toolsets[0]`",
            "missing required field `toolsets` in `toolsets[0]`"
        ]
    );
}

#[test]
fn wrong_types_say_what_was_expected_and_found() {
    let found = check("version: 1\nname: true\nmodel: {id: test}\n");
    assert_eq!(
        found[0].message,
        "`name` must be a string, found the boolean `true`"
    );
    assert_eq!(
        found[0].help.as_deref(),
        Some("quote the value to make it a string")
    );
    let found = check(
        "version: 1\nname: a\nmodel: {id: test}\nenvironment: {type: virtual}\nshell: {timeout_ms: soon}\n",
    );
    assert_eq!(
        found[0].message,
        "`shell.timeout_ms` must be an integer or null, found the string `soon`"
    );
}

#[test]
fn versions_other_than_one_are_unsupported() {
    let found = check("version: 7\nname: a\nmodel: {id: test}\n");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].rule, Rule::UnsupportedVersion);
    assert!(found[0].message.contains("version 7 is not supported"));
}

#[test]
fn a_reading_failure_is_one_syntax_diagnostic_at_its_place() {
    let found = check("version: 1\nname: a\nname: b\n");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].rule, Rule::Syntax);
    assert_eq!(
        (found[0].span.start.line, found[0].span.start.column),
        (3, 1)
    );
    assert!(found[0].message.contains("duplicate key `name`"));
    assert_eq!(check_bytes(b"\xff")[0].rule, Rule::Syntax);
}

#[test]
fn values_the_schema_leaves_open_are_not_checked() {
    let text = "version: 1\nname: a\nmodel: {id: test, settings: {anything: [1, {x: y}]}}\nvars: {deep: {er: [true]}}\n";
    assert_eq!(check(text), []);
}

#[test]
fn a_huge_unknown_key_gets_a_short_message_and_no_suggestion() {
    // YAML caps implicit keys at 1024 characters; a value may be far longer.
    let key = "k".repeat(1000);
    let found = check(&format!(
        "version: 1\nname: a\nmodel: {{id: test}}\n{key}: 1\n"
    ));
    assert_eq!(found.len(), 1);
    assert!(found[0].message.len() < 100, "{}", found[0].message);
    assert!(found[0]
        .help
        .as_deref()
        .unwrap()
        .starts_with("the fields allowed here"));
}

#[test]
fn a_huge_wrong_value_is_cut_short_in_the_message() {
    let value = "v".repeat(200_000);
    let found = check(&format!(
        "version: 1\nname: a\nmodel: {{id: test}}\nruntime: {{tool_execution: {value}}}\n"
    ));
    assert_eq!(found.len(), 1);
    assert!(found[0].message.len() < 200, "{}", found[0].message);
    let help = found[0].help.as_deref().unwrap_or_default();
    assert!(
        help.len() < 200 && help.contains("tool_execution: "),
        "{help}"
    );
}

/// Thousands of toolsets, references, markers and template variables: every check stays
/// proportional to the file (a quadratic one would make this test crawl).
#[test]
fn large_manifests_get_every_semantic_diagnostic() {
    use std::fmt::Write as _;
    let count = 3000;
    let mut text = String::from("version: 1\nname: big\nmodel: {id: test}\ninstructions: \"");
    for index in 0..count {
        let _ = write!(text, "{{{{ vars.v{index} }}}} ");
    }
    text.push_str("\"\ntoolsets:\n");
    for index in 0..count {
        let _ = writeln!(
            text,
            "  # starweaver-check: allow(unknown-toolset)\n  - {{type: proxy, name: p{index}, prefix: p{index}, toolsets: [missing{index}], approval_required: [nope{index}]}}"
        );
    }
    let found = check(&text);
    let count_of = |rule: Rule| found.iter().filter(|d| d.rule == rule).count();
    // A marker cannot allow an error: each stays, noting the marker that named it.
    assert_eq!(count_of(Rule::UnknownToolset), count);
    assert!(found
        .iter()
        .filter(|d| d.rule == Rule::UnknownToolset)
        .all(|d| d.severity == crate::diagnostics::Severity::Error
            && d.notes.iter().any(|note| note.contains("cannot allow it"))));
    assert_eq!(count_of(Rule::UnknownTool), count);
    assert_eq!(count_of(Rule::UndefinedVariable), 50);
    assert!(found
        .iter()
        .all(|d| d.help.as_ref().is_none_or(|h| h.len() < 2000)));
}

/// Values of every kind, each wrong for most fields: a mapping, a list, strings (one of them a
/// YAML 1.1 boolean), a negative, a float and an integer too wide for most fields.
const WRONG_VALUES: [&str; 9] = [
    "{zz: 1}",
    "[zz]",
    "'zz'",
    "yes",
    "-7",
    "1.5",
    "99999999999999",
    "''",
    "'five seconds'",
];

/// The fields of a valid manifest, each replaced in turn by a case.
const BASE: [(&str, &str); 4] = [
    ("version", "1"),
    ("name", "a"),
    ("model", "{id: test}"),
    ("environment", "{type: local}"),
];

/// A manifest of [`BASE`] with `key` set to `value`.
fn with_field(key: &str, value: &str) -> String {
    let mut text = String::new();
    for (field, default) in BASE {
        if field != key {
            text.push_str(&format!("{field}: {default}\n"));
        }
    }
    text.push_str(&format!("{key}: {value}\n"));
    text
}

/// Regression: `invalid-value` came without a fix hint (`timeout_ms: "five seconds"`,
/// `allow_execute: yes`, a number out of range, a value outside an enum); every field the schema
/// knows, given every kind of wrong value, must get one.
#[test]
fn every_invalid_value_has_a_fix_hint() {
    let root = schema::manifest();
    let mut cases = vec![
        "42\n".to_owned(),
        "- a\n".to_owned(),
        "'text'\n".to_owned(),
        with_field(
            "shell",
            "{allow_execute: yes, timeout_ms: \"five seconds\"}",
        ),
    ];
    let properties = root["properties"].as_object().unwrap();
    for (key, property) in properties {
        for value in WRONG_VALUES {
            cases.push(with_field(key, value));
        }
        // One level down: the fields of each section.
        let inner = property
            .get("properties")
            .and_then(|inner| inner.as_object())
            .into_iter()
            .flatten();
        for (field, _) in inner {
            for value in WRONG_VALUES {
                cases.push(with_field(key, &format!("{{{field}: {value}}}")));
            }
        }
    }
    // Every field of every toolset type, and of skill scopes.
    let variants = root
        .pointer("/properties/toolsets/items/oneOf")
        .and_then(|variants| variants.as_array())
        .unwrap();
    for variant in variants {
        let tag = variant["properties"]["type"]["const"].as_str().unwrap();
        for (field, _) in variant["properties"].as_object().unwrap() {
            for value in WRONG_VALUES {
                cases.push(with_field(
                    "toolsets",
                    &format!("[{{type: {tag}, name: t, {field}: {value}}}]"),
                ));
            }
        }
    }
    for field in ["path", "source"] {
        for value in WRONG_VALUES {
            cases.push(with_field(
                "skills",
                &format!("{{scopes: [{{path: ., {field}: {value}}}]}}"),
            ));
        }
    }
    let mut invalid = 0;
    let mut missing_help = Vec::new();
    for case in &cases {
        for diagnostic in check(case) {
            if diagnostic.rule != Rule::InvalidValue {
                continue;
            }
            invalid += 1;
            if diagnostic
                .help
                .as_deref()
                .is_none_or(|help| help.trim().is_empty())
            {
                missing_help.push(format!("{case}=> {diagnostic}"));
            }
        }
    }
    assert!(invalid > 300, "only {invalid} invalid values were produced");
    assert!(missing_help.is_empty(), "{}", missing_help.join("\n"));
}

/// Regression: the help of a missing field was its doc comment pasted in ("add `version:` (The
/// format version; `1`.)"); it is the line to add and a phrase saying what the field is.
#[test]
fn a_missing_field_help_is_the_line_to_add() {
    let found = check("name: a\n");
    let helps: Vec<&str> = found.iter().filter_map(|d| d.help.as_deref()).collect();
    assert_eq!(
        helps,
        [
            "add `version: 1` (the manifest format's version)",
            "add `model: {id: test}` (the model the agent talks to)",
        ]
    );
    let found = check("version: 1\nname: a\nmodel: {id: test}\ntoolsets: [{type: proxy}]\n");
    for diagnostic in &found {
        let help = diagnostic.help.as_deref().unwrap_or_default();
        assert!(help.starts_with("add `"), "{diagnostic}");
        assert!(!help.contains(". ") && !help.contains(".)"), "{diagnostic}");
    }
}

/// Regression: a top-level scalar was "`` must be a mapping", naming no place and no fix.
#[test]
fn a_document_that_is_not_a_mapping_says_what_a_manifest_looks_like() {
    for text in ["42\n", "- a\n", "hello\n"] {
        let found = check(text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0]
            .message
            .starts_with("the document must be a mapping"));
        assert!(!found[0].message.contains("``"));
        assert!(found[0]
            .help
            .as_deref()
            .unwrap_or_default()
            .contains("version: 1"));
    }
}

/// Regression: `allow_execute: yes` and `timeout_ms: "five seconds"` were refused with no word
/// on what to write instead.
#[test]
fn wrong_kinds_get_the_line_to_write() {
    let found = check(&with_field(
        "shell",
        "{allow_execute: yes, timeout_ms: \"five seconds\", max_output_bytes: \"1000\"}",
    ));
    let helps: Vec<&str> = found.iter().filter_map(|d| d.help.as_deref()).collect();
    assert!(
        helps.iter().any(
            |help| help.contains("`allow_execute: true` or `allow_execute: false`")
                && help.contains("reads `yes` as a string")
        ),
        "{helps:?}"
    );
    assert!(
        helps.iter().any(
            |help| help.starts_with("it takes a whole number of milliseconds")
                && help.contains("`timeout_ms: ")
        ),
        "{helps:?}"
    );
    assert!(
        helps.contains(&"remove the quotes: `max_output_bytes: 1000`"),
        "{helps:?}"
    );
}

/// Thousands of nameless toolsets and proxies naming missing toolsets: the references fold into
/// one diagnostic, its notes are capped, and the fold stays proportional to the file.
#[test]
fn large_cascades_fold_into_capped_notes() {
    use std::fmt::Write as _;
    let count = 3000;
    let mut text = String::from("version: 1\nname: big\nmodel: {id: test}\ntoolsets:\n");
    for index in 0..count {
        let _ = writeln!(
            text,
            "  - {{type: deferred, tools: [t{index}]}}\n  - {{type: proxy, name: p{index}, toolsets: [gone{index}]}}"
        );
    }
    let found = check(&text);
    let count_of = |rule: Rule| found.iter().filter(|d| d.rule == rule).count();
    assert_eq!(count_of(Rule::UnknownToolset), 0);
    assert_eq!(count_of(Rule::MissingField), count);
    let noted: Vec<&Diagnostic> = found.iter().filter(|d| !d.notes.is_empty()).collect();
    assert_eq!(noted.len(), 1);
    assert_eq!(noted[0].notes.len(), MAX_NOTES);
    assert_eq!(
        noted[0].notes.last().map(String::as_str),
        Some("and 2981 more like these")
    );
}

/// An allow marker silences a warning, never an error: the error stays in the report with a
/// note naming the marker, and the manifest gets no `Checked`, so it cannot reach the loader.
#[test]
fn an_allow_marker_cannot_let_an_error_through() {
    use crate::diagnostics::Severity;
    use crate::validate::check_manifest;
    let text = "version: 1\nname: a\nmodel: {id: test}\n\
                # starweaver-check: allow(unknown-toolset, shell-policy)\n\
                toolsets: [{type: proxy, name: p, toolsets: [ghost]}]\n\
                environment: {type: virtual}\n\
                # starweaver-check: allow(shell-policy)\n\
                shell: {allow_execute: true}\n";
    let (found, checked) = check_manifest(text.as_bytes(), &CheckContext::new());
    assert!(checked.is_none());
    let rules: Vec<(Rule, Severity)> = found.iter().map(|d| (d.rule, d.severity)).collect();
    // The toolsets marker's `shell-policy` matches nothing there, so it is reported idle; the
    // shell's warning is silenced; the unknown toolset stays an error.
    assert_eq!(
        rules,
        [
            (Rule::ShellPolicy, Severity::Warning),
            (Rule::UnknownToolset, Severity::Error)
        ],
        "{found:#?}"
    );
    assert!(
        found[1].notes[0].contains("marker on line 4 cannot allow it"),
        "{found:#?}"
    );
    // Without the error, the same markers let the manifest through.
    let clean = text.replace("toolsets: [ghost]", "toolsets: []").replace(
        "toolsets: [{type: proxy, name: p, toolsets: []}]",
        "toolsets: []",
    );
    let (found, checked) = check_manifest(clean.as_bytes(), &CheckContext::new());
    assert!(checked.is_some(), "{found:#?}");
}

/// The checked manifest keeps the folder it was checked in, the file, and where the parts a
/// load failure can name sit, so a host can point such a failure at its line.
#[test]
fn a_checked_manifest_keeps_its_folder_file_and_places() {
    use crate::validate::check_manifest;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.yaml");
    let text = "version: 1\nname: a\nmodel: {id: test}\nenvironment: {type: virtual}\ntoolsets:\n  - {type: tools, name: g, tools: [lookup, fetch]}\n";
    let context = CheckContext::new().with_file(&file);
    let (_, checked) = check_manifest(text.as_bytes(), &context);
    let checked = checked.unwrap();
    assert_eq!(checked.base_dir(), dir.path());
    assert_eq!(checked.file(), Some(file.as_path()));
    let at = |field: &str| {
        checked
            .span(field)
            .map(|span| (span.start.line, span.start.column))
    };
    assert_eq!(at("model.id"), Some((3, 13)));
    assert_eq!(at("environment"), Some((4, 14)));
    assert_eq!(at("toolsets[0]"), Some((6, 5)));
    assert_eq!(at("toolsets[0].tools[1]"), Some((6, 44)));
    assert_eq!(at("toolsets[1]"), None);
    // A bare file name is in the current folder.
    let (_, bare) = check_manifest(text.as_bytes(), &CheckContext::new().with_file("a.yaml"));
    assert_eq!(bare.unwrap().base_dir(), std::path::Path::new("."));
}

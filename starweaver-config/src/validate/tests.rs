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
        Some("add `name:` (The agent's name (`repo-helper`).)")
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
    assert!(found[0].help.is_none());
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
    assert_eq!(count_of(Rule::UnknownToolset), 0);
    assert_eq!(count_of(Rule::UnknownTool), count);
    assert_eq!(count_of(Rule::UndefinedVariable), 50);
    assert!(found
        .iter()
        .all(|d| d.help.as_ref().is_none_or(|h| h.len() < 2000)));
}

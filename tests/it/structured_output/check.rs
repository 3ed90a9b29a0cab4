//! Manifests' `output:`: its `check` rules, each at its place, and the checked schema the
//! loader gives the agent.

use serde_json::json;
use starweaver::config::diagnostics::{Diagnostic, Rule, Severity};
use starweaver::config::load::{load, LoadOptions};
use starweaver::config::validate::{check_manifest, CheckContext, Checked};

use crate::run_cli::folder;

const HEAD: &str = "version: 1\nname: shaped\nmodel: {id: test}\n";

/// The diagnostics and the checked manifest of `manifest` (as `agent.yaml`) in a folder that
/// also holds `files`.
fn check_in(manifest: &str, files: &[(&str, &str)]) -> (Vec<Diagnostic>, Option<Checked>) {
    let mut all = vec![("agent.yaml", manifest)];
    all.extend_from_slice(files);
    let dir = folder(&all);
    let context = CheckContext::new().with_base_dir(dir.path());
    check_manifest(manifest.as_bytes(), &context)
}

/// The diagnostics of one rule.
fn of(found: &[Diagnostic], rule: Rule) -> Vec<Diagnostic> {
    found.iter().filter(|d| d.rule == rule).cloned().collect()
}

#[tokio::test]
async fn an_inline_schema_checks_clean_and_the_loaded_agent_answers_in_shape() {
    let manifest = format!(
        "{HEAD}output:\n  schema:\n    type: object\n    properties:\n      severity: {{ enum: [low, high] }}\n    required: [severity]\n  retries: 1\n"
    );
    let (found, checked) = check_in(&manifest, &[]);
    assert!(found.is_empty(), "{found:#?}");
    let checked = checked.unwrap();
    assert_eq!(
        checked.output_schema().unwrap()["required"],
        json!(["severity"])
    );
    let loaded = load(&checked, &LoadOptions::new()).await.unwrap();
    let result = loaded.agent.run("Triage").await.unwrap();
    let value = result.structured_output.unwrap();
    assert!(
        ["low", "high"].contains(&value["severity"].as_str().unwrap()),
        "{value}"
    );
}

#[tokio::test]
async fn a_schema_file_is_read_relative_to_the_manifests_folder() {
    let manifest = format!("{HEAD}output:\n  schema_file: schemas/answer.json\n");
    let schema = r#"{"type": "object", "properties": {"n": {"type": "integer", "minimum": 3}}, "required": ["n"]}"#;
    let (found, checked) = check_in(&manifest, &[("schemas/answer.json", schema)]);
    assert!(found.is_empty(), "{found:#?}");
    let checked = checked.unwrap();
    assert_eq!(
        checked.output_schema().unwrap()["properties"]["n"]["minimum"],
        3
    );
    let loaded = load(&checked, &LoadOptions::new()).await.unwrap();
    let result = loaded.agent.run("Count").await.unwrap();
    assert_eq!(result.structured_output, Some(json!({"n": 3})));
}

#[test]
fn a_missing_schema_file_is_missing_file_at_its_line() {
    let manifest = format!("{HEAD}output:\n  retries: 2\n  schema_file: nowhere.json\n");
    let (found, checked) = check_in(&manifest, &[]);
    assert!(checked.is_none());
    let missing = of(&found, Rule::MissingFile);
    assert_eq!(missing.len(), 1, "{found:#?}");
    assert_eq!(missing[0].severity, Severity::Error);
    assert_eq!(
        (missing[0].span.start.line, missing[0].span.start.column),
        (6, 16)
    );
    assert!(missing[0].message.contains("`nowhere.json` does not exist"));
    assert!(missing[0].help.is_some());
}

#[test]
fn a_schema_file_outside_the_folder_is_a_path_escape() {
    for outside in ["../answer.json", "/etc/hostname"] {
        let manifest = format!("{HEAD}output:\n  schema_file: {outside}\n");
        let (found, checked) = check_in(&manifest, &[]);
        assert!(checked.is_none());
        let escape = of(&found, Rule::PathEscape);
        assert_eq!(escape.len(), 1, "{outside}: {found:#?}");
        assert_eq!(escape[0].span.start.line, 5);
        assert!(escape[0].message.contains("outside the manifest's folder"));
    }
}

#[test]
fn a_schema_that_is_not_json_schema_is_an_invalid_value_at_the_schema() {
    let manifest = format!("{HEAD}output:\n  schema:\n    type: 12\n");
    let (found, checked) = check_in(&manifest, &[]);
    assert!(checked.is_none());
    let invalid = of(&found, Rule::InvalidValue);
    assert_eq!(invalid.len(), 1, "{found:#?}");
    assert_eq!(invalid[0].span.start.line, 6);
    assert!(
        invalid[0].message.contains("not a valid JSON Schema"),
        "{}",
        invalid[0].message
    );
    // A file that is not JSON.
    let manifest = format!("{HEAD}output:\n  schema_file: answer.json\n");
    let (found, _) = check_in(&manifest, &[("answer.json", "{not json")]);
    assert!(
        of(&found, Rule::InvalidValue)
            .iter()
            .any(|d| d.message.contains("is not JSON")),
        "{found:#?}"
    );
}

#[test]
fn exactly_one_of_schema_and_schema_file() {
    let manifest =
        format!("{HEAD}output:\n  schema: {{type: object}}\n  schema_file: answer.json\n");
    let (found, _) = check_in(&manifest, &[("answer.json", r#"{"type": "object"}"#)]);
    let both = of(&found, Rule::InvalidValue);
    assert_eq!(both.len(), 1, "{found:#?}");
    assert!(both[0].message.contains("both"));
    assert_eq!(both[0].span.start.line, 6);
    let manifest = format!("{HEAD}output:\n  retries: 1\n");
    let (found, _) = check_in(&manifest, &[]);
    let neither = of(&found, Rule::MissingField);
    assert_eq!(neither.len(), 1, "{found:#?}");
    assert_eq!(neither[0].span.start.line, 4);
}

#[test]
fn a_schema_the_provider_cannot_take_is_schema_compat() {
    let manifest = "version: 1\nname: shaped\nmodel: {id: \"anthropic:claude-sonnet-4-5\"}\noutput:\n  schema:\n    type: object\n    oneOf: [{required: [a]}, {required: [b]}]\n";
    let (found, checked) = check_in(manifest, &[]);
    assert!(checked.is_none());
    let compat = of(&found, Rule::SchemaCompat);
    assert_eq!(compat.len(), 1, "{found:#?}");
    assert_eq!(compat[0].severity, Severity::Error);
    assert_eq!(compat[0].span.start.line, 6);
    assert!(
        compat[0]
            .message
            .contains("Anthropic cannot take tool `final_answer`"),
        "{}",
        compat[0].message
    );
    assert!(compat[0].message.contains("oneOf"), "{}", compat[0].message);
    // The same schema on a model whose rules are not known is not checked.
    let (found, _) = check_in(
        &manifest.replace("\"anthropic:claude-sonnet-4-5\"", "test"),
        &[],
    );
    assert!(of(&found, Rule::SchemaCompat).is_empty(), "{found:#?}");
}

#[test]
fn a_script_calls_the_output_tool_like_any_tool_and_its_args_are_checked() {
    let manifest = "version: 1\nname: shaped\nmodel: {id: script, script: turns.yaml}\noutput:\n  schema:\n    type: object\n    properties:\n      severity: { enum: [low, high] }\n    required: [severity]\n";
    let good = "- calls:\n    - tool: final_answer\n      args: { severity: high }\n";
    let (found, checked) = check_in(manifest, &[("turns.yaml", good)]);
    assert!(found.is_empty(), "{found:#?}");
    assert!(checked.is_some());
    let bad = "- calls:\n    - tool: final_answer\n      args: { severity: medium }\n";
    let (found, _) = check_in(manifest, &[("turns.yaml", bad)]);
    let invalid = of(&found, Rule::InvalidValue);
    assert_eq!(invalid.len(), 1, "{found:#?}");
    assert!(
        invalid[0].message.contains("medium"),
        "{}",
        invalid[0].message
    );
    // An answer in text cannot end a run that asks for structured output.
    let text = "- answer: high\n";
    let (found, _) = check_in(manifest, &[("turns.yaml", text)]);
    assert!(
        found
            .iter()
            .any(|d| d.severity == Severity::Warning && d.message.contains("structured output")),
        "{found:#?}"
    );
    // Without `output:`, there is no such tool.
    let plain = "version: 1\nname: plain\nmodel: {id: script, script: turns.yaml}\n";
    let (found, _) = check_in(plain, &[("turns.yaml", good)]);
    assert_eq!(of(&found, Rule::UnknownTool).len(), 1, "{found:#?}");
}

#[test]
fn a_tool_the_agent_would_see_as_final_answer_is_a_duplicate_name() {
    let manifest = "version: 1\nname: shaped\nmodel: {id: test}\ntoolsets:\n  - type: tools\n    name: app\n    prefix: final\n    tools: [answer]\noutput:\n  schema: {type: object}\n";
    let dir = folder(&[("agent.yaml", manifest)]);
    let context = CheckContext::new()
        .with_base_dir(dir.path())
        .with_catalog(["answer"]);
    let (found, checked) = check_manifest(manifest.as_bytes(), &context);
    assert!(checked.is_none());
    let clash = of(&found, Rule::DuplicateName);
    assert_eq!(clash.len(), 1, "{found:#?}");
    assert_eq!(clash[0].span.start.line, 8);
    assert!(
        clash[0].message.contains("`final_answer`"),
        "{}",
        clash[0].message
    );
    // Without `output:` the name is free.
    let plain = manifest.replace("output:\n  schema: {type: object}\n", "");
    let (found, checked) = check_manifest(plain.as_bytes(), &context);
    assert!(checked.is_some(), "{found:#?}");
}

//! Each output format on the same broken manifest.

use super::{folder, run, stdout, BROKEN};

#[test]
fn human_output_quotes_the_line_with_a_caret_and_help() {
    let dir = folder(&[("scout.yaml", BROKEN.as_bytes())]);
    let output = run(dir.path(), &["check", "scout.yaml"]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains("error[unknown-field]: unknown field `idd` in `model`"),
        "{text}"
    );
    assert!(text.contains("--> scout.yaml:2:3"), "{text}");
    assert!(text.contains("2 |   idd: test\n  |   ^^^\n"), "{text}");
    assert!(text.contains("= help: did you mean `id`?"), "{text}");
    assert!(text.contains("error[invalid-value]"), "{text}");
    assert!(text.ends_with("2 errors, 0 warnings in 1 file\n"), "{text}");
}

#[test]
fn json_output_is_one_array_of_flat_diagnostics() {
    let dir = folder(&[("scout.yaml", BROKEN.as_bytes())]);
    let output = run(dir.path(), &["check", "scout.yaml", "--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    let expected = r#"[
  {
    "file": "scout.yaml",
    "line": 2,
    "column": 3,
    "end_line": 2,
    "end_column": 6,
    "severity": "error",
    "rule": "unknown-field",
    "message": "unknown field `idd` in `model`",
    "help": "did you mean `id`?",
    "notes": []
  },
  {
    "file": "scout.yaml",
    "line": 5,
    "column": 22,
    "end_line": 5,
    "end_column": 23,
    "severity": "error",
    "rule": "invalid-value",
    "message": "`runtime.max_steps` must be an integer or null, found the string `x`",
    "help": "it takes a whole number, without quotes: `max_steps: 20`",
    "notes": []
  }
]
"#;
    assert_eq!(stdout(&output), expected);
}

#[test]
fn github_output_is_workflow_commands_and_a_summary_per_file() {
    let dir = folder(&[("scout.yaml", BROKEN.as_bytes())]);
    let output = run(dir.path(), &["check", "scout.yaml", "--format", "github"]);
    assert_eq!(output.status.code(), Some(1));
    let expected = "::error file=scout.yaml,line=2,col=3,endLine=2,endColumn=6,title=unknown-field::unknown field `idd` in `model`%0Ahelp: did you mean `id`?\n\
::error file=scout.yaml,line=5,col=22,endLine=5,endColumn=23,title=invalid-value::`runtime.max_steps` must be an integer or null, found the string `x`%0Ahelp: it takes a whole number, without quotes: `max_steps: 20`\n\
scout.yaml: 2 errors, 0 warnings\n";
    assert_eq!(stdout(&output), expected);
}

#[test]
fn sarif_output_is_one_run_with_rules_and_located_results() {
    let dir = folder(&[("scout.yaml", BROKEN.as_bytes())]);
    let output = run(dir.path(), &["check", "scout.yaml", "--format", "sarif"]);
    assert_eq!(output.status.code(), Some(1));
    let log: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(log["version"], "2.1.0");
    assert!(log["$schema"].as_str().unwrap().contains("sarif"));
    let runs = log["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run["tool"]["driver"]["name"], "starweaver");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert!(ids.contains(&"unknown-field") && ids.contains(&"invalid-value"));
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    let first = &results[0];
    assert_eq!(first["ruleId"], "unknown-field");
    assert_eq!(first["level"], "error");
    let index = first["ruleIndex"].as_u64().unwrap() as usize;
    assert_eq!(rules[index]["id"], "unknown-field");
    assert!(first["message"]["text"].as_str().unwrap().contains("`idd`"));
    let location = &first["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "scout.yaml");
    assert_eq!(
        location["region"],
        serde_json::json!({"startLine": 2, "startColumn": 3, "endLine": 2, "endColumn": 6})
    );
}

/// A repeated toolset name and the six tools it makes the two share.
const REPEATED: &str = "version: 1\nname: scout\nmodel: {id: test}\nenvironment: {type: local}\ntoolsets:\n  - type: filesystem\n  - type: filesystem\n";

/// Regression: a repeated toolset name gave seven errors, six of them the tools the two
/// toolsets then share; it is one error, its consequences a note, and every format carries
/// the note.
#[test]
fn a_repeated_toolset_name_is_one_error_with_its_consequences_as_a_note_in_every_format() {
    let dir = folder(&[("scout.yaml", REPEATED.as_bytes())]);
    let note = "so the agent would also get two of each of their tools: `ls`, `read_file`";
    let human = stdout(&run(dir.path(), &["check", "scout.yaml"]));
    assert!(
        human.ends_with("1 error, 0 warnings in 1 file\n"),
        "{human}"
    );
    assert!(human.contains(&format!("= note: {note}")), "{human}");
    let json = stdout(&run(
        dir.path(),
        &["check", "scout.yaml", "--format", "json"],
    ));
    let found: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(found.as_array().unwrap().len(), 1, "{json}");
    assert_eq!(found[0]["rule"], "duplicate-name");
    assert!(
        found[0]["notes"][0].as_str().unwrap().starts_with(note),
        "{json}"
    );
    let github = stdout(&run(
        dir.path(),
        &["check", "scout.yaml", "--format", "github"],
    ));
    assert_eq!(github.lines().count(), 2, "{github}");
    assert!(github.contains(&format!("%0Anote: {note}")), "{github}");
    let sarif = stdout(&run(
        dir.path(),
        &["check", "scout.yaml", "--format", "sarif"],
    ));
    let log: serde_json::Value = serde_json::from_str(&sarif).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{sarif}");
    let text = results[0]["message"]["text"].as_str().unwrap();
    assert!(text.contains(&format!("\nnote: {note}")), "{text}");
}

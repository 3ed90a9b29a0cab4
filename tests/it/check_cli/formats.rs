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
    "help": "did you mean `id`?"
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
    "help": null
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
::error file=scout.yaml,line=5,col=22,endLine=5,endColumn=23,title=invalid-value::`runtime.max_steps` must be an integer or null, found the string `x`\n\
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

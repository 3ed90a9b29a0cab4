//! The bundle's definitions, `ls` and `read_file` windows, binary files
//! and directories, sizes, and the SKILL.md reminder.

use std::sync::Arc;

use serde_json::json;
use starweaver::environment::{
    EnvironmentProvider, VirtualEnvironmentProvider, ENVIRONMENT_CAPABILITY,
};
use starweaver::model::ToolReturnKind;
use starweaver::tools::{ToolDependencyProfile, ToolDependencyRequirements};
use starweaver::{filesystem_tools, tool_metadata_tags};

use crate::common::environment::{
    call_on, filesystem_registry, hidden_tree, ok_on, project, TestEnvironment,
};

// ---------------------------------------------------------------------------
// The bundle: definitions
// ---------------------------------------------------------------------------

#[test]
fn every_tool_is_filtered_to_the_environment_and_documents_its_arguments() {
    let registry = filesystem_registry();
    assert_eq!(
        registry.names(),
        ["edit_file", "glob", "grep", "ls", "read_file", "write_file"]
    );
    for definition in registry.definitions() {
        let requirements = ToolDependencyRequirements::from_metadata(&definition.metadata);
        assert_eq!(requirements.profile, ToolDependencyProfile::Filtered);
        assert_eq!(requirements.host_capabilities, [ENVIRONMENT_CAPABILITY]);
        let properties = definition.parameters["properties"].as_object().unwrap();
        assert!(!properties.is_empty(), "{}", definition.name);
        for (name, property) in properties {
            assert!(
                property["description"]
                    .as_str()
                    .is_some_and(|d| !d.is_empty()),
                "{}.{name} has no description",
                definition.name
            );
        }
        assert!(definition.return_schema.is_some(), "{}", definition.name);
        let tags = tool_metadata_tags(&definition.metadata);
        let mutating = ["write_file", "edit_file"].contains(&definition.name.as_str());
        assert!(tags.contains(&"filesystem".to_string()));
        assert_eq!(tags.contains(&"mutating".to_string()), mutating);
        assert_eq!(tags.contains(&"read_only".to_string()), !mutating);
        assert_eq!(definition.sequential == Some(true), mutating);
    }
    let toolset = filesystem_tools();
    assert_eq!(toolset.name(), "filesystem");
    assert_eq!(toolset.get_instructions().len(), 1);
}

// ---------------------------------------------------------------------------
// The bundle: tools
// ---------------------------------------------------------------------------

#[tokio::test]
async fn ls_lists_children_with_kinds_and_sizes() {
    let env: Arc<dyn EnvironmentProvider> = Arc::new(project());
    let listing = ok_on(env.clone(), "ls", json!({})).await;
    assert_eq!(listing["path"], "");
    assert_eq!(
        listing["entries"],
        json!([
            {"name": "docs/", "path": "docs", "kind": "directory"},
            {"name": "main.rs", "path": "main.rs", "kind": "file", "size": 13},
            {"name": "src/", "path": "src", "kind": "directory"}
        ])
    );
    assert_eq!(listing["total"], 3);
    assert_eq!(listing["truncated"], false);
    let nested = ok_on(env.clone(), "ls", json!({"path": "./src/"})).await;
    assert_eq!(nested["path"], "src");
    assert_eq!(nested["entries"][0]["name"], "bin/");
    let part = call_on(env, "ls", json!({"path": "main.rs"})).await;
    assert_eq!(part.kind, ToolReturnKind::Feedback);
    assert_eq!(part.content["details"]["error"], "not_a_directory");
}

#[tokio::test]
async fn read_file_returns_windows_of_lines() {
    let text: String = (1..=10).map(|n| format!("line {n}\n")).collect();
    let env: Arc<dyn EnvironmentProvider> =
        Arc::new(VirtualEnvironmentProvider::new("t").with_file("notes.txt", &text));
    let whole = ok_on(env.clone(), "read_file", json!({"path": "notes.txt"})).await;
    assert_eq!(whole["content"], text);
    assert_eq!(whole["total_lines"], 10);
    assert_eq!(whole["start_line"], 1);
    assert_eq!(whole["truncated"], false);
    assert!(whole.get("next_offset").is_none());

    let window = ok_on(
        env.clone(),
        "read_file",
        json!({"path": "notes.txt", "offset": 3, "limit": 2}),
    )
    .await;
    assert_eq!(window["content"], "line 3\nline 4\n");
    assert_eq!(window["start_line"], 3);
    assert_eq!(window["lines_returned"], 2);
    assert_eq!(window["total_lines"], 10);
    assert_eq!(window["truncated"], true);
    assert_eq!(window["next_offset"], 5);

    let tail = ok_on(
        env.clone(),
        "read_file",
        json!({"file_path": "/notes.txt", "offset": 9}),
    )
    .await;
    assert_eq!(tail["content"], "line 9\nline 10\n");
    assert_eq!(tail["truncated"], false);

    let part = call_on(
        env.clone(),
        "read_file",
        json!({"path": "notes.txt", "offset": 11}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::ModelRetry);
    assert!(part.content["message"]
        .as_str()
        .unwrap()
        .contains("has 10 lines"));

    let empty: Arc<dyn EnvironmentProvider> =
        Arc::new(VirtualEnvironmentProvider::new("t").with_file("empty.txt", ""));
    let nothing = ok_on(empty, "read_file", json!({"path": "empty.txt"})).await;
    assert_eq!(nothing["content"], "");
    assert_eq!(nothing["total_lines"], 0);
}

#[tokio::test]
async fn read_file_refuses_binary_files_and_directories_as_feedback() {
    let env: Arc<dyn EnvironmentProvider> = Arc::new(
        VirtualEnvironmentProvider::new("t")
            .with_bytes("logo.png", b"\x89PNG\r\n\x1a\n\0\0".to_vec())
            .with_dir("assets"),
    );
    let part = call_on(env.clone(), "read_file", json!({"path": "logo.png"})).await;
    assert_eq!(part.kind, ToolReturnKind::Feedback);
    assert!(!part.is_error());
    let message = part.content["message"].as_str().unwrap();
    assert!(message.contains("binary"), "{message}");
    assert_eq!(part.content["details"]["error"], "binary");

    let part = call_on(env.clone(), "read_file", json!({"path": "assets"})).await;
    assert_eq!(part.kind, ToolReturnKind::Feedback);
    assert_eq!(part.content["details"]["error"], "is_a_directory");

    let part = call_on(env, "read_file", json!({"path": "missing.md"})).await;
    assert_eq!(part.kind, ToolReturnKind::Feedback);
    assert_eq!(part.content["details"]["error"], "not_found");
    assert!(part.content["message"]
        .as_str()
        .unwrap()
        .contains("does not exist"));
}

#[tokio::test]
async fn results_with_a_skill_file_carry_a_reminder() {
    let env: Arc<dyn EnvironmentProvider> = Arc::new(hidden_tree());
    let found = ok_on(env.clone(), "glob", json!({"pattern": "SKILL.md"})).await;
    let reminder = found["reminder"].as_str().unwrap();
    assert!(
        reminder.contains(".agents/skills/research/SKILL.md"),
        "{reminder}"
    );
    assert!(reminder.contains("read its whole SKILL.md"), "{reminder}");

    let hits = ok_on(env.clone(), "grep", json!({"pattern": "research"})).await;
    assert!(hits["reminder"].as_str().is_some());

    let listing = ok_on(
        env.clone(),
        "ls",
        json!({"path": ".agents/skills/research"}),
    )
    .await;
    assert!(listing["reminder"].as_str().is_some());

    // No SKILL.md in the results, no reminder.
    let plain = ok_on(env.clone(), "glob", json!({"pattern": "*.rs"})).await;
    assert!(plain.get("reminder").is_none());
    let plain = ok_on(env.clone(), "grep", json!({"pattern": "source"})).await;
    assert!(plain.get("reminder").is_none());
    let plain = ok_on(env, "ls", json!({"path": "src"})).await;
    assert!(plain.get("reminder").is_none());

    // A directory named SKILL.md is not a skill file.
    let env: Arc<dyn EnvironmentProvider> =
        Arc::new(VirtualEnvironmentProvider::new("t").with_dir("SKILL.md"));
    let listing = ok_on(env, "ls", json!({})).await;
    assert!(listing.get("reminder").is_none());
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

/// docs/filesystem-tools.md, error classes: "a file too large to read" is
/// `feedback` with `details: {error, path}`. read.rs builds it with
/// `ToolError::feedback(..)`, which has no details.
#[tokio::test]
async fn read_file_too_large_feedback_carries_details() {
    // `stat` reports a size above what `read_file` loads.
    let env: Arc<dyn EnvironmentProvider> = Arc::new(
        TestEnvironment::new(VirtualEnvironmentProvider::new("t").with_file("dump.sql", "x"))
            .with_reported_size("dump.sql", 64 * 1024 * 1024),
    );
    let part = call_on(env, "read_file", json!({"path": "dump.sql"})).await;
    assert_eq!(part.kind, ToolReturnKind::Feedback, "{}", part.content);
    assert_eq!(
        part.content["details"]["path"], "dump.sql",
        "{}",
        part.content
    );
    assert!(
        part.content["details"]["error"].is_string(),
        "{}",
        part.content
    );
}

/// `limit: 0` returns no lines with `truncated: true` and a `next_offset`
/// equal to the offset just read, so an agent that pages by
/// `next_offset` never advances. It should be rejected (model_retry) or
/// treated as at least one line.
#[tokio::test]
async fn read_file_limit_zero_does_not_loop() {
    let env: Arc<dyn EnvironmentProvider> =
        Arc::new(VirtualEnvironmentProvider::new("t").with_file("a.txt", "one\ntwo\n"));
    let part = call_on(
        env,
        "read_file",
        json!({"path": "a.txt", "offset": 1, "limit": 0}),
    )
    .await;
    let stuck = part.kind == ToolReturnKind::Success
        && part.content["lines_returned"] == 0
        && part.content["next_offset"] == 1;
    assert!(!stuck, "{}", part.content);
}

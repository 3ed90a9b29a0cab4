//! The filesystem bundle on a real folder: the tools read, write, edit,
//! list and search it, refusals come back as feedback naming the path,
//! and the bundle's per-file locks keep concurrent edits from losing
//! updates.

use std::fs;
use std::sync::Arc;

use serde_json::json;
use starweaver::environment::EnvironmentProvider;
use starweaver::model::ToolReturnKind;

use crate::common::environment::{call_on, call_through, match_paths, ok_on};

use super::{folder, link, local, names};

#[tokio::test]
async fn the_tools_work_on_disk() {
    let root = folder(&[("src/lib.rs", "pub fn one() {}\n"), ("notes.md", "alpha\n")]);
    let env: Arc<dyn EnvironmentProvider> = Arc::new(local(&root));
    let written = ok_on(
        env.clone(),
        "write_file",
        json!({"path": "docs/new.md", "content": "needle\n"}),
    )
    .await;
    assert_eq!(written["created"], true);
    assert_eq!(
        fs::read_to_string(root.path().join("docs/new.md")).unwrap(),
        "needle\n"
    );
    ok_on(
        env.clone(),
        "edit_file",
        json!({"path": "notes.md", "old_string": "alpha", "new_string": "needle"}),
    )
    .await;
    assert_eq!(
        fs::read_to_string(root.path().join("notes.md")).unwrap(),
        "needle\n"
    );
    let read = ok_on(env.clone(), "read_file", json!({"path": "src/lib.rs"})).await;
    assert!(read.to_string().contains("pub fn one"), "{read}");
    let listed = ok_on(env.clone(), "ls", json!({})).await;
    assert!(listed.to_string().contains("notes.md"), "{listed}");
    let found = ok_on(env.clone(), "grep", json!({"pattern": "needle"})).await;
    assert_eq!(match_paths(&found), ["docs/new.md", "notes.md"]);
    // No temporary file is left behind by the writes.
    assert_eq!(names(root.path()), ["docs", "notes.md", "src"]);
    assert_eq!(names(&root.path().join("docs")), ["new.md"]);
}

#[tokio::test]
async fn links_leading_out_are_feedback_naming_the_path() {
    let root = folder(&[]);
    let outside = folder(&[("secret.txt", "outside")]);
    link(root.path(), "out", outside.path());
    let env: Arc<dyn EnvironmentProvider> = Arc::new(local(&root));
    for (tool, arguments) in [
        ("read_file", json!({"path": "out/secret.txt"})),
        (
            "write_file",
            json!({"path": "out/secret.txt", "content": "x"}),
        ),
        (
            "edit_file",
            json!({"path": "out/secret.txt", "old_string": "outside", "new_string": "x"}),
        ),
        ("ls", json!({"path": "out/inner"})),
    ] {
        let part = call_on(env.clone(), tool, arguments).await;
        assert_eq!(
            part.kind,
            ToolReturnKind::Feedback,
            "{tool}: {}",
            part.content
        );
        assert_eq!(part.content["details"]["error"], "access_denied", "{tool}");
        let message = part.content["message"].as_str().unwrap();
        assert!(message.contains("`out` on the way"), "{message}");
    }
    assert_eq!(
        fs::read_to_string(outside.path().join("secret.txt")).unwrap(),
        "outside"
    );
}

#[tokio::test]
async fn concurrent_edits_of_one_file_on_disk_keep_every_update() {
    let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
    let root = folder(&[("notes.md", &format!("{}\n", words.join("\n")))]);
    let env: Arc<dyn EnvironmentProvider> = Arc::new(local(&root));
    let edits = words.iter().map(|word| {
        call_on(
            env.clone(),
            "edit_file",
            json!({"path": "notes.md", "old_string": word, "new_string": word.to_uppercase()}),
        )
    });
    let parts = futures::future::join_all(edits).await;
    assert!(parts
        .iter()
        .all(|part| part.kind == ToolReturnKind::Success));
    let content = fs::read_to_string(root.path().join("notes.md")).unwrap();
    assert_eq!(content, "ALPHA\nBETA\nGAMMA\nDELTA\nEPSILON\nZETA\n");
    assert_eq!(names(root.path()), ["notes.md"]);
}

/// Regression: a link reports size 0, so `read_file` and `edit_file`
/// checked the link's size and then loaded its target whatever its size.
#[tokio::test]
async fn a_link_to_a_large_file_is_too_large_to_read_or_edit() {
    use starweaver::bundles::FilesystemOptions;
    let root = folder(&[("big.txt", &"x".repeat(10_000))]);
    std::os::unix::fs::symlink("big.txt", root.path().join("alias.txt")).unwrap();
    let env: Arc<dyn EnvironmentProvider> = Arc::new(local(&root));
    let toolset = FilesystemOptions::default()
        .with_max_file_bytes(1_000)
        .into_toolset();
    for (tool, arguments) in [
        ("read_file", json!({"path": "alias.txt"})),
        (
            "edit_file",
            json!({"path": "alias.txt", "old_string": "x", "new_string": "y", "replace_all": true}),
        ),
    ] {
        let part = call_through(&toolset, env.clone(), tool, arguments).await;
        assert_eq!(
            part.content["details"]["error"], "too_large",
            "{tool}: {}",
            part.content
        );
        assert_eq!(part.content["details"]["bytes"], 1_001, "{tool}");
    }
    assert_eq!(
        fs::read_to_string(root.path().join("big.txt"))
            .unwrap()
            .len(),
        10_000
    );
}

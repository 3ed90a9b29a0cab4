//! Sizes of reads, writes and edits.

use super::*;

// edit_file built a 4 GB string (400 KB of `a`, each replaced by 10 KB) and aborted.
#[tokio::test]
async fn an_amplifying_edit_is_refused_before_it_is_built() {
    let provider =
        Arc::new(VirtualEnvironmentProvider::new("t").with_file("a.txt", "a".repeat(400_000)));
    let part = call_on(
        provider.clone(),
        "edit_file",
        json!({"path": "a.txt", "old_string": "a", "new_string": "b".repeat(10_000), "replace_all": true}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::Feedback, "{:?}", part.content);
    assert_eq!(part.content["details"]["error"], "too_large");
    assert_eq!(part.content["details"]["bytes"], 4_000_000_000_u64);
    assert!(part.content["message"]
        .as_str()
        .unwrap()
        .contains("replace fewer occurrences"));
    assert_eq!(provider.read_text("a.txt").await.unwrap().len(), 400_000);
}

// edit_file edited files larger than read_file would read, and write_file took any size.
#[tokio::test]
async fn read_write_and_edit_share_one_size_limit() {
    let options = FilesystemOptions::default().with_max_file_bytes(1_000);
    let provider = Arc::new(
        VirtualEnvironmentProvider::new("t")
            .with_file("big.txt", "x".repeat(1_001))
            .with_file("ok.txt", format!("{}z", "y".repeat(999))),
    );
    for (name, arguments) in [
        ("read_file", json!({"path": "big.txt"})),
        (
            "edit_file",
            json!({"path": "big.txt", "old_string": "x", "new_string": "z"}),
        ),
        (
            "write_file",
            json!({"path": "new.txt", "content": "w".repeat(1_001)}),
        ),
        (
            "edit_file",
            json!({"path": "ok.txt", "old_string": "z", "new_string": "zz"}),
        ),
    ] {
        let part = call_with(options, provider.clone(), name, arguments).await;
        assert_eq!(
            part.kind,
            ToolReturnKind::Feedback,
            "{name}: {:?}",
            part.content
        );
        assert_eq!(part.content["details"]["error"], "too_large", "{name}");
        assert_eq!(part.content["details"]["max_file_bytes"], 1_000, "{name}");
    }
    assert!(!provider.exists("new.txt").await.unwrap());
    // At the limit is fine for all three.
    let read = call_with(
        options,
        provider.clone(),
        "read_file",
        json!({"path": "ok.txt"}),
    )
    .await;
    assert_eq!(read.kind, ToolReturnKind::Success);
    let write = call_with(
        options,
        provider.clone(),
        "write_file",
        json!({"path": "new.txt", "content": "w".repeat(1_000)}),
    )
    .await;
    assert_eq!(write.kind, ToolReturnKind::Success);
}

// write_file accepted 200 MB; the default limit is 16 MiB.
#[tokio::test]
async fn the_default_limit_refuses_a_huge_write() {
    let provider = Arc::new(VirtualEnvironmentProvider::new("t"));
    let content =
        "w".repeat(usize::try_from(starweaver::bundles::DEFAULT_MAX_FILE_BYTES).unwrap() + 1);
    let part = call_on(
        provider.clone(),
        "write_file",
        json!({"path": "huge.txt", "content": content}),
    )
    .await;
    assert_eq!(part.content["details"]["error"], "too_large");
    assert!(!provider.exists("huge.txt").await.unwrap());
}

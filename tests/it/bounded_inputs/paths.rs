//! Hostile paths and deep trees cost what they are, never more: path
//! limits refuse long and deep runtime paths with a short error, the
//! in-memory tree is linear in what was written, and seeding and
//! searching stay linear however deep or wide the tree.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use starweaver::environment::{
    glob, grep, EnvironmentError, EnvironmentProvider, GlobOptions, GrepOptions, PathLimits,
    VirtualEnvironmentProvider, DEFAULT_MAX_PATH_BYTES, DEFAULT_MAX_PATH_SEGMENTS,
};
use starweaver::model::{ToolReturnKind, ToolReturnPart};
use starweaver_core::bounds::MAX_ECHO_BYTES;

use crate::common::environment::call_on;

/// The most a refused call may send back: a message and details that
/// repeat at most a shortened path, far below the 4 KiB a path may be.
const MAX_REFUSAL_BYTES: usize = 4 * 1024 + MAX_ECHO_BYTES;

/// Runs `work` on its own thread and waits at most a minute: the broken
/// versions ran for minutes (or aborted on allocation) at these sizes,
/// the fixed ones take well under a second, so the bound holds on a
/// loaded machine without timing anything finely.
fn within_a_minute<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(work());
    });
    match receive.recv_timeout(Duration::from_secs(60)) {
        Ok(value) => value,
        Err(RecvTimeoutError::Timeout) => panic!("the work took over a minute"),
        Err(RecvTimeoutError::Disconnected) => panic!("the work panicked (see above)"),
    }
}

/// [`within_a_minute`] for async work, on a runtime of its own.
fn block_within_a_minute<T: Send + 'static>(
    work: impl std::future::Future<Output = T> + Send + 'static,
) -> T {
    within_a_minute(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
            .block_on(work)
    })
}

/// The tool return must be invalid-path feedback whose message names
/// `limit`, small however long the path was.
fn assert_refused(part: &ToolReturnPart, limit: &str) {
    assert_eq!(part.kind, ToolReturnKind::Feedback, "{}", part.content);
    assert_eq!(part.content["details"]["error"], "invalid_path");
    let message = part.content["message"].as_str().unwrap_or_default();
    assert!(message.contains(limit), "{message}");
    assert!(message.contains("use a shorter path"), "{message}");
    let size = part.content.to_string().len();
    assert!(size < MAX_REFUSAL_BYTES, "{size} bytes: {}", part.content);
    let path = part.content["details"]["path"].as_str().unwrap_or_default();
    assert!(path.len() <= MAX_ECHO_BYTES, "{}", path.len());
}

/// A tool call on `provider`, bounded by [`block_within_a_minute`].
fn call(
    provider: &Arc<VirtualEnvironmentProvider>,
    name: &str,
    arguments: Value,
) -> ToolReturnPart {
    let provider: Arc<dyn EnvironmentProvider> = provider.clone();
    let name = name.to_string();
    block_within_a_minute(async move { call_on(provider, &name, arguments).await })
}

/// A path of `segments` segments, each `width` bytes long.
fn path_of(segments: usize, width: usize) -> String {
    vec!["d".repeat(width); segments].join("/")
}

#[test]
fn a_300_kb_deep_write_is_refused_naming_the_limit() {
    // Broke: the write stored all 150,000 ancestors under their full
    // paths and aborted the process on allocation.
    let env = Arc::new(VirtualEnvironmentProvider::new("t"));
    let path = "d/".repeat(150_000) + "f";
    let part = call(&env, "write_file", json!({"path": path, "content": "x"}));
    assert_refused(&part, "more than the 4096 allowed");
    assert!(part.content["message"]
        .as_str()
        .is_some_and(|message| message.contains("300001 bytes")));
    assert!(env.file_paths().is_empty());
}

#[test]
fn a_100k_character_path_is_refused_by_every_tool() {
    // Broke: every tool echoed the whole path back, in the message and
    // in the details.
    let env = Arc::new(VirtualEnvironmentProvider::new("t").with_file("a.txt", "a"));
    let path = "p".repeat(100_000);
    for (name, arguments) in [
        ("read_file", json!({"path": path})),
        ("write_file", json!({"path": path, "content": ""})),
        (
            "edit_file",
            json!({"path": path, "old_string": "a", "new_string": "b"}),
        ),
        ("ls", json!({"path": path})),
        ("glob", json!({"pattern": "*", "path": path})),
        ("grep", json!({"pattern": "a", "path": path})),
    ] {
        let part = call(&env, name, arguments);
        assert_refused(&part, "more than the 4096 allowed");
    }
}

#[test]
fn paths_too_deep_are_refused_naming_the_segment_limit() {
    // Broke: nothing bounded the depth a model could make a provider
    // build.
    let env = Arc::new(VirtualEnvironmentProvider::new("t"));
    let too_deep = path_of(DEFAULT_MAX_PATH_SEGMENTS + 1, 1);
    let part = call(&env, "write_file", json!({"path": too_deep, "content": ""}));
    assert_refused(&part, "257 segments, more than the 256 allowed");
    let deepest = path_of(DEFAULT_MAX_PATH_SEGMENTS, 1);
    let part = call(&env, "write_file", json!({"path": deepest, "content": ""}));
    assert_eq!(part.kind, ToolReturnKind::Success, "{}", part.content);
    assert_eq!(env.file_paths(), [deepest]);
}

#[test]
fn seeding_300_000_files_and_deep_paths_is_linear() {
    // Broke: each with_file scanned the whole tree, so 100,000 files
    // took minutes, and a deep path stored every ancestor's full path.
    let (files, deep) = within_a_minute(|| {
        let mut env = VirtualEnvironmentProvider::new("t");
        for i in 0..300_000 {
            env = env.with_file(&format!("many/file-{i}.txt"), "x");
        }
        for depth in [10_000, 20_000, 50_000] {
            env = env.with_file(&format!("{}/leaf.txt", path_of(depth, 1)), "deep");
        }
        let paths = env.file_paths();
        let deep = paths
            .iter()
            .filter(|path| path.ends_with("leaf.txt"))
            .count();
        (paths.len(), deep)
    });
    assert_eq!((files, deep), (300_003, 3));
}

/// The deepest tree the default limits allow (256 segments, 4,096
/// bytes) with `wide` files at its bottom.
async fn deepest_tree(wide: usize) -> (VirtualEnvironmentProvider, String) {
    let env = VirtualEnvironmentProvider::new("t");
    // 255 directories of 15 bytes and their slashes: 4,080 bytes.
    let bottom = path_of(DEFAULT_MAX_PATH_SEGMENTS - 1, 15);
    for i in 0..wide {
        let path = format!("{bottom}/{i:06}.txt");
        assert!(path.len() <= DEFAULT_MAX_PATH_BYTES);
        env.write_text(&path, "needle\n").await.unwrap();
    }
    (env, bottom)
}

#[test]
fn glob_and_grep_over_the_deepest_allowed_tree_finish() {
    // Broke: a walk listed each level by scanning a map of full paths,
    // quadratic in the depth of the tree.
    let (globbed, grepped, listed) = block_within_a_minute(async {
        let (env, bottom) = deepest_tree(1_000).await;
        let globbed = glob(
            &env,
            "**/*.txt",
            &GlobOptions::default().with_max_results(5_000),
        )
        .await
        .unwrap();
        // Each match carries its 4 KB path: room for all of them.
        let options = GrepOptions {
            max_output_bytes: 64 * 1024 * 1024,
            ..GrepOptions::default().with_max_matches(5_000)
        };
        let grepped = grep(&env, "needle", &options).await.unwrap();
        let listed = env.list_dir(&bottom).await.unwrap().len();
        (globbed, grepped, listed)
    });
    assert_eq!(globbed.entries.len(), 1_000);
    assert_eq!(globbed.unreadable_dirs, 0);
    assert_eq!(grepped.matches.len(), 1_000);
    assert_eq!(grepped.files_searched, 1_000);
    assert_eq!(listed, 1_000);
}

#[test]
fn a_seeded_tree_deeper_than_the_limits_is_searched_down_to_them() {
    // Broke: seeding 100,000 levels needed gigabytes, and each level a
    // walk listed cost a scan of every longer key.
    let (globbed, grepped) = block_within_a_minute(async {
        let env = VirtualEnvironmentProvider::new("t")
            .with_file(&format!("{}/f.txt", path_of(100_000, 1)), "needle")
            .with_file("top.txt", "needle");
        let globbed = glob(&env, "**/*.txt", &GlobOptions::default())
            .await
            .unwrap();
        let grepped = grep(&env, "needle", &GrepOptions::default()).await.unwrap();
        (globbed, grepped)
    });
    // The walk stops where runtime paths end: the directory one past the
    // limit cannot be listed, and is counted.
    let paths: Vec<&str> = globbed.entries.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["top.txt"]);
    assert_eq!(globbed.unreadable_dirs, 1);
    assert_eq!(
        globbed.unreadable_paths,
        [path_of(DEFAULT_MAX_PATH_SEGMENTS + 1, 1)]
    );
    assert_eq!((grepped.matches.len(), grepped.unreadable), (1, 1));
}

#[test]
fn path_limits_can_be_raised_and_lowered() {
    // Broke: the limits were not configurable (there were none).
    block_within_a_minute(async {
        let deep = format!("{}/f.txt", path_of(1_000, 1));
        let raised = VirtualEnvironmentProvider::new("t").with_path_limits(
            PathLimits::default()
                .with_max_segments(2_000)
                .with_max_bytes(8_192),
        );
        raised.write_text(&deep, "needle").await.unwrap();
        assert_eq!(raised.read_text(&deep).await.unwrap(), "needle");
        // Searches normalize their root and list with the provider's
        // limits, so they reach as deep as it does.
        let options = GlobOptions::default().with_root(path_of(500, 1));
        let found = glob(&raised, "**/*.txt", &options).await.unwrap();
        assert_eq!(found.entries.len(), 1);
        assert_eq!(found.entries[0].path, deep);
        let report = grep(&raised, "needle", &GrepOptions::default())
            .await
            .unwrap();
        assert_eq!(report.matches.len(), 1);
        // The filesystem tools check paths against the provider's limits.
        let raised: Arc<dyn EnvironmentProvider> = Arc::new(raised);
        let part = call_on(raised, "read_file", json!({ "path": deep })).await;
        assert_eq!(part.content["content"], "needle", "{:?}", part.content);

        let lowered = Arc::new(
            VirtualEnvironmentProvider::new("t").with_path_limits(
                PathLimits::default()
                    .with_max_segments(2)
                    .with_max_bytes(16),
            ),
        );
        lowered.write_text("a/b", "").await.unwrap();
        let refused = lowered.write_text("a/b/c", "").await;
        assert!(matches!(
            &refused,
            Err(EnvironmentError::InvalidPath { reason, .. })
                if reason.contains("3 segments, more than the 2 allowed")
        ));
        let refused = lowered.read_text("abcdefghijklmnopq").await;
        assert!(matches!(
            &refused,
            Err(EnvironmentError::InvalidPath { reason, .. })
                if reason.contains("17 bytes long, more than the 16 allowed")
        ));
        // Tools act through the provider, so its lower limits hold there.
        let provider: Arc<dyn EnvironmentProvider> = lowered.clone();
        let part = call_on(
            provider,
            "write_file",
            json!({"path": "x/y/z", "content": ""}),
        )
        .await;
        assert_refused(&part, "more than the 2 allowed");
        assert_eq!(lowered.file_paths(), ["a/b"]);
    });
}

#[test]
fn huge_bad_patterns_are_not_sent_back() {
    // Broke: an invalid regex or glob was repeated in full in the retry
    // message (longer patterns are refused for their length first).
    let env = Arc::new(VirtualEnvironmentProvider::new("t").with_file("a.txt", "a"));
    for (name, pattern, reason) in [
        ("grep", "(".repeat(4_000), "unclosed group"),
        ("glob", "{".repeat(4_000), "invalid glob pattern"),
    ] {
        let part = call(&env, name, json!({"pattern": pattern}));
        assert_eq!(part.kind, ToolReturnKind::ModelRetry, "{name}");
        let size = part.content.to_string().len();
        assert!(size < MAX_REFUSAL_BYTES, "{name}: {size} bytes");
        // Still says what is wrong and how to fix it.
        let message = part.content["message"].as_str().unwrap_or_default();
        assert!(message.contains(reason), "{name}: {message}");
        assert!(message.contains("shortened]"), "{name}: {message}");
    }
}

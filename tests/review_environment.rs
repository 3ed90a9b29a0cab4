//! Review of the environment layer and the filesystem bundle.
//!
//! The first tests pinned defects found in review (they were ignored
//! until fixed) and now guard against their return. The last few lock in
//! behaviour that was checked and found correct.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use serde_json::json;
use starweaver::environment::{
    glob, walk, EnvironmentProvider, GlobOptions, VirtualEnvironmentProvider, WalkOptions,
};
use starweaver::model::ToolCallPart;
use starweaver::{
    attach_environment, filesystem_tools, AgentContext, ToolRegistry, ToolReturnKind,
};

mod common;
use common::environment::{call_on, TestEnvironment};
use common::{ambient, strings};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// `linked` is a symlink to the directory `src` (`stat` and `list_dir`
/// report it as a symlink; listing it shows `src`'s children, as the OS
/// does; reading it fails as reading a directory does).
fn linked_tree() -> TestEnvironment {
    TestEnvironment::new(
        VirtualEnvironmentProvider::new("linked")
            .with_file("src/lib.rs", "needle\n")
            .with_file("main.rs", "fn main() {}\n"),
    )
    .with_dir_symlink("linked", "src")
}

// ---------------------------------------------------------------------------
// Symlinked search roots
// ---------------------------------------------------------------------------

/// The spec: "directory symlinks are not followed"; the docs: symlinks
/// are "never entered". A directory symlink given as the search root is
/// listed through (`Walker` never stats the root), so glob returns paths
/// that only exist through the link.
#[tokio::test]
async fn glob_does_not_follow_a_directory_symlink_given_as_the_search_root() {
    let env = linked_tree();
    let found = glob(&env, "*.rs", &GlobOptions::default().with_root("linked")).await;
    if let Ok(report) = found {
        let paths: Vec<&str> = report.entries.iter().map(|e| e.path.as_str()).collect();
        assert!(
            paths.iter().all(|path| !path.starts_with("linked/")),
            "glob walked through the symlink `linked`: {paths:?}"
        );
    }
}

/// The same search root through `grep`: the root is stat'ed, is not a
/// `Directory`, and is treated as a named file. Reading it fails, the
/// failure is counted in `unreadable` (which the tool does not return),
/// and the model gets a success with zero files searched, while `glob`
/// on the same path lists files. Either report the symlink (feedback) or
/// search through it, but not an empty success.
#[tokio::test]
async fn grep_on_a_directory_symlink_path_is_not_a_silent_empty_success() {
    let env: Arc<dyn EnvironmentProvider> = Arc::new(linked_tree());
    let part = call_on(env, "grep", json!({"pattern": "needle", "path": "linked"})).await;
    let silent = part.kind == ToolReturnKind::Success
        && part.content["count"] == 0
        && part.content["files_searched"] == 0;
    assert!(
        !silent,
        "grep reported success with nothing searched: {}",
        part.content
    );
}

// ---------------------------------------------------------------------------
// Documented contracts the tools do not honour
// ---------------------------------------------------------------------------

/// docs/filesystem-tools.md: "`path` also accepts `file_path` (the name
/// many models use)". `grep` (like `ls` and `glob`) has no such alias and
/// no `deny_unknown_fields`, so `file_path` is dropped silently and the
/// whole tree is searched instead of the one file.
#[tokio::test]
async fn grep_accepts_file_path_like_the_other_tools() {
    let env: Arc<dyn EnvironmentProvider> = Arc::new(
        VirtualEnvironmentProvider::new("t")
            .with_file("a.txt", "needle in a\n")
            .with_file("b.txt", "needle in b\n"),
    );
    let part = call_on(
        env,
        "grep",
        json!({"pattern": "needle", "file_path": "a.txt"}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{}", part.content);
    assert_eq!(
        part.content["files_searched"], 1,
        "file_path was ignored: {}",
        part.content
    );
}

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

// ---------------------------------------------------------------------------
// edit_file data integrity
// ---------------------------------------------------------------------------

/// docs: "the file keeps its line endings". That holds only when
/// `old_string` contains a newline; a one-line `old_string` with a
/// multi-line `new_string` (the most common way to insert lines) writes
/// bare `\n` into a CRLF file, leaving mixed line endings.
#[tokio::test]
async fn edit_file_keeps_crlf_when_inserting_lines() {
    let provider = Arc::new(
        VirtualEnvironmentProvider::new("t").with_file("win.txt", "one\r\ntwo\r\nthree\r\n"),
    );
    let env: Arc<dyn EnvironmentProvider> = provider.clone();
    let part = call_on(
        env,
        "edit_file",
        json!({"path": "win.txt", "old_string": "two", "new_string": "two\nhalf"}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{}", part.content);
    assert_eq!(
        provider.read_text("win.txt").await.unwrap(),
        "one\r\ntwo\r\nhalf\r\nthree\r\n"
    );
}

/// An I/O error maps to `execution_failed`, which the registry retries
/// internally (3 times by default). `edit_file` is not idempotent: when the
/// failed attempt's write did land (a remote sandbox whose response timed
/// out, a failed fsync after rename), the retry applies the edit again.
#[tokio::test]
async fn edit_file_is_not_applied_twice_by_internal_retries() {
    let knobs = Arc::new(
        TestEnvironment::new(
            VirtualEnvironmentProvider::new("t").with_file("app.rs", "let a = 1;\n"),
        )
        .with_next_write_failing(),
    );
    let env: Arc<dyn EnvironmentProvider> = knobs.clone();
    let part = call_on(
        env,
        "edit_file",
        json!({
            "path": "app.rs",
            "old_string": "let a = 1;",
            "new_string": "let a = 1;\nlet b = 2;"
        }),
    )
    .await;
    let content = knobs.inner().read_text("app.rs").await.unwrap();
    assert_eq!(
        content.matches("let b = 2;").count(),
        1,
        "the edit was applied more than once (tool returned {:?}): {content:?}",
        part.kind
    );
}

/// Two agents sharing one environment (subagents, parallel sessions) edit
/// different parts of one file. `edit_file` reads, computes and writes with
/// no check that the file is unchanged, so the second write silently
/// drops the first edit, and both calls report success. `sequential`
/// only orders calls within one batch of one run.
#[tokio::test]
async fn concurrent_edits_of_one_file_do_not_lose_updates() {
    let knobs = Arc::new(
        TestEnvironment::new(
            VirtualEnvironmentProvider::new("t").with_file("notes.md", "alpha\nbeta\n"),
        )
        .with_yield_after_read(),
    );
    let env: Arc<dyn EnvironmentProvider> = knobs.clone();
    let (first, second) = tokio::join!(
        call_on(
            env.clone(),
            "edit_file",
            json!({"path": "notes.md", "old_string": "alpha", "new_string": "ALPHA"}),
        ),
        call_on(
            env.clone(),
            "edit_file",
            json!({"path": "notes.md", "old_string": "beta", "new_string": "BETA"}),
        ),
    );
    let content = knobs.inner().read_text("notes.md").await.unwrap();
    let both_reported_success =
        first.kind == ToolReturnKind::Success && second.kind == ToolReturnKind::Success;
    assert!(
        !both_reported_success || content == "ALPHA\nBETA\n",
        "both edits reported success but the file is {content:?}"
    );
}

// ---------------------------------------------------------------------------
// Output size
// ---------------------------------------------------------------------------

/// `read_file` caps its content at 256 KiB "so one read cannot flood the
/// model's context", but `grep` has no byte budget: up to 1,000 matches,
/// each with a 500-character line and up to 20 context lines of 500
/// characters, is about 10 MiB in one tool return. Matches and context
/// should share a byte budget (and set `truncated` when it runs out).
#[tokio::test]
async fn grep_output_is_bounded_like_read_file() {
    let line = format!("needle {}\n", "x".repeat(600));
    let env: Arc<dyn EnvironmentProvider> =
        Arc::new(VirtualEnvironmentProvider::new("t").with_file("wide.txt", line.repeat(1_100)));
    let part = call_on(
        env,
        "grep",
        json!({"pattern": "needle", "max_results": 1000, "context_lines": 10}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::Success);
    let bytes = serde_json::to_string(&part.content).unwrap().len();
    assert!(
        bytes <= 1024 * 1024,
        "one grep call returned {bytes} bytes to the model"
    );
}

/// Registry timeouts (and cancellation) only act when the tool's future
/// returns `Pending`. Walks and greps over the in-memory provider never
/// do: every `list_dir`/`read_bytes` is ready at once and the search loop
/// has no yield point, so a grep that runs for ~0.4 s (debug build) under
/// a 1 ms tool timeout finishes and is reported as a success, blocking
/// the runtime thread all the while. Searches should yield (or check a
/// deadline / the cancellation token) every few files and directories.
#[tokio::test]
async fn a_long_grep_respects_the_tool_timeout() {
    let body = "alpha beta gamma delta\n".repeat(2_000);
    let mut tree = VirtualEnvironmentProvider::new("big");
    for index in 0..400 {
        tree = tree.with_file(&format!("d{}/f{index}.txt", index % 20), body.clone());
    }
    let mut context = AgentContext::default();
    attach_environment(&mut context, Arc::new(tree));
    let part = ToolRegistry::new()
        .with_timeout_ms(1)
        .with_toolset(&filesystem_tools())
        .execute_call(
            ambient(context),
            &ToolCallPart::new("call-1", "grep", json!({"pattern": "[a-z]+\\d"})),
        )
        .await;
    assert_eq!(
        part.kind,
        ToolReturnKind::Timeout,
        "a 1 ms timeout did not stop the search: {}",
        part.content
    );
}

// ---------------------------------------------------------------------------
// Smaller input-handling defects
// ---------------------------------------------------------------------------

/// Paths are normalized (`src//a.rs` and `src/./a.rs` are `src/a.rs`),
/// and the docs say a leading `./` in a pattern is ignored, but interior
/// `//` and `/./` in a glob pattern are kept literally, so the pattern
/// silently matches nothing. A model joining a path and a pattern often
/// produces them.
#[tokio::test]
async fn glob_patterns_are_normalized_like_paths() {
    let env: Arc<dyn EnvironmentProvider> =
        Arc::new(VirtualEnvironmentProvider::new("t").with_file("src/lib.rs", ""));
    for pattern in ["src//*.rs", "src/./*.rs"] {
        let part = call_on(env.clone(), "glob", json!({"pattern": pattern})).await;
        assert_eq!(
            strings(&part.content["files"]),
            ["src/lib.rs"],
            "{pattern}: {}",
            part.content
        );
    }
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

/// `WalkOptions::max_depth`: "Deepest level to visit; 1 lists the root's
/// direct children only." A depth of 0 should visit nothing, but the
/// walker always yields the first level (the check only guards
/// descending), so 0 behaves like 1.
#[tokio::test]
async fn walk_max_depth_zero_visits_nothing() {
    let env = VirtualEnvironmentProvider::new("t")
        .with_file("a.rs", "")
        .with_file("src/b.rs", "");
    let entries = walk(&env, "", &WalkOptions::default().with_max_depth(0))
        .await
        .unwrap();
    let paths: Vec<&str> = entries.iter().map(|e| e.path.as_str()).collect();
    assert!(paths.is_empty(), "{paths:?}");
}

// ---------------------------------------------------------------------------
// Checked and sound (kept as regression locks)
// ---------------------------------------------------------------------------

/// Edge inputs that must never panic and must land in the documented
/// error class: huge offsets and limits, empty and pathological patterns,
/// NUL bytes, unicode, CRLF anchors.
#[tokio::test]
async fn edge_inputs_neither_panic_nor_misclassify() {
    let env: Arc<dyn EnvironmentProvider> = Arc::new(
        VirtualEnvironmentProvider::new("t")
            .with_file("crlf.txt", "one\r\ntwo\r\n")
            .with_file("é/ü.rs", "ünï needle\n")
            .with_file("empty.txt", ""),
    );
    let huge = u64::MAX;
    let part = call_on(
        env.clone(),
        "read_file",
        json!({"path": "crlf.txt", "offset": huge, "limit": huge}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::ModelRetry);
    let part = call_on(
        env.clone(),
        "read_file",
        json!({"path": "empty.txt", "offset": 1, "limit": huge}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::Success);
    for pattern in ["", "  ", "[", "{a,b", "../*", "a\u{0}b"] {
        let part = call_on(env.clone(), "glob", json!({"pattern": pattern})).await;
        assert_eq!(part.kind, ToolReturnKind::ModelRetry, "glob {pattern:?}");
    }
    let part = call_on(
        env.clone(),
        "glob",
        json!({"pattern": "**/*", "max_results": huge}),
    )
    .await;
    assert_eq!(part.content["count"], 3);
    for pattern in ["(", "a{99999}{99999}", "(?-u:\\xFF)"] {
        let part = call_on(env.clone(), "grep", json!({"pattern": pattern})).await;
        assert_eq!(part.kind, ToolReturnKind::ModelRetry, "grep {pattern:?}");
    }
    let part = call_on(
        env.clone(),
        "grep",
        json!({"pattern": "^two$", "context_lines": huge, "max_results": huge}),
    )
    .await;
    assert_eq!(part.content["matches"][0]["line_number"], 2);
    assert_eq!(part.content["matches"][0]["before"], json!(["one"]));
    let part = call_on(env.clone(), "grep", json!({"pattern": "ü|x*"})).await;
    assert_eq!(part.kind, ToolReturnKind::Success);
    assert_eq!(part.content["count"], 3, "{}", part.content);
    for path in ["../x", "/..", "a\u{0}b"] {
        let part = call_on(env.clone(), "ls", json!({"path": path})).await;
        assert_eq!(part.kind, ToolReturnKind::Feedback, "ls {path:?}");
    }
}

/// CRLF files edited with `\n` text (the documented conversion), with
/// `replace_all`, keep every line ending; writing over a directory is
/// refused without touching it.
#[tokio::test]
async fn crlf_replace_all_and_directory_writes_lose_nothing() {
    let provider = Arc::new(
        VirtualEnvironmentProvider::new("t")
            .with_file("w.txt", "a\r\nb\r\nx\r\na\r\nb\r\n")
            .with_file("dir/keep.txt", "kept"),
    );
    let env: Arc<dyn EnvironmentProvider> = provider.clone();
    let part = call_on(
        env.clone(),
        "edit_file",
        json!({"path": "w.txt", "old_string": "a\nb", "new_string": "c\nd", "replace_all": true}),
    )
    .await;
    assert_eq!(part.content["replacements"], 2, "{}", part.content);
    assert_eq!(
        provider.read_text("w.txt").await.unwrap(),
        "c\r\nd\r\nx\r\nc\r\nd\r\n"
    );
    let part = call_on(env, "write_file", json!({"path": "/dir/", "content": "x"})).await;
    assert_eq!(part.kind, ToolReturnKind::Feedback);
    assert_eq!(provider.read_text("dir/keep.txt").await.unwrap(), "kept");
}

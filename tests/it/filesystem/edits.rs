//! `write_file` and `edit_file`: parents, unique matches, line endings,
//! internal retries and concurrent edits of one file.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use starweaver::environment::{EnvironmentProvider, VirtualEnvironmentProvider};
use starweaver::model::ToolReturnKind;
use starweaver::{filesystem_tools, tool_proxy_toolset, AgentBuilder, AgentSession};

use crate::common::environment::{call_on, notes, ok_on, text_of, TestEnvironment};
use crate::common::{batch_model, proxied, strings, tool_returns};

#[tokio::test]
async fn write_file_creates_parents_and_says_whether_it_created() {
    let provider = Arc::new(VirtualEnvironmentProvider::new("t"));
    let env: Arc<dyn EnvironmentProvider> = provider.clone();
    let first = ok_on(
        env.clone(),
        "write_file",
        json!({"path": "deep/dir/new.txt", "content": "héllo"}),
    )
    .await;
    assert_eq!(
        first,
        json!({"path": "deep/dir/new.txt", "bytes_written": 6, "created": true})
    );
    assert!(provider.stat("deep/dir").await.unwrap().is_dir());
    let second = ok_on(
        env.clone(),
        "write_file",
        json!({"path": "deep/dir/new.txt", "content": "bye"}),
    )
    .await;
    assert_eq!(second["created"], false);
    assert_eq!(provider.read_text("deep/dir/new.txt").await.unwrap(), "bye");

    let part = call_on(env, "write_file", json!({"path": "deep", "content": "x"})).await;
    assert_eq!(part.kind, ToolReturnKind::Feedback);
    assert_eq!(part.content["details"]["error"], "is_a_directory");
}

#[tokio::test]
async fn edit_file_requires_a_unique_exact_match() {
    let provider = Arc::new(
        VirtualEnvironmentProvider::new("t")
            .with_file("app.rs", "let a = 1;\nlet b = 1;\nlet c = 2;\n"),
    );
    let env: Arc<dyn EnvironmentProvider> = provider.clone();

    let part = call_on(
        env.clone(),
        "edit_file",
        json!({"path": "app.rs", "old_string": "= 1;", "new_string": "= 9;"}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::ModelRetry);
    let message = part.content["message"].as_str().unwrap();
    assert!(message.contains("occurs 2 times"), "{message}");
    assert!(message.contains("lines 1, 2"), "{message}");
    assert!(message.contains("replace_all"), "{message}");

    let part = call_on(
        env.clone(),
        "edit_file",
        json!({"path": "app.rs", "old_string": "let d", "new_string": "let e"}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::ModelRetry);
    let message = part.content["message"].as_str().unwrap();
    assert!(message.contains("not found"), "{message}");
    assert!(message.contains("read the file again"), "{message}");

    let part = call_on(
        env.clone(),
        "edit_file",
        json!({"path": "app.rs", "old_string": "", "new_string": "x"}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::ModelRetry);

    let unique = ok_on(
        env.clone(),
        "edit_file",
        json!({"path": "app.rs", "old_string": "let b = 1;", "new_string": "let b = 3;"}),
    )
    .await;
    assert_eq!(
        unique,
        json!({"path": "app.rs", "replacements": 1, "first_line": 2})
    );
    let all = ok_on(
        env.clone(),
        "edit_file",
        json!({"path": "app.rs", "old_string": "let", "new_string": "const", "replace_all": true}),
    )
    .await;
    assert_eq!(all["replacements"], 3);
    assert_eq!(
        provider.read_text("app.rs").await.unwrap(),
        "const a = 1;\nconst b = 3;\nconst c = 2;\n"
    );

    // A CRLF file keeps its line endings when the model sends `\n`.
    provider
        .write_text("win.txt", "one\r\ntwo\r\nthree\r\n")
        .await
        .unwrap();
    ok_on(
        env.clone(),
        "edit_file",
        json!({"path": "win.txt", "old_string": "one\ntwo", "new_string": "1\n2"}),
    )
    .await;
    assert_eq!(
        provider.read_text("win.txt").await.unwrap(),
        "1\r\n2\r\nthree\r\n"
    );

    let part = call_on(
        env,
        "edit_file",
        json!({"path": "nope.rs", "old_string": "a", "new_string": "b"}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::Feedback);
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
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

/// CRLF files edited with `\n` text (the documented conversion), with
/// `replace_all`, keep every line ending; writing over a directory is
/// refused without touching it.
// Regression lock: checked in review and found sound; nothing broke.
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

/// Forty concurrent edits of one file on a multi-threaded runtime,
/// through paths that normalize the same (`n.txt`, `./n.txt`, `/n.txt`,
/// `x/../n.txt`), interleaved with whole-file writes of another file,
/// lose no update and do not deadlock.
// Regression lock: checked in review and found sound; nothing broke.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_edits_through_equivalent_paths_lose_nothing() {
    let provider = Arc::new(VirtualEnvironmentProvider::new("t").with_file(
        "n.txt",
        (0..40).map(|i| format!("line {i}\n")).collect::<String>(),
    ));
    let env: Arc<dyn EnvironmentProvider> = provider.clone();
    let spellings = ["n.txt", "./n.txt", "/n.txt", "x/../n.txt"];
    let mut calls = Vec::new();
    for i in 0..40 {
        let env = env.clone();
        let path = spellings[i % spellings.len()];
        calls.push(tokio::spawn(async move {
            let edit = call_on(
                env.clone(),
                "edit_file",
                json!({"path": path, "old_string": format!("line {i}\n"), "new_string": format!("LINE {i}\n")}),
            )
            .await;
            let write = call_on(
                env,
                "write_file",
                json!({"path": "other.txt", "content": format!("{i}")}),
            )
            .await;
            (edit.kind, write.kind)
        }));
    }
    let finished = tokio::time::timeout(
        std::time::Duration::from_secs(20),
        futures::future::join_all(calls),
    )
    .await
    .expect("the edits deadlocked");
    for outcome in finished {
        assert_eq!(
            outcome.unwrap(),
            (ToolReturnKind::Success, ToolReturnKind::Success)
        );
    }
    let content = provider.read_text("n.txt").await.unwrap();
    assert_eq!(content.matches("LINE").count(), 40, "{content}");
    let listed = call_on(env, "glob", json!({"pattern": "*.txt"})).await;
    assert_eq!(strings(&listed.content["files"]), ["n.txt", "other.txt"]);
}

// Regression lock (review found no defect): proxied writes of one file do not deadlock.
#[tokio::test]
async fn two_writes_of_one_file_through_the_proxy_do_not_deadlock() {
    let provider = notes();
    let model = batch_model(vec![vec![
        proxied(
            "w1",
            "write_file",
            json!({"path": "notes.txt", "content": "a\n"}),
        ),
        proxied(
            "w2",
            "write_file",
            json!({"path": "/notes.txt", "content": "b\n"}),
        ),
        proxied(
            "e1",
            "edit_file",
            json!({"path": "notes.txt", "old_string": "b", "new_string": "c"}),
        ),
        proxied("r1", "read_file", json!({"path": "notes.txt"})),
    ]]);
    let agent = AgentBuilder::new(model)
        .toolset(&tool_proxy_toolset(vec![filesystem_tools()]))
        .build();
    let mut session = AgentSession::new(agent).with_environment(provider.clone());
    let result = tokio::time::timeout(Duration::from_secs(5), session.run("write twice"))
        .await
        .expect("the batch deadlocked")
        .unwrap();
    let returns = tool_returns(&result.messages);
    assert!(returns
        .iter()
        .all(|part| part.kind == ToolReturnKind::Success));
    assert_eq!(returns[3].content["content"], "c\n");
    assert_eq!(text_of(&provider, "notes.txt").await, "c\n");
}

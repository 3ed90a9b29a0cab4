//! Error classes of the bundle: a missing environment, paths outside the
//! root, misspelled arguments, the root itself and edge inputs.

use std::sync::Arc;

use serde_json::json;
use starweaver::environment::{EnvironmentProvider, VirtualEnvironmentProvider};
use starweaver::model::{ToolCallPart, ToolReturnKind};
use starweaver::{AgentContext, ToolContext};

use crate::common::ambient;
use crate::common::environment::{call_on, filesystem_registry, project};

#[tokio::test]
async fn a_missing_environment_is_a_user_error() {
    for (name, arguments) in [
        ("ls", json!({})),
        ("read_file", json!({"path": "a"})),
        ("write_file", json!({"path": "a", "content": ""})),
        (
            "edit_file",
            json!({"path": "a", "old_string": "a", "new_string": "b"}),
        ),
        ("glob", json!({"pattern": "*"})),
        ("grep", json!({"pattern": "a"})),
    ] {
        // An ambient context without an environment, and no context at all.
        for ctx in [ambient(AgentContext::default()), ToolContext::default()] {
            let part = filesystem_registry()
                .execute_call(ctx, &ToolCallPart::new("c", name, arguments.clone()))
                .await;
            assert_eq!(part.kind, ToolReturnKind::UserError, "{name}");
            let message = part.content["message"].as_str().unwrap();
            assert!(message.contains("attach_environment"), "{message}");
            assert!(
                message.contains("AgentSession::with_environment"),
                "{message}"
            );
        }
    }
}

#[tokio::test]
async fn paths_outside_the_root_are_feedback_naming_the_problem() {
    let env: Arc<dyn EnvironmentProvider> = Arc::new(project());
    for (name, arguments) in [
        ("read_file", json!({"path": "../etc/passwd"})),
        ("write_file", json!({"path": "a/../../x", "content": ""})),
        ("ls", json!({"path": ".."})),
        ("glob", json!({"pattern": "*", "path": "../.."})),
        ("grep", json!({"pattern": "a", "path": "../"})),
    ] {
        let part = call_on(env.clone(), name, arguments).await;
        assert_eq!(
            part.kind,
            ToolReturnKind::Feedback,
            "{name}: {}",
            part.content
        );
        assert_eq!(part.content["details"]["error"], "path_escape", "{name}");
        assert!(part.content["message"]
            .as_str()
            .unwrap()
            .contains("outside the environment root"));
    }
}

#[tokio::test]
async fn misspelled_arguments_are_invalid_arguments_naming_the_field() {
    let env: Arc<dyn EnvironmentProvider> = Arc::new(project());
    for (tool, arguments, field) in [
        ("ls", json!({"paht": "src"}), "paht"),
        (
            "glob",
            json!({"pattern": "*.rs", "max_result": 5}),
            "max_result",
        ),
        (
            "glob",
            json!({"pattern": "*.rs", "file_path": "src"}),
            "file_path",
        ),
        (
            "grep",
            json!({"pattern": "fn", "contxt_lines": 2}),
            "contxt_lines",
        ),
        (
            "read_file",
            json!({"path": "main.rs", "lenght": 1}),
            "lenght",
        ),
        (
            "write_file",
            json!({"path": "x.rs", "contents": ""}),
            "contents",
        ),
        (
            "edit_file",
            json!({"path": "main.rs", "old_string": "a", "new_string": "b", "replace_al": true}),
            "replace_al",
        ),
    ] {
        let part = call_on(env.clone(), tool, arguments).await;
        assert_eq!(
            part.kind,
            ToolReturnKind::InvalidArguments,
            "{tool}: {}",
            part.content
        );
        let message = part.content["message"].as_str().unwrap();
        assert!(message.contains(field), "{tool}: {message}");
    }
    // `file_path` stays an alias where `path` names a file.
    for (tool, arguments) in [
        ("read_file", json!({"file_path": "main.rs"})),
        ("grep", json!({"pattern": "main", "file_path": "main.rs"})),
        ("write_file", json!({"file_path": "new.rs", "content": "x"})),
        (
            "edit_file",
            json!({"file_path": "new.rs", "old_string": "x", "new_string": "y"}),
        ),
    ] {
        let part = call_on(env.clone(), tool, arguments).await;
        assert_eq!(
            part.kind,
            ToolReturnKind::Success,
            "{tool}: {}",
            part.content
        );
    }
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

/// Edge inputs that must never panic and must land in the documented
/// error class: huge offsets and limits, empty and pathological patterns,
/// NUL bytes, unicode, CRLF anchors.
// Regression lock: checked in review and found sound; nothing broke.
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

/// Error messages name the path in backticks; for the environment root
/// that is an empty pair, "`` is a directory, not a file", which says
/// neither where (the root) nor what to do. `read_file`, `edit_file` and
/// `write_file` given `/`, `.` or `""` all return it.
#[tokio::test]
async fn errors_about_the_root_name_the_root() {
    let env: Arc<dyn EnvironmentProvider> =
        Arc::new(VirtualEnvironmentProvider::new("t").with_file("a.txt", "x"));
    for (tool, arguments) in [
        ("read_file", json!({"path": "/"})),
        ("write_file", json!({"path": ".", "content": "x"})),
        (
            "edit_file",
            json!({"path": "", "old_string": "a", "new_string": "b"}),
        ),
    ] {
        let part = call_on(env.clone(), tool, arguments).await;
        assert_eq!(part.kind, ToolReturnKind::Feedback, "{tool}");
        let message = part.content["message"].as_str().unwrap_or_default();
        assert!(
            !message.contains("``") && message.contains("root"),
            "{tool}: {message}"
        );
    }
}

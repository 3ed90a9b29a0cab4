//! Glob semantics: bare, scoped and recursive patterns, caps, bad
//! patterns, normalization and literal prefixes.

use std::sync::Arc;

use serde_json::json;
use starweaver::environment::{
    glob, grep, EnvironmentError, EnvironmentProvider, GlobOptions, GrepOptions, SearchError,
    VirtualEnvironmentProvider,
};
use starweaver::model::ToolReturnKind;

use crate::common::environment::{call_on, project, TestEnvironment};
use crate::common::strings;

use super::glob_paths;

// ---------------------------------------------------------------------------
// Glob semantics (library)
// ---------------------------------------------------------------------------

#[tokio::test]
async fn bare_patterns_match_at_any_depth() {
    let env = project();
    let options = GlobOptions::default();
    assert_eq!(
        glob_paths(&env, "*.rs", &options).await,
        ["main.rs", "src/bin/cli.rs", "src/lib.rs"]
    );
    assert_eq!(
        glob_paths(&env, "cli.rs", &options).await,
        ["src/bin/cli.rs"]
    );
    // A leading `/` anchors a bare pattern at the search root.
    assert_eq!(glob_paths(&env, "/main.rs", &options).await, ["main.rs"]);
    assert!(glob_paths(&env, "/lib.rs", &options).await.is_empty());
}

#[tokio::test]
async fn scoped_patterns_match_one_segment_under_their_directory() {
    let env = project();
    let options = GlobOptions::default();
    assert_eq!(glob_paths(&env, "src/*.rs", &options).await, ["src/lib.rs"]);
    assert_eq!(
        glob_paths(&env, "src/*/*.rs", &options).await,
        ["src/bin/cli.rs"]
    );
    assert!(glob_paths(&env, "bin/*.rs", &options).await.is_empty());
    assert!(glob_paths(&env, "missing/*.rs", &options).await.is_empty());
    // Relative to the chosen search path.
    let in_src = GlobOptions::default().with_root("src");
    assert_eq!(
        glob_paths(&env, "bin/*.rs", &in_src).await,
        ["src/bin/cli.rs"]
    );
    assert_eq!(
        glob_paths(&env, "*.rs", &in_src).await,
        ["src/bin/cli.rs", "src/lib.rs"]
    );
}

#[tokio::test]
async fn recursive_patterns_match_root_level_and_nested_files() {
    let env = project();
    let options = GlobOptions::default();
    assert_eq!(
        glob_paths(&env, "**/*.rs", &options).await,
        ["main.rs", "src/bin/cli.rs", "src/lib.rs"]
    );
    assert_eq!(
        glob_paths(&env, "src/**/*.rs", &options).await,
        ["src/bin/cli.rs", "src/lib.rs"]
    );
    assert_eq!(
        glob_paths(&env, "**/*.{md,rs}", &options).await,
        ["docs/guide.md", "main.rs", "src/bin/cli.rs", "src/lib.rs"]
    );
    // Directories only when asked for.
    let with_dirs = GlobOptions {
        include_dirs: true,
        ..GlobOptions::default()
    };
    assert_eq!(
        glob_paths(&env, "src/*", &with_dirs).await,
        ["src/bin", "src/lib.rs"]
    );
    assert_eq!(glob_paths(&env, "src/*", &options).await, ["src/lib.rs"]);
}

#[tokio::test]
async fn glob_caps_results_and_reports_truncation() {
    let env = project();
    let report = glob(&env, "**/*", &GlobOptions::default().with_max_results(2))
        .await
        .unwrap();
    assert_eq!(report.entries.len(), 2);
    assert!(report.truncated);
    let all = glob(&env, "**/*", &GlobOptions::default()).await.unwrap();
    assert_eq!(all.entries.len(), 4);
    assert!(!all.truncated);
}

#[tokio::test]
async fn bad_patterns_and_roots_are_errors_not_panics() {
    let env = project();
    for pattern in ["src/{a,b", "[z-a]", "", "../*.rs", "src/[a"] {
        let result = glob(&env, pattern, &GlobOptions::default()).await;
        assert!(
            matches!(result, Err(SearchError::InvalidGlob { .. })),
            "{pattern}: {result:?}"
        );
    }
    let result = grep(&env, "fn (", &GrepOptions::default()).await;
    let Err(SearchError::InvalidRegex { message, .. }) = result else {
        panic!("expected an invalid regex error, got {result:?}");
    };
    assert!(message.contains("unclosed group"), "{message}");
    assert!(matches!(
        glob(&env, "*.rs", &GlobOptions::default().with_root("nope")).await,
        Err(SearchError::Environment(EnvironmentError::NotFound { .. }))
    ));
    assert!(matches!(
        glob(&env, "*.rs", &GlobOptions::default().with_root("main.rs")).await,
        Err(SearchError::Environment(
            EnvironmentError::NotADirectory { .. }
        ))
    ));
    assert!(matches!(
        glob(&env, "*.rs", &GlobOptions::default().with_root("../up")).await,
        Err(SearchError::Environment(
            EnvironmentError::PathEscape { .. }
        ))
    ));
}

// ---------------------------------------------------------------------------
// The glob tool
// ---------------------------------------------------------------------------

#[tokio::test]
async fn bad_patterns_ask_the_model_to_fix_its_call() {
    let env: Arc<dyn EnvironmentProvider> = Arc::new(project());
    let part = call_on(env.clone(), "glob", json!({"pattern": "src/{a,b"})).await;
    assert_eq!(part.kind, ToolReturnKind::ModelRetry, "{}", part.content);
    assert!(part.content["message"]
        .as_str()
        .unwrap()
        .contains("invalid glob pattern `src/{a,b`"));
    let part = call_on(env, "grep", json!({"pattern": "fn ("})).await;
    assert_eq!(part.kind, ToolReturnKind::ModelRetry, "{}", part.content);
    let message = part.content["message"].as_str().unwrap();
    assert!(message.contains("invalid regular expression"), "{message}");
    assert!(message.contains("literally"), "{message}");
}

#[tokio::test]
async fn a_leading_dot_slash_anchors_the_pattern_at_the_search_root() {
    let env = project();
    let options = GlobOptions::default();
    assert_eq!(glob_paths(&env, "./*.rs", &options).await, ["main.rs"]);
    assert_eq!(
        glob_paths(&env, "./src/*.rs", &options).await,
        ["src/lib.rs"]
    );
    assert_eq!(
        glob_paths(&env, "src//bin/./*.rs", &options).await,
        ["src/bin/cli.rs"]
    );
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
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

/// A provider where the directory `private/` cannot be listed
/// (permission denied), as on disk.
fn locked() -> Arc<dyn EnvironmentProvider> {
    Arc::new(
        TestEnvironment::new(
            VirtualEnvironmentProvider::new("locked")
                .with_file("private/notes.txt", "needle\n")
                .with_file("open.txt", "needle\n"),
        )
        .with_unlistable_dir("private"),
    )
}

/// docs/filesystem-tools.md: "A subdirectory that cannot be listed is
/// skipped and counted ... Only a bad search root is an error", and the
/// literal-prefix shortcut is one of the "Shortcuts that do not change
/// results". But `GlobWalk::new` hands the prefix directory to
/// `Walker::starting_at`, whose first `list_dir` failure fails the walk
/// (`started` is false), so `private/*.txt` is an `execution_failed`
/// return (retried internally three times first) while the equivalent
/// `{private}/*.txt` and `**/*.txt` succeed and report `private` as
/// unreadable. The same holds for grep's `glob` filter.
#[tokio::test]
async fn literal_glob_prefix_counts_an_unreadable_directory_like_a_walk() {
    let same = call_on(locked(), "glob", json!({"pattern": "{private}/*.txt"})).await;
    assert_eq!(same.kind, ToolReturnKind::Success, "{}", same.content);
    assert_eq!(same.content["unreadable_paths"], json!(["private"]));

    let part = call_on(locked(), "glob", json!({"pattern": "private/*.txt"})).await;
    assert_eq!(part.kind, ToolReturnKind::Success, "glob: {}", part.content);
    assert_eq!(part.content["unreadable_paths"], json!(["private"]));

    let part = call_on(
        locked(),
        "grep",
        json!({"pattern": "needle", "glob": "private/*.txt"}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::Success, "grep: {}", part.content);
    assert_eq!(part.content["unreadable_paths"], json!(["private"]));
}

/// Glob normalization splits segments outside `[...]` classes, and
/// `segments` treats `\` as an escape everywhere. Inside a class globset
/// reads `\` literally (`[\]` is a class of one backslash), so after
/// `[\]` the splitter thinks the class is still open and never sees the
/// following `/`: the trailing-`/` rule (`dir/` is `dir/**`) and the
/// dropping of `.` and empty segments silently stop applying. `[\]x/y.rs`
/// finds `\x/y.rs`, but `[\]x/` and `[\]x/./y.rs` find nothing.
#[tokio::test]
async fn glob_normalization_after_a_class_with_a_backslash() {
    let env = VirtualEnvironmentProvider::new("t").with_file("\\x/y.rs", "");
    let exact = glob(&env, "[\\]x/y.rs", &GlobOptions::default())
        .await
        .unwrap();
    assert_eq!(exact.entries.len(), 1, "the class itself matches");
    for pattern in ["[\\]x/", "[\\]x/./y.rs", "[\\]x//y.rs"] {
        let found = glob(&env, pattern, &GlobOptions::default()).await.unwrap();
        let paths: Vec<&str> = found.entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["\\x/y.rs"], "{pattern}");
    }
}

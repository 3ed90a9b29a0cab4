//! Walks: hidden paths and the root's `.agents`, ignore rules, symlinks,
//! depth and entry limits, and unreadable paths.

use std::sync::Arc;

use serde_json::json;
use starweaver::environment::{
    glob, grep, is_hidden_excluded, walk, EntryKind, EnvironmentError, EnvironmentProvider,
    GlobOptions, GrepOptions, SearchError, VirtualEnvironmentProvider, WalkOptions,
};
use starweaver::model::ToolReturnKind;

use crate::common::environment::{call_on, hidden_tree, ok_on, project, TestEnvironment};
use crate::common::strings;

use super::glob_paths;

/// A virtual provider that ignores `target/` directories and `*.log`
/// files, and reports `linked` as a symlink to `src` (listing it would
/// show `src`'s children, as following the link would).
fn rules_provider() -> TestEnvironment {
    TestEnvironment::new(
        VirtualEnvironmentProvider::new("rules")
            .with_file("src/lib.rs", "needle\n")
            .with_file("target/debug/out.rs", "needle\n")
            .with_file("build.log", "needle\n")
            .with_file("notes/run.log", "needle\n")
            .with_file("notes/today.md", "needle\n"),
    )
    .with_dir_symlink("linked", "src")
    .with_ignore_rule(|path, is_dir| {
        let name = path.rsplit('/').next().unwrap_or(path);
        (is_dir && name == "target") || (!is_dir && name.ends_with(".log"))
    })
}

// ---------------------------------------------------------------------------
// Hidden paths, ignore rules, symlinks
// ---------------------------------------------------------------------------

#[tokio::test]
async fn the_roots_agents_directory_stays_visible_other_hidden_paths_do_not() {
    let env = hidden_tree();
    assert_eq!(
        glob_paths(&env, "**/*", &GlobOptions::default()).await,
        [".agents/skills/research/SKILL.md", "src/lib.rs"]
    );
    assert_eq!(
        glob_paths(&env, "SKILL.md", &GlobOptions::default()).await,
        [".agents/skills/research/SKILL.md"]
    );
    // With `a` as the search root, `a/.agents` is the root's direct child.
    assert_eq!(
        glob_paths(&env, "SKILL.md", &GlobOptions::default().with_root("a")).await,
        ["a/.agents/skills/x/SKILL.md"]
    );
    // A scoped pattern through a hidden directory needs include_hidden.
    assert!(glob_paths(&env, ".git/*", &GlobOptions::default())
        .await
        .is_empty());
    assert_eq!(
        glob_paths(&env, ".git/*", &GlobOptions::default().with_hidden(true)).await,
        [".git/config"]
    );
    assert_eq!(
        glob_paths(&env, ".agents/skills/*/SKILL.md", &GlobOptions::default()).await,
        [".agents/skills/research/SKILL.md"]
    );
    assert_eq!(
        glob_paths(&env, "**/*", &GlobOptions::default().with_hidden(true)).await,
        [
            ".agents/.cache/state.md",
            ".agents/skills/research/SKILL.md",
            ".env",
            ".git/config",
            "a/.agents/skills/x/SKILL.md",
            "src/lib.rs"
        ]
    );

    let report = grep(&env, "needle", &GrepOptions::default()).await.unwrap();
    let paths: Vec<&str> = report.matches.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(paths, [".agents/skills/research/SKILL.md", "src/lib.rs"]);

    let walked: Vec<String> = walk(&env, "", &WalkOptions::default())
        .await
        .unwrap()
        .into_iter()
        .map(|entry| entry.path)
        .collect();
    assert_eq!(
        walked,
        [
            ".agents",
            ".agents/skills",
            ".agents/skills/research",
            ".agents/skills/research/SKILL.md",
            "a",
            "src",
            "src/lib.rs"
        ]
    );
    assert!(!is_hidden_excluded(
        "",
        ".agents/skills/research/SKILL.md",
        false
    ));
    assert!(is_hidden_excluded("", "a/.agents/skills/x/SKILL.md", false));
}

#[tokio::test]
async fn provider_ignore_rules_apply_to_walks_but_not_to_direct_listings() {
    let env = rules_provider();
    // The symlink is listed (not followed); ignored paths are not.
    assert_eq!(
        glob_paths(&env, "**/*", &GlobOptions::default()).await,
        ["linked", "notes/today.md", "src/lib.rs"]
    );
    // A scoped pattern cannot reach into an ignored directory either.
    assert!(
        glob_paths(&env, "target/debug/*.rs", &GlobOptions::default())
            .await
            .is_empty()
    );
    let unfiltered = GlobOptions {
        respect_ignore: false,
        ..GlobOptions::default()
    };
    assert_eq!(glob_paths(&env, "*.log", &unfiltered).await.len(), 2);

    let report = grep(&env, "needle", &GrepOptions::default()).await.unwrap();
    let paths: Vec<&str> = report.matches.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(paths, ["notes/today.md", "src/lib.rs"]);

    let env: Arc<dyn EnvironmentProvider> = Arc::new(rules_provider());
    let listing = ok_on(env, "ls", json!({})).await;
    let names: Vec<&str> = listing["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["build.log", "linked", "notes/", "src/", "target/"]);
}

#[tokio::test]
async fn directory_symlinks_are_never_followed() {
    let env = rules_provider();
    assert_eq!(
        glob_paths(&env, "*.rs", &GlobOptions::default()).await,
        ["src/lib.rs"]
    );
    let walked = walk(&env, "", &WalkOptions::default()).await.unwrap();
    assert!(walked
        .iter()
        .all(|entry| !entry.path.starts_with("linked/")));
    assert!(walked
        .iter()
        .any(|entry| entry.path == "linked" && entry.kind == EntryKind::Symlink));
    assert!(glob_paths(&env, "linked/*.rs", &GlobOptions::default())
        .await
        .is_empty());
    let report = grep(&env, "needle", &GrepOptions::default()).await.unwrap();
    assert!(report.matches.iter().all(|m| !m.path.starts_with("linked")));
}

#[tokio::test]
async fn walks_respect_depth_and_entry_limits() {
    let env = project();
    let shallow = walk(&env, "", &WalkOptions::default().with_max_depth(1))
        .await
        .unwrap();
    let names: Vec<&str> = shallow.iter().map(|entry| entry.path.as_str()).collect();
    assert_eq!(names, ["docs", "main.rs", "src"]);
    let capped = walk(&env, "", &WalkOptions::default().with_max_entries(2))
        .await
        .unwrap();
    assert_eq!(capped.len(), 2);
    assert!(walk(&env, "missing", &WalkOptions::default())
        .await
        .is_err());
}

// ---------------------------------------------------------------------------
// Hidden paths in the tools
// ---------------------------------------------------------------------------

#[tokio::test]
async fn hidden_paths_in_the_tools_and_the_include_hidden_hint() {
    let env: Arc<dyn EnvironmentProvider> = Arc::new(hidden_tree());
    let found = ok_on(env.clone(), "glob", json!({"pattern": "**/*.md"})).await;
    assert_eq!(
        strings(&found["files"]),
        [".agents/skills/research/SKILL.md"]
    );
    let git = ok_on(env.clone(), "glob", json!({"pattern": ".git/*"})).await;
    assert_eq!(git["count"], 0);
    assert!(git["hint"].as_str().unwrap().contains("include_hidden"));
    let all = ok_on(
        env.clone(),
        "grep",
        json!({"pattern": "needle", "include_hidden": true}),
    )
    .await;
    assert_eq!(all["count"], 6);
}

// ---------------------------------------------------------------------------
// Symlinked roots and unreadable paths
// ---------------------------------------------------------------------------

#[tokio::test]
async fn a_symlink_as_the_search_root_is_refused_naming_it() {
    let env = rules_provider();
    let refused = |result: Result<(), SearchError>| matches!(result, Err(SearchError::SymlinkRoot { path }) if path == "linked");
    let globbed = glob(&env, "*.rs", &GlobOptions::default().with_root("linked")).await;
    assert!(refused(globbed.map(drop)));
    // With a literal prefix the root is checked the same way.
    let scoped = glob(
        &env,
        "a/*.rs",
        &GlobOptions::default().with_root("/linked/"),
    )
    .await;
    assert!(refused(scoped.map(drop)));
    assert!(refused(
        walk(&env, "linked", &WalkOptions::default())
            .await
            .map(drop)
    ));
    let grepped = grep(&env, "needle", &GrepOptions::default().with_root("linked")).await;
    assert!(refused(grepped.map(drop)));
    // The environment root is never refused, and links below it are
    // listed, not entered.
    assert!(walk(&env, "", &WalkOptions::default()).await.is_ok());

    let env: Arc<dyn EnvironmentProvider> = Arc::new(rules_provider());
    for (tool, arguments) in [
        ("glob", json!({"pattern": "*.rs", "path": "linked"})),
        ("grep", json!({"pattern": "needle", "path": "linked"})),
        ("ls", json!({"path": "linked"})),
    ] {
        let part = call_on(env.clone(), tool, arguments).await;
        assert_eq!(
            part.kind,
            ToolReturnKind::Feedback,
            "{tool}: {}",
            part.content
        );
        assert_eq!(
            part.content["details"],
            json!({"error": "symlink", "path": "linked"}),
            "{tool}"
        );
        let message = part.content["message"].as_str().unwrap();
        assert!(message.contains("target path"), "{tool}: {message}");
    }
}

/// A provider where `private/` cannot be listed and `secret.txt` cannot
/// be read, as with permission-denied paths on disk.
fn locked() -> Arc<dyn EnvironmentProvider> {
    Arc::new(
        TestEnvironment::new(
            VirtualEnvironmentProvider::new("locked")
                .with_file("open.txt", "nothing here\n")
                .with_file("private/notes.txt", "needle\n")
                .with_file("secret.txt", "needle\n"),
        )
        .with_unlistable_dir("private")
        .with_unreadable_file("secret.txt"),
    )
}

#[tokio::test]
async fn unreadable_paths_are_reported_not_mistaken_for_no_matches() {
    let found = ok_on(locked(), "glob", json!({"pattern": "**/*.txt"})).await;
    assert_eq!(strings(&found["files"]), ["open.txt", "secret.txt"]);
    assert_eq!(found["unreadable"], 1);
    assert_eq!(found["unreadable_paths"], json!(["private"]));
    let hint = found["hint"].as_str().unwrap();
    assert!(
        hint.contains("could not be read") && hint.contains("`private`"),
        "{hint}"
    );

    let hits = ok_on(locked(), "grep", json!({"pattern": "needle"})).await;
    assert_eq!(hits["count"], 0);
    assert_eq!(hits["unreadable"], 2);
    assert_eq!(hits["unreadable_paths"], json!(["private", "secret.txt"]));
    assert!(hits["hint"]
        .as_str()
        .unwrap()
        .contains("matches there are missing"));

    // Nothing unreadable: no fields, no hint.
    let clean = ok_on(Arc::new(project()), "grep", json!({"pattern": "fn"})).await;
    assert!(clean.get("unreadable").is_none() && clean.get("hint").is_none());

    // A file named as the search path that cannot be read is the error,
    // not an empty success.
    let part = call_on(
        locked(),
        "grep",
        json!({"pattern": "x", "path": "secret.txt"}),
    )
    .await;
    assert_eq!(
        part.kind,
        ToolReturnKind::ExecutionFailed,
        "{}",
        part.content
    );
    assert!(part.content["message"]
        .as_str()
        .unwrap()
        .contains("secret.txt"));
    let env = project();
    let missing = grep(&env, "x", &GrepOptions::default().with_root("src/nope.rs")).await;
    assert!(matches!(
        missing,
        Err(SearchError::Environment(EnvironmentError::NotFound { .. }))
    ));
}

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
// Regression tests from code reviews
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

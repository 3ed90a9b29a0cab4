//! Walks, glob and grep over a real folder: `.gitignore` and `.ignore`
//! apply hierarchically (git repository or not), hidden paths stay out
//! except the root's `.agents/`, and links leading out are never listed
//! as files, searched or followed.

use starweaver::environment::{
    glob, grep, walk, EntryKind, GlobOptions, GrepOptions, LocalEnvironmentProvider, SearchError,
    WalkOptions,
};
use tempfile::TempDir;

use super::{folder, link, local};

/// A hostile project: ignore files at two levels, hidden paths, and
/// links leading out of the root (to a folder and to a file).
fn project() -> (TempDir, TempDir, LocalEnvironmentProvider) {
    let outside = folder(&[
        ("secret.txt", "needle outside"),
        ("dir/inner.txt", "needle"),
    ]);
    let root = folder(&[
        (".gitignore", "*.log\ntarget/\n"),
        (".ignore", "!important.log\n"),
        ("src/lib.rs", "needle in source\n"),
        ("src/debug.log", "needle in a log\n"),
        ("important.log", "needle kept\n"),
        ("target/out.rs", "needle built\n"),
        ("sub/.gitignore", "local.txt\n!keep.log\n"),
        ("sub/local.txt", "needle local\n"),
        ("sub/keep.log", "needle kept below\n"),
        ("sub/deeper/local.txt", "needle deeper\n"),
        (".hidden/x.txt", "needle hidden\n"),
        (".env", "needle env\n"),
        (".agents/skills/a/SKILL.md", "needle skill\n"),
        ("sub/.agents/y.md", "needle nested agents\n"),
    ]);
    link(root.path(), "out-dir", outside.path());
    link(root.path(), "out-file", outside.path().join("secret.txt"));
    let env = local(&root);
    (root, outside, env)
}

#[tokio::test]
async fn walks_honour_ignore_files_and_hidden_rules_without_a_repository() {
    let (root, _outside, env) = project();
    assert!(!root.path().join(".git").exists());
    let entries = walk(&env, "", &WalkOptions::default()).await.unwrap();
    let listed: Vec<(&str, EntryKind)> = entries
        .iter()
        .map(|entry| (entry.path.as_str(), entry.kind))
        .collect();
    assert_eq!(
        listed,
        [
            (".agents", EntryKind::Directory),
            (".agents/skills", EntryKind::Directory),
            (".agents/skills/a", EntryKind::Directory),
            (".agents/skills/a/SKILL.md", EntryKind::File),
            ("important.log", EntryKind::File),
            ("src", EntryKind::Directory),
            ("src/lib.rs", EntryKind::File),
            ("sub", EntryKind::Directory),
            ("sub/deeper", EntryKind::Directory),
            ("sub/keep.log", EntryKind::File),
        ]
    );
    // Without the ignore rules, the ignored paths come back.
    let unfiltered = walk(
        &env,
        "",
        &WalkOptions {
            respect_ignore: false,
            ..WalkOptions::default()
        },
    )
    .await
    .unwrap();
    let paths: Vec<&str> = unfiltered.iter().map(|entry| entry.path.as_str()).collect();
    for ignored in [
        "src/debug.log",
        "target/out.rs",
        "sub/local.txt",
        "sub/deeper/local.txt",
    ] {
        assert!(paths.contains(&ignored), "{ignored}: {paths:?}");
    }
    assert!(!paths.iter().any(|path| path.starts_with("out-dir/")));
}

#[tokio::test]
async fn glob_never_lists_what_links_lead_to() {
    let (_root, _outside, env) = project();
    let report = glob(&env, "**/*", &GlobOptions::default()).await.unwrap();
    let found: Vec<(&str, EntryKind)> = report
        .entries
        .iter()
        .map(|entry| (entry.path.as_str(), entry.kind))
        .collect();
    assert_eq!(
        found,
        [
            (".agents/skills/a/SKILL.md", EntryKind::File),
            ("important.log", EntryKind::File),
            ("src/lib.rs", EntryKind::File),
            ("sub/keep.log", EntryKind::File),
        ]
    );
    let logs = glob(&env, "*.log", &GlobOptions::default()).await.unwrap();
    let logs: Vec<&str> = logs
        .entries
        .iter()
        .map(|entry| entry.path.as_str())
        .collect();
    assert_eq!(logs, ["important.log", "sub/keep.log"]);
    // Not through the link either, when the pattern names it.
    let through = glob(&env, "out-dir/*", &GlobOptions::default())
        .await
        .unwrap();
    assert!(through.entries.is_empty(), "{through:?}");
    assert!(matches!(
        glob(&env, "*", &GlobOptions::default().with_root("out-dir")).await,
        Err(SearchError::SymlinkRoot { .. })
    ));
}

#[tokio::test]
async fn grep_searches_only_what_is_inside_and_not_ignored() {
    let (_root, _outside, env) = project();
    let report = grep(&env, "needle", &GrepOptions::default()).await.unwrap();
    let mut paths: Vec<&str> = report
        .matches
        .iter()
        .map(|found| found.path.as_str())
        .collect();
    paths.dedup();
    assert_eq!(
        paths,
        [
            ".agents/skills/a/SKILL.md",
            "important.log",
            "src/lib.rs",
            "sub/keep.log"
        ]
    );
    assert!(report
        .matches
        .iter()
        .all(|found| !found.line.contains("outside")));
    // Links given as the search root are refused, to a file or a folder.
    for root in ["out-file", "out-dir"] {
        let options = GrepOptions {
            root: root.to_string(),
            ..GrepOptions::default()
        };
        assert!(
            matches!(
                grep(&env, "needle", &options).await,
                Err(SearchError::SymlinkRoot { .. })
            ),
            "{root}"
        );
    }
}

#[tokio::test]
async fn a_gitignore_written_through_the_provider_applies_to_the_next_search() {
    let root = folder(&[("a.txt", "needle"), ("b.txt", "needle")]);
    let env = local(&root);
    let before = glob(&env, "*.txt", &GlobOptions::default()).await.unwrap();
    assert_eq!(before.entries.len(), 2);
    use starweaver::environment::EnvironmentProvider;
    env.write_text(".gitignore", "a.txt\n").await.unwrap();
    let after = glob(&env, "*.txt", &GlobOptions::default()).await.unwrap();
    let paths: Vec<&str> = after
        .entries
        .iter()
        .map(|entry| entry.path.as_str())
        .collect();
    assert_eq!(paths, ["b.txt"]);
    // And one changed on disk behind its back, once the walk lists the
    // directory again.
    super::write(root.path(), ".gitignore", "b.txt\n");
    let changed = glob(&env, "*.txt", &GlobOptions::default()).await.unwrap();
    let paths: Vec<&str> = changed
        .entries
        .iter()
        .map(|entry| entry.path.as_str())
        .collect();
    assert_eq!(paths, ["a.txt"]);
}

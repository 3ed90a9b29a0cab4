//! The local provider keeps the in-memory provider's contract: the same
//! calls on the same tree give the same results and the same errors,
//! naming the same paths.

use starweaver::environment::{
    EntryKind, EnvironmentError, EnvironmentProvider, LocalEnvironmentProvider, PathLimits,
    VirtualEnvironmentProvider,
};

use super::{folder, local};

/// One call's outcome, as comparable text: the value, or the error's kind
/// and the path it names.
fn outcome<T: std::fmt::Debug>(result: Result<T, EnvironmentError>) -> String {
    match result {
        Ok(value) => format!("ok {value:?}"),
        Err(error) => {
            let kind = format!("{error:?}");
            let kind = kind
                .split([' ', '{', '('])
                .next()
                .unwrap_or_default()
                .to_string();
            format!("{kind} at {:?}", error.path().unwrap_or_default())
        }
    }
}

/// The same calls on `env`, in order, each outcome as text.
async fn scenario(env: &dyn EnvironmentProvider) -> Vec<String> {
    let mut outcomes = vec![
        outcome(env.read_text("a/file.txt").await),
        outcome(env.read_text("missing").await),
        outcome(env.read_text("a").await),
        outcome(env.read_text("").await),
        outcome(env.read_text("a/file.txt/inner").await),
        outcome(env.read_text("bin").await),
        outcome(env.read_text("../etc/passwd").await),
        outcome(env.read_text("/etc/passwd").await),
        outcome(env.write_text("a/file.txt/inner", "x").await),
        outcome(env.write_text("../x", "x").await),
        outcome(env.write_text("/", "x").await),
        outcome(env.write_text("a", "x").await),
        outcome(env.write_text("deep/er/file.md", "hi").await),
        outcome(env.write_text("a/file.txt", "rewritten").await),
        outcome(env.read_text("a/file.txt").await),
        outcome(env.stat("").await),
        outcome(env.stat("deep/er").await),
        outcome(env.stat("deep/er/file.md").await),
        outcome(env.stat("a/file.txt/b").await),
        outcome(env.list_dir("").await),
        outcome(env.list_dir("a").await),
        outcome(env.list_dir("empty").await),
        outcome(env.list_dir("a/file.txt").await),
        outcome(env.list_dir("missing").await),
        outcome(env.create_dir_all("a/file.txt/b/c").await),
        outcome(env.create_dir_all("a/file.txt").await),
        outcome(env.create_dir_all("x/y/z").await),
        outcome(env.create_dir_all("x/y").await),
        outcome(env.create_dir_all("").await),
        outcome(env.stat("x/y/z").await),
        outcome(env.remove("a").await),
        outcome(env.remove("").await),
        outcome(env.remove("a/file.txt/b").await),
        outcome(env.remove("missing").await),
        outcome(env.remove("deep/er/file.md").await),
        outcome(env.remove("deep/er").await),
        outcome(env.exists("deep/er").await),
        outcome(env.exists("a/file.txt").await),
    ];
    outcomes.push(outcome(env.list_dir("").await));
    outcomes
}

#[tokio::test]
async fn the_same_calls_give_what_the_in_memory_provider_gives() {
    let memory = VirtualEnvironmentProvider::new("t")
        .with_file("a/file.txt", "x")
        .with_file("a/b.rs", "fn b() {}")
        .with_file("z.md", "# z")
        .with_bytes("bin", vec![0xff, 0x00, 0xfe])
        .with_dir("empty");
    let root = folder(&[
        ("a/file.txt", "x"),
        ("a/b.rs", "fn b() {}"),
        ("z.md", "# z"),
    ]);
    std::fs::write(root.path().join("bin"), [0xff, 0x00, 0xfe]).unwrap();
    std::fs::create_dir(root.path().join("empty")).unwrap();
    let disk = local(&root);
    let expected = scenario(&memory).await;
    let actual = scenario(&disk).await;
    for (index, (want, got)) in expected.iter().zip(&actual).enumerate() {
        assert_eq!(got, want, "call #{index}");
    }
    assert_eq!(actual.len(), expected.len());
    // The outcomes are the contract, not just agreement.
    assert_eq!(actual[0], r#"ok "x""#);
    assert_eq!(actual[1], r#"NotFound at "missing""#);
    assert_eq!(actual[2], r#"IsADirectory at "a""#);
    assert_eq!(actual[4], r#"NotADirectory at "a/file.txt""#);
    assert_eq!(actual[5], r#"NotText at "bin""#);
    assert_eq!(actual[6], r#"PathEscape at "../etc/passwd""#);
    // A leading `/` is the environment root, never the host's.
    assert_eq!(actual[7], r#"NotFound at "etc/passwd""#);
    assert_eq!(actual[30], r#"InvalidPath at "a""#);
    assert_eq!(actual[31], r#"InvalidPath at "/""#);
}

#[tokio::test]
async fn listings_are_sorted_by_name_with_kinds_and_sizes() {
    let root = folder(&[
        ("b.txt", "bb"),
        ("a-b", ""),
        ("a/x.rs", "xyz"),
        ("a.rs", "1"),
    ]);
    super::link(root.path(), "c-link", "b.txt");
    let env = local(&root);
    let entries: Vec<(String, String, EntryKind, u64)> = env
        .list_dir("")
        .await
        .unwrap()
        .into_iter()
        .map(|entry| (entry.path, entry.name, entry.kind, entry.size))
        .collect();
    let row = |path: &str, kind, size| (path.to_string(), path.to_string(), kind, size);
    assert_eq!(
        entries,
        [
            row("a", EntryKind::Directory, 0),
            row("a-b", EntryKind::File, 0),
            row("a.rs", EntryKind::File, 1),
            row("b.txt", EntryKind::File, 2),
            row("c-link", EntryKind::Symlink, 0),
        ]
    );
    let nested = env.list_dir("/a/").await.unwrap();
    assert_eq!(nested[0].path, "a/x.rs");
    assert_eq!(nested[0].name, "x.rs");
    assert_eq!(nested[0].size, 3);
}

#[tokio::test]
async fn paths_keep_the_providers_limits() {
    let root = folder(&[]);
    let env = LocalEnvironmentProvider::new(root.path())
        .unwrap()
        .with_path_limits(PathLimits::default().with_max_segments(3));
    assert!(env.write_text("a/b/c", "x").await.is_ok());
    assert!(matches!(
        env.write_text("a/b/c/d", "x").await,
        Err(EnvironmentError::InvalidPath { reason, .. }) if reason.contains("more than the 3 allowed")
    ));
    assert!(!root.path().join("a/b/c/d").exists());
    // A segment longer than the host allows is an invalid path, not an
    // I/O error.
    let long = "n".repeat(300);
    let result = env.write_text(&long, "x").await;
    assert!(
        matches!(&result, Err(EnvironmentError::InvalidPath { reason, .. }) if reason.contains("255 bytes")),
        "{result:?}"
    );
}

#[tokio::test]
async fn the_root_must_be_an_existing_folder() {
    let root = folder(&[("file.txt", "x")]);
    assert!(matches!(
        LocalEnvironmentProvider::new(root.path().join("missing")),
        Err(EnvironmentError::NotFound { .. })
    ));
    assert!(matches!(
        LocalEnvironmentProvider::new(root.path().join("file.txt")),
        Err(EnvironmentError::NotADirectory { .. })
    ));
    let env = local(&root);
    assert_eq!(env.kind(), "local");
    assert_eq!(env.root(), root.path().canonicalize().unwrap());
}

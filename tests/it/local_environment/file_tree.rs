//! The environment file tree on both providers: the same listing for the
//! same tree, ignore rules and links on disk, and truncation.

use starweaver::environment::{environment_file_tree, FileTreeOptions, VirtualEnvironmentProvider};

use super::{folder, link, local};

const FILES: [(&str, &str); 7] = [
    ("README.md", "# project"),
    ("src/main.rs", "fn main() {}"),
    ("src/cli/args.rs", ""),
    ("src/cli/deep/er/hidden-by-depth.rs", ""),
    (".agents/skills/review/SKILL.md", ""),
    (".git/HEAD", "ref: refs/heads/main"),
    ("docs/.drafts/x.md", ""),
];

const EXPECTED: &str = "\
.agents/
  skills/
    review/
README.md
docs/
src/
  cli/
    args.rs
    deep/
  main.rs
";

#[tokio::test]
async fn both_providers_show_the_same_tree() {
    let memory = FILES.iter().fold(
        VirtualEnvironmentProvider::new("t"),
        |env, (path, content)| env.with_file(path, *content),
    );
    let options = FileTreeOptions::default();
    assert_eq!(
        environment_file_tree(&memory, &options).await.unwrap(),
        EXPECTED
    );
    let root = folder(&FILES);
    let disk = local(&root);
    assert_eq!(
        environment_file_tree(&disk, &options).await.unwrap(),
        EXPECTED
    );
}

#[tokio::test]
async fn on_disk_ignored_paths_and_links_leading_out_are_left_out() {
    let outside = folder(&[("secret.txt", "")]);
    let root = folder(&[
        (".gitignore", "target/\n*.log\n"),
        ("target/debug/app", ""),
        ("run.log", ""),
        ("src/lib.rs", ""),
    ]);
    link(root.path(), "escape", outside.path());
    // Relative, so it resolves inside the root (absolute links never do).
    std::os::unix::fs::symlink("src", root.path().join("inside")).unwrap();
    let env = local(&root);
    let tree = environment_file_tree(&env, &FileTreeOptions::default())
        .await
        .unwrap();
    assert_eq!(tree, "inside (symlink)\nsrc/\n  lib.rs\n");
    let short = FileTreeOptions::default().with_max_entries(1);
    assert_eq!(
        environment_file_tree(&env, &short).await.unwrap(),
        "inside (symlink)\n... 2 more entries not shown\n"
    );
}

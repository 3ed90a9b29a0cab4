#![allow(clippy::unwrap_used, clippy::expect_used)]

//! The native searches against the generic ones on the same real tree:
//! same matches, order, counters and truncation.

use std::path::Path;

use super::super::LocalEnvironmentProvider;
use crate::environment::{
    generic_glob, generic_grep, glob, grep, GlobOptions, GrepOptions, SearchError,
};

fn write(root: &Path, path: &str, content: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// A tree with the cases the rules care about: nesting, hidden paths,
/// the root's `.agents/`, ignore files at two levels with a whitelist,
/// binary and large files, and links inside and out of the root.
fn tree() -> (
    tempfile::TempDir,
    tempfile::TempDir,
    LocalEnvironmentProvider,
) {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(outside.path(), "secret.rs", "fn secret() {}\n");
    for krate in 0..3 {
        for file in 0..25 {
            write(
                root,
                &format!("crate_{krate}/src/mod_{}/file_{file}.rs", file % 3),
                &format!(
                    "fn handler_{file}() {{}}\n// TODO: split {krate}\nneedle_{krate}_{file}\n"
                ),
            );
        }
        write(
            root,
            &format!("crate_{krate}/README.md"),
            "# crate\nTODO: docs\n",
        );
    }
    write(root, "a-b/x.rs", "needle_dash\n");
    write(root, "a/b.rs", "needle_slash\n");
    write(root, ".hidden/inner.rs", "needle_hidden\n");
    write(
        root,
        ".agents/skills/s/SKILL.md",
        "---\nname: s\n---\nneedle_skill\n",
    );
    write(
        root,
        "nested/.agents/skills/t/SKILL.md",
        "needle_nested_skill\n",
    );
    write(root, ".gitignore", "*.log\nbuild/\n!keep.log\n");
    write(root, "crate_1/.gitignore", "generated/\n");
    write(root, "crate_1/generated/out.rs", "needle_generated\n");
    write(root, "build/artifact.rs", "needle_build\n");
    write(root, "logs/app.log", "needle_log\n");
    write(root, "logs/keep.log", "needle_keep\n");
    write(root, ".ignore", "scratch/\n");
    write(root, "scratch/note.rs", "needle_scratch\n");
    std::fs::write(root.join("binary.rs"), b"needle\0binary").unwrap();
    write(root, "large.rs", &"needle_large\n".repeat(1_000));
    std::os::unix::fs::symlink(outside.path(), root.join("escape_dir")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.rs"), root.join("escape.rs")).unwrap();
    std::os::unix::fs::symlink(root.join("a"), root.join("inside_dir")).unwrap();
    let provider = LocalEnvironmentProvider::new(root).unwrap();
    (dir, outside, provider)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn native_glob_equals_the_generic_glob() {
    let (_dir, _outside, provider) = tree();
    let rt = runtime();
    let patterns = [
        "*.rs",
        "**/*.rs",
        "crate_1/src/*/*.rs",
        "crate_1/**",
        "{crate_0,crate_2}/src/mod_1/*.rs",
        "*.md",
        "*.log",
        "SKILL.md",
        "escape*",
        "inside_dir/*",
        "missing/*.rs",
        ".hidden/*.rs",
    ];
    for pattern in patterns {
        for options in [
            GlobOptions::default(),
            GlobOptions::default().with_max_results(7),
            GlobOptions::default().with_hidden(true),
            GlobOptions {
                respect_ignore: false,
                include_dirs: true,
                ..GlobOptions::default()
            },
            GlobOptions::default().with_root("crate_1"),
            GlobOptions::default().with_root("nested"),
        ] {
            let native = rt.block_on(glob(&provider, pattern, &options)).unwrap();
            let generic = rt
                .block_on(generic_glob(&provider, pattern, &options))
                .unwrap();
            assert_eq!(native, generic, "{pattern} {options:?}");
        }
    }
}

#[test]
fn native_grep_equals_the_generic_grep() {
    let (_dir, _outside, provider) = tree();
    let rt = runtime();
    let small_files = GrepOptions {
        max_file_bytes: 1_000,
        ..GrepOptions::default()
    };
    let option_sets = [
        GrepOptions::default(),
        GrepOptions::default().with_max_matches(5),
        GrepOptions::default().with_context_lines(1),
        GrepOptions::default().with_glob("*.md"),
        GrepOptions::default().with_glob("crate_2/src/*/*.rs"),
        GrepOptions::default().with_root("crate_1"),
        GrepOptions::default().with_root("crate_1/src/mod_0/file_0.rs"),
        GrepOptions {
            include_hidden: true,
            respect_ignore: false,
            ..GrepOptions::default()
        },
        GrepOptions {
            max_output_bytes: 300,
            ..GrepOptions::default().with_context_lines(2)
        },
        small_files,
    ];
    for pattern in [
        "needle",
        "needle_\\d+_1\\b",
        "TODO: (split|docs)",
        "^$",
        "nothing here",
    ] {
        for options in &option_sets {
            let native = rt.block_on(grep(&provider, pattern, options)).unwrap();
            let generic = rt
                .block_on(generic_grep(&provider, pattern, options))
                .unwrap();
            assert_eq!(native, generic, "{pattern} {options:?}");
        }
    }
}

#[test]
fn native_searches_never_reach_outside_the_root() {
    let (_dir, _outside, provider) = tree();
    let rt = runtime();
    let everything = GrepOptions {
        include_hidden: true,
        respect_ignore: false,
        ..GrepOptions::default()
    }
    .with_max_matches(10_000);
    let report = rt.block_on(grep(&provider, "secret", &everything)).unwrap();
    assert!(report.matches.is_empty(), "{report:?}");
    let options = GlobOptions {
        include_hidden: true,
        respect_ignore: false,
        ..GlobOptions::default()
    };
    let found = rt
        .block_on(glob(&provider, "**/secret.rs", &options))
        .unwrap();
    assert!(found.entries.is_empty(), "{found:?}");
    let link_root = GlobOptions::default().with_root("escape_dir");
    assert!(matches!(
        rt.block_on(glob(&provider, "*", &link_root)),
        Err(SearchError::SymlinkRoot { .. } | SearchError::Environment(_))
    ));
}

#[test]
fn a_dropped_search_stops_its_threads() {
    let (_dir, _outside, provider) = tree();
    let rt = runtime();
    // Dropping the future before it finishes must not hang or panic; the
    // blocking side sees the cancellation and returns.
    rt.block_on(async {
        let options = GrepOptions::default();
        let search = grep(&provider, "needle", &options);
        let _ = tokio::time::timeout(std::time::Duration::from_millis(0), search).await;
    });
    let again = rt
        .block_on(grep(&provider, "needle_dash", &GrepOptions::default()))
        .unwrap();
    assert_eq!(again.matches.len(), 1);
}

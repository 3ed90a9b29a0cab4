//! The local provider against the tools people already trust, side by
//! side in one run: the `grep` and `glob` tools over a generated tree of
//! 50,000 files on disk against `rg` and `fd` on the same tree, and
//! `shell_exec` of `true` against a bare spawn.
//!
//! Tree (generated once under `target/bench-tree-50k`): 50 top folders x
//! 10 subfolders x 100 `file_NN.rs` files of 30 lines (about 75 MB), a
//! `.git/` folder (hidden, so skipped by every side), and a `.gitignore`
//! excluding `target/`, which holds 1,000 more files nobody searches.
//! One file in a thousand holds the identifier `needle_rare`.
//!
//! Measured (group `local_environment`), each pair doing the same work:
//!
//! * `grep_tool/rare` vs `rg/rare`: every file read, 50 matching lines;
//!   the tool call goes through `ToolRegistry::execute_call`, `rg` is a
//!   process (`rg --no-require-git -n needle_rare TREE`).
//! * `glob_tool/bare` vs `fd/bare`: file names matching `*_07.rs` at any
//!   depth (500 paths): the `glob` tool with `max_results` 2,000, and
//!   `fdfind -g '*_07.rs' TREE`.
//! * `shell_exec/program_true` vs `spawn/true`: the `shell_exec` tool
//!   with `{"program": "true"}` against
//!   `std::process::Command::new("true").status()`; and
//!   `shell_exec/command_true` vs `spawn/sh_c_true` for the shell form.
//!
//! Run with `benches/compare_local.sh` (installs `ripgrep` and `fd-find`
//! when missing and prints the ratios), or
//! `cargo bench --bench local_environment`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::local_tool_context;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_main, Criterion};
use serde_json::{json, Value};
use starweaver::environment::LocalEnvironmentProvider;
use starweaver::model::ToolCallPart;
use starweaver::{filesystem_tools, shell_tools, ToolRegistry};

const TOP: usize = 50;
const SUB: usize = 10;
const FILES: usize = 100;
const RARE_EVERY: usize = 1_000;

fn tree_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-tree-50k")
}

/// Writes the tree unless a finished one is there.
fn ensure_tree() -> PathBuf {
    let root = tree_root();
    let done = root.join(".git/bench-tree-done");
    if done.exists() {
        return root;
    }
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
    let mut index = 0;
    for top in 0..TOP {
        for sub in 0..SUB {
            let dir = root.join(format!("pkg_{top:02}/mod_{sub}"));
            std::fs::create_dir_all(&dir).unwrap();
            for file in 0..FILES {
                let mut text = String::new();
                for line in 0..30 {
                    let _ = writeln!(
                        text,
                        "pub fn handler_{top}_{sub}_{file}_{line}(input: &str) -> usize {{ input.len() + {line} }}"
                    );
                }
                if index % RARE_EVERY == 0 {
                    text.push_str("// needle_rare marks this file\n");
                }
                index += 1;
                std::fs::write(dir.join(format!("file_{file:02}.rs")), text).unwrap();
            }
        }
    }
    std::fs::create_dir_all(root.join("target")).unwrap();
    for file in 0..1_000 {
        std::fs::write(
            root.join(format!("target/out_{file}_7.rs")),
            "needle_rare\n",
        )
        .unwrap();
    }
    std::fs::write(done, "").unwrap();
    root
}

fn call(name: &str, arguments: Value) -> ToolCallPart {
    ToolCallPart {
        id: "bench".to_string(),
        name: name.to_string(),
        arguments: arguments.into(),
    }
}

fn lines(mut command: Command) -> usize {
    let output = command.stderr(Stdio::null()).output().unwrap();
    String::from_utf8_lossy(&output.stdout).lines().count()
}

fn rg(root: &Path) -> Command {
    let mut command = Command::new("rg");
    command
        .args(["--no-require-git", "-n", "needle_rare"])
        .arg(root);
    command
}

fn fd(root: &Path) -> Command {
    let mut command = Command::new("fdfind");
    command.args(["-g", "*_07.rs"]).arg(root);
    command
}

fn bench_local(c: &mut Criterion) {
    let root = ensure_tree();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let provider = Arc::new(LocalEnvironmentProvider::new(&root).unwrap());
    let ctx = local_tool_context(provider);
    let registry = ToolRegistry::new()
        .with_toolset(&filesystem_tools())
        .with_toolset(&shell_tools());
    let grep_call = call(
        "grep",
        json!({"pattern": "needle_rare", "max_results": 1000}),
    );
    let glob_call = call("glob", json!({"pattern": "*_07.rs", "max_results": 2000}));
    let true_program = call("shell_exec", json!({"program": "true"}));
    let true_command = call("shell_exec", json!({"command": "true"}));

    // The same work on both sides, checked before timing.
    let expected_matches = TOP * SUB * FILES / RARE_EVERY;
    let expected_paths = TOP * SUB;
    rt.block_on(async {
        let grep = registry.execute_call(ctx.clone(), &grep_call).await;
        assert!(!grep.is_error(), "{}", grep.content);
        assert_eq!(
            grep.content["matches"].as_array().map(Vec::len),
            Some(expected_matches),
            "{}",
            grep.content
        );
        let glob = registry.execute_call(ctx.clone(), &glob_call).await;
        assert!(!glob.is_error(), "{}", glob.content);
        assert_eq!(glob.content["count"], expected_paths, "{}", glob.content);
        let shell = registry.execute_call(ctx.clone(), &true_program).await;
        assert_eq!(shell.content["exit_code"], 0, "{}", shell.content);
    });
    assert_eq!(lines(rg(&root)), expected_matches);
    assert_eq!(lines(fd(&root)), expected_paths);

    let mut group = c.benchmark_group("local_environment");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (name, part) in [
        ("grep_tool/rare", &grep_call),
        ("glob_tool/bare", &glob_call),
        ("shell_exec/program_true", &true_program),
        ("shell_exec/command_true", &true_command),
    ] {
        group.bench_function(name, |b| {
            b.to_async(&rt)
                .iter(|| async { registry.execute_call(ctx.clone(), part).await });
        });
    }
    group.bench_function("rg/rare", |b| b.iter(|| rg(&root).output().unwrap()));
    group.bench_function("fd/bare", |b| b.iter(|| fd(&root).output().unwrap()));
    group.bench_function("spawn/true", |b| {
        b.iter(|| Command::new("true").status().unwrap());
    });
    group.bench_function("spawn/sh_c_true", |b| {
        b.iter(|| Command::new("sh").args(["-c", "true"]).status().unwrap());
    });
    group.finish();
}

fn benches() {
    let mut criterion = Criterion::default().configure_from_args();
    bench_local(&mut criterion);
}

criterion_main!(benches);

//! Glob and grep over a `VirtualEnvironmentProvider` holding a generated
//! source tree of about 5,000 files (5.6 MB of text).
//!
//! Tree: 20 crates, each with `Cargo.toml`, `README.md`, 20 `docs/*.md`
//! pages and 5 modules of 45 `.rs` files (4,500 Rust files, about 38
//! lines each), plus 100 files under a hidden `.git/` that walks skip.
//!
//! Measured (group `filesystem_search`):
//!
//! * `walk/all`: every visible entry.
//! * `glob/*`: `**/*.rs` (4,500 results), bare `*.md` (420 results at any
//!   depth), scoped `crate_07/src/mod_3/*.rs` (45 results; the literal
//!   prefix is entered with three `stat`s instead of a full walk).
//! * `grep/*`: a rare literal (one hit, every file read), a common regex
//!   capped at 100 matches (stops early), and a case-insensitive regex
//!   matching in 1 of 10 files with no cap (every file read).
//! * `naive/*`: what a user would otherwise write with the same crates: a
//!   recursive `list_dir` walk collecting file paths (no sorting, no
//!   ignore rules), matching every path with a `globset` matcher, and a
//!   grep that runs `Regex::is_match` on every line.
//! * `tool/grep_rare_literal`: the `grep` tool through
//!   `ToolRegistry::execute_call` (dispatch, profile, JSON result).
//!
//! Run with `cargo bench --bench filesystem_search`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_main, Criterion};
use serde_json::json;
use starweaver::environment::{
    glob, grep, walk, EnvironmentProvider, GlobOptions, GrepOptions, VirtualEnvironmentProvider,
    WalkOptions,
};
use starweaver::model::{ToolCallPart, ToolReturnKind};
use starweaver::{
    attach_environment, filesystem_tools, AgentContext, AgentContextHandle, ToolContext,
    ToolRegistry,
};

const CRATES: usize = 20;
const MODULES: usize = 5;
const FILES_PER_MODULE: usize = 45;
const DOC_PAGES: usize = 20;
const HIDDEN_FILES: usize = 100;

/// A Rust-like source file; every tenth carries a TODO, each one a unique
/// `needle_*` identifier.
fn source(krate: usize, module: usize, file: usize) -> String {
    let mut text = String::from(
        "use std::collections::HashMap;\nuse std::fmt;\n\nuse crate::error::Error;\n\n",
    );
    for item in 0..4 {
        let n = file * 4 + item;
        text.push_str(&format!(
            "/// Handles request kind {n} for module {module}.\n\
             pub fn handler_{n}(input: &str) -> Result<String, Error> {{\n    \
             let mut cache: HashMap<String, usize> = HashMap::new();\n    \
             let value = compute_{n}(input)?;\n    \
             cache.insert(value.clone(), {n});\n    \
             Ok(format!(\"{{value}}-{{}}\", cache.len()))\n}}\n\n"
        ));
    }
    if file % 10 == 3 {
        text.push_str("// TODO: split this module before it grows further.\n");
    }
    text.push_str(&format!(
        "pub const MARKER: &str = \"needle_{krate}_{module}_{file}\";\n"
    ));
    text
}

fn tree() -> VirtualEnvironmentProvider {
    let mut env = VirtualEnvironmentProvider::new("bench");
    for krate in 0..CRATES {
        let root = format!("crate_{krate:02}");
        env = env
            .with_file(
                &format!("{root}/Cargo.toml"),
                format!("[package]\nname = \"crate_{krate}\"\n"),
            )
            .with_file(
                &format!("{root}/README.md"),
                format!("# crate {krate}\nSee docs/.\n"),
            );
        for page in 0..DOC_PAGES {
            env = env.with_file(
                &format!("{root}/docs/page_{page:02}.md"),
                format!("# Page {page}\nThis page explains handler_{page}.\n"),
            );
        }
        for module in 0..MODULES {
            for file in 0..FILES_PER_MODULE {
                env = env.with_file(
                    &format!("{root}/src/mod_{module}/file_{file:03}.rs"),
                    source(krate, module, file),
                );
            }
        }
    }
    for object in 0..HIDDEN_FILES {
        env = env.with_file(&format!(".git/objects/{object:03}"), "needle_7_3_21 blob\n");
    }
    env
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// The hand-written baseline walk: every path, depth-first, no pruning.
async fn naive_paths(env: &dyn EnvironmentProvider) -> Vec<String> {
    let mut files = Vec::new();
    let mut pending = vec![String::new()];
    while let Some(directory) = pending.pop() {
        for entry in env.list_dir(&directory).await.unwrap() {
            if entry.name.starts_with('.') {
                continue;
            }
            if entry.is_dir() {
                pending.push(entry.path);
            } else {
                files.push(entry.path);
            }
        }
    }
    files
}

async fn naive_glob(env: &dyn EnvironmentProvider, matcher: &globset::GlobMatcher) -> usize {
    naive_paths(env)
        .await
        .iter()
        .filter(|path| matcher.is_match(path.as_str()))
        .count()
}

async fn naive_grep(env: &dyn EnvironmentProvider, regex: &regex::Regex) -> usize {
    let mut hits = 0;
    for path in naive_paths(env).await {
        let bytes = env.read_bytes(&path).await.unwrap();
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        hits += text.lines().filter(|line| regex.is_match(line)).count();
    }
    hits
}

fn matcher(pattern: &str) -> globset::GlobMatcher {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .unwrap()
        .compile_matcher()
}

#[allow(clippy::too_many_lines)]
fn bench_search(c: &mut Criterion) {
    let rt = runtime();
    let env = Arc::new(tree());
    let provider: &dyn EnvironmentProvider = env.as_ref();
    let unlimited = GlobOptions::default().with_max_results(usize::MAX);

    // Check the workload before timing it.
    rt.block_on(async {
        let rs = glob(provider, "**/*.rs", &unlimited).await.unwrap();
        assert_eq!(rs.entries.len(), CRATES * MODULES * FILES_PER_MODULE);
        let md = glob(provider, "*.md", &unlimited).await.unwrap();
        assert_eq!(md.entries.len(), CRATES * (DOC_PAGES + 1));
        let scoped = glob(provider, "crate_07/src/mod_3/*.rs", &unlimited)
            .await
            .unwrap();
        assert_eq!(scoped.entries.len(), FILES_PER_MODULE);
        let rare = grep(
            provider,
            "needle_7_3_21\"",
            &GrepOptions::default().with_fixed_strings(true),
        )
        .await
        .unwrap();
        assert_eq!(rare.matches.len(), 1);
        assert_eq!(
            rare.files_searched,
            CRATES * (2 + DOC_PAGES + MODULES * FILES_PER_MODULE)
        );
        let todo = grep(
            provider,
            r"todo: split",
            &GrepOptions::default()
                .with_case_insensitive(true)
                .with_max_matches(usize::MAX),
        )
        .await
        .unwrap();
        assert_eq!(todo.matches.len(), CRATES * MODULES * 5);
        assert_eq!(
            naive_grep(provider, &regex::Regex::new("needle_7_3_21\"").unwrap()).await,
            1
        );
        assert_eq!(
            naive_glob(provider, &matcher("**/*.rs")).await,
            CRATES * MODULES * FILES_PER_MODULE
        );
    });

    let mut group = c.benchmark_group("filesystem_search");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));

    group.bench_function("walk/all", |b| {
        b.to_async(&rt)
            .iter(|| async { walk(provider, "", &WalkOptions::default()).await.unwrap() });
    });
    for (name, pattern) in [
        ("glob/recursive_rs", "**/*.rs"),
        ("glob/bare_md", "*.md"),
        ("glob/scoped", "crate_07/src/mod_3/*.rs"),
    ] {
        group.bench_function(name, |b| {
            b.to_async(&rt).iter(|| async {
                glob(provider, black_box(pattern), &unlimited)
                    .await
                    .unwrap()
            });
        });
    }

    let rare = GrepOptions::default().with_fixed_strings(true);
    group.bench_function("grep/rare_literal", |b| {
        b.to_async(&rt).iter(|| async {
            grep(provider, black_box("needle_7_3_21\""), &rare)
                .await
                .unwrap()
        });
    });
    let capped = GrepOptions::default().with_max_matches(100);
    group.bench_function("grep/common_regex_capped_100", |b| {
        b.to_async(&rt).iter(|| async {
            grep(provider, black_box(r"fn handler_\d+\("), &capped)
                .await
                .unwrap()
        });
    });
    let insensitive = GrepOptions::default()
        .with_case_insensitive(true)
        .with_max_matches(usize::MAX);
    group.bench_function("grep/case_insensitive_all_files", |b| {
        b.to_async(&rt).iter(|| async {
            grep(provider, black_box("todo: split"), &insensitive)
                .await
                .unwrap()
        });
    });

    group.bench_function("naive/walk_all", |b| {
        b.to_async(&rt)
            .iter(|| async { naive_paths(provider).await });
    });
    let recursive = matcher("**/*.rs");
    group.bench_function("naive/glob_recursive_rs", |b| {
        b.to_async(&rt)
            .iter(|| async { naive_glob(provider, &recursive).await });
    });
    let scoped = matcher("crate_07/src/mod_3/*.rs");
    group.bench_function("naive/glob_scoped", |b| {
        b.to_async(&rt)
            .iter(|| async { naive_glob(provider, &scoped).await });
    });
    let rare_regex = regex::Regex::new(&regex::escape("needle_7_3_21\"")).unwrap();
    group.bench_function("naive/grep_rare_literal", |b| {
        b.to_async(&rt)
            .iter(|| async { naive_grep(provider, &rare_regex).await });
    });
    let insensitive_regex = regex::RegexBuilder::new("todo: split")
        .case_insensitive(true)
        .build()
        .unwrap();
    group.bench_function("naive/grep_case_insensitive_all_files", |b| {
        b.to_async(&rt)
            .iter(|| async { naive_grep(provider, &insensitive_regex).await });
    });

    let registry = ToolRegistry::new().with_toolset(&filesystem_tools());
    let mut context = AgentContext::default();
    attach_environment(&mut context, env.clone());
    let ctx = ToolContext::default().with_agent_context(AgentContextHandle::new(context));
    let call = ToolCallPart::new(
        "g1",
        "grep",
        json!({"pattern": "needle_7_3_21\"", "literal": true}),
    );
    let part = rt.block_on(registry.execute_call(ctx.clone(), &call));
    assert_eq!(part.kind, ToolReturnKind::Success, "{}", part.content);
    assert_eq!(part.content["count"], 1);
    group.bench_function("tool/grep_rare_literal", |b| {
        b.to_async(&rt)
            .iter(|| async { registry.execute_call(ctx.clone(), black_box(&call)).await });
    });
    group.finish();
}

/// The criterion entry points (the macro output carries no docs).
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::bench_search);
}

criterion_main!(group::benches);

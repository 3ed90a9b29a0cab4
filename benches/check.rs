//! The manifest checker in process: `validate::check` (parse, structure
//! pass, semantic rules, allow markers) and `validate::check_manifest`
//! (the checker, then the strict conversion to the checked `Manifest` the
//! loader takes) on two files.
//!
//! * `full_example`: the reference's full example, every section filled in
//!   (54 lines with comments, 1.9 KB: 7 toolsets, a template, a shell
//!   section, a skill scope).
//! * `200_toolsets`: a generated manifest of 200 `tools` toolsets of 5
//!   tools each, with proxy and search toolsets over them (1,221 lines,
//!   45 KB), checked against a catalog naming all 1,000 tools.
//!
//! Both are checked first: no error. The process-level comparison with
//! check-jsonschema is `benches/compare_check.sh`.
//!
//! Run with `cargo bench --bench check`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_main, Criterion};
use starweaver::config::diagnostics::Severity;
use starweaver::config::validate::{check, check_manifest, CheckContext};

/// The documented manifest, every section filled in (the reference's full example).
const FULL: &str = starweaver::config::reference::FULL_EXAMPLE;

const TOOLSETS: usize = 200;
const TOOLS_PER_SET: usize = 5;

/// A manifest of [`TOOLSETS`] tools toolsets and the names of all their tools.
fn large() -> (String, Vec<String>) {
    let mut text = String::from(
        "version: 1\nname: large\nmodel: {id: test}\nvars:\n  team: platform\n  tone: brief\n\
         instructions: |\n  You help {{ vars.team }}.\n  Be {{ vars.tone }}.\n\
         environment: {type: virtual}\n\
         shell: {allow_execute: true, allowed_programs: [git, cargo]}\ntoolsets:\n",
    );
    let mut tools = Vec::new();
    for set in 0..TOOLSETS {
        let names: Vec<String> = (0..TOOLS_PER_SET)
            .map(|tool| format!("tool_{set}_{tool}"))
            .collect();
        writeln!(
            text,
            "  - type: tools\n    name: set_{set}\n    tools: [{}]\n    \
             instructions: Use set {set} for its own records only.\n    timeout_ms: 5000\n    \
             approval_required: [{}]",
            names.join(", "),
            names[0]
        )
        .unwrap();
        tools.extend(names);
    }
    let all: Vec<String> = (0..TOOLSETS).map(|set| format!("set_{set}")).collect();
    writeln!(
        text,
        "  - type: proxy\n    name: everything\n    toolsets: [{}]\n  - type: search\n    \
         name: find\n    toolsets: [{}]\n  - type: filesystem\n    read_only: true\n  - type: shell",
        all[..TOOLSETS / 2].join(", "),
        all[TOOLSETS / 2..].join(", ")
    )
    .unwrap();
    text.push_str("runtime: {tool_execution: parallel, max_retries: 2}\n");
    (text, tools)
}

fn no_errors(bytes: &[u8], context: &CheckContext) {
    let found = check(bytes, context);
    let errors: Vec<_> = found
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert!(check_manifest(bytes, context).1.is_some());
}

fn bench_check(c: &mut Criterion) {
    let full = FULL.as_bytes();
    let full_context = CheckContext::new().with_catalog(["lookup", "render_video"]);
    no_errors(full, &full_context);
    let (large, tools) = large();
    let large = large.as_bytes();
    let large_context = CheckContext::new().with_catalog(tools);
    no_errors(large, &large_context);

    let mut group = c.benchmark_group("check");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("check/full_example", |b| {
        b.iter(|| check(black_box(full), &full_context));
    });
    group.bench_function("check_manifest/full_example", |b| {
        b.iter(|| check_manifest(black_box(full), &full_context));
    });
    group.bench_function("check/200_toolsets", |b| {
        b.iter(|| check(black_box(large), &large_context));
    });
    group.bench_function("check_manifest/200_toolsets", |b| {
        b.iter(|| check_manifest(black_box(large), &large_context));
    });
    group.finish();
}

mod group {
    criterion::criterion_group!(benches, super::bench_check);
}

criterion_main!(group::benches);

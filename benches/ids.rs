//! The cost of minting ids: an agent loop builds a tool context, with a
//! fresh run id and conversation id, for every tool call it dispatches
//! outside a run (and hosts do the same for direct calls).
//!
//! Measured:
//!
//! * `ids/mint`: one `RunId::default()`, a UUID v7 from the per-process
//!   seed and counter, written as `run-<uuid>`.
//! * `ids/tool_context_default`: `ToolContext::default()`, which mints two
//!   ids (run and conversation) and builds the rest of the context.
//!
//! Run with `cargo bench --bench ids`.

use std::hint::black_box;

use criterion::{criterion_main, Criterion};
use starweaver::{RunId, ToolContext};

/// Both measurements in one group, so they are read side by side.
fn bench_ids(c: &mut Criterion) {
    let mut group = c.benchmark_group("ids");
    group.bench_function("mint", |b| b.iter(|| black_box(RunId::default())));
    group.bench_function("tool_context_default", |b| {
        b.iter(|| black_box(ToolContext::default()));
    });
    group.finish();
}

/// The criterion entry points (the macro output carries no docs).
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::bench_ids);
}

criterion_main!(group::benches);

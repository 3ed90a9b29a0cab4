//! Agent loop overhead: a 10-step run on a scripted model with 3 tool
//! calls per step, timed per step with the model's own time excluded;
//! then the same run journaled to a run store (in memory, a SQLite file,
//! and PostgreSQL when `STARWEAVER_TEST_POSTGRES` names a server), each
//! run created, claimed, journaled step by step and finished; and the
//! unjournaled run traced: under a subscriber that keeps spans and exports
//! nothing, and exporting every span as JSON lines to a file.
//!
//! `cargo bench --bench agent_run`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_main, Criterion};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use starweaver::agent::Agent;
use starweaver::model::{
    Model, ModelError, ModelMessage, ModelRequestParameters, ModelResponse, ToolCallPart,
};
use starweaver::runs::{ClaimedRun, MemoryRunStore, NewRun, RunStore};
use starweaver::store::{SqliteRunStore, StoreUrl};
use starweaver::tools::BoxFuture;
use starweaver::{typed_tool, AgentBuilder, AgentRunOptions, ToolContext, ToolResult};

const STEPS: usize = 10;
const CALLS_PER_STEP: usize = 3;

/// Answers from a prebuilt script chosen by the number of responses so
/// far, and adds the time it spends to `model_nanos`.
struct ScriptModel {
    script: Vec<ModelResponse>,
    model_nanos: Arc<AtomicU64>,
}

impl Model for ScriptModel {
    fn name(&self) -> &str {
        "script"
    }

    fn request<'a>(
        &'a self,
        messages: &'a [ModelMessage],
        _parameters: &'a ModelRequestParameters,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        Box::pin(async move {
            let started = Instant::now();
            let answered = messages
                .iter()
                .filter(|message| matches!(message, ModelMessage::Response(_)))
                .count();
            let response = self.script[answered.min(self.script.len() - 1)].clone();
            let spent = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
            self.model_nanos.fetch_add(spent, Ordering::Relaxed);
            Ok(response)
        })
    }
}

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// Left operand.
    a: i64,
    /// Right operand.
    b: i64,
}

fn script() -> Vec<ModelResponse> {
    let mut script: Vec<ModelResponse> = (0..STEPS)
        .map(|step| {
            ModelResponse::tool_calls((0..CALLS_PER_STEP).map(|call| {
                ToolCallPart::new(
                    format!("s{step}c{call}"),
                    format!("add{call}"),
                    json!({"a": step, "b": call}),
                )
            }))
        })
        .collect();
    script.push(ModelResponse::text("done"));
    script
}

fn agent(model_nanos: Arc<AtomicU64>) -> Agent {
    let mut builder = AgentBuilder::new(Arc::new(ScriptModel {
        script: script(),
        model_nanos,
    }))
    .max_steps(u32::try_from(STEPS).unwrap() + 1);
    for index in 0..CALLS_PER_STEP {
        builder = builder.tool(Arc::new(typed_tool::<AddArgs, _, _>(
            format!("add{index}"),
            Some("Add two numbers".to_string()),
            |_ctx: ToolContext, args: AddArgs| async move {
                Ok(ToolResult::new(json!({"sum": args.a + args.b})))
            },
        )));
    }
    builder.build()
}

/// Runs the agent `iterations` times; the time per step, the model's own time excluded.
fn per_step(
    runtime: &tokio::runtime::Runtime,
    agent: &Agent,
    model_nanos: &AtomicU64,
    iterations: u64,
) -> Duration {
    model_nanos.store(0, Ordering::Relaxed);
    let started = Instant::now();
    for _ in 0..iterations {
        let result = runtime.block_on(agent.run("add things")).unwrap();
        assert_eq!(result.output, "done");
    }
    let total = started.elapsed();
    let model = Duration::from_nanos(model_nanos.load(Ordering::Relaxed));
    total.saturating_sub(model) / u32::try_from(STEPS).unwrap()
}

fn bench_agent_run(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let model_nanos = Arc::new(AtomicU64::new(0));
    let agent = agent(model_nanos.clone());
    let mut group = c.benchmark_group("agent_run");
    group.bench_function("per_step_excluding_model", |b| {
        b.iter_custom(|iterations| per_step(&runtime, &agent, &model_nanos, iterations));
    });
    // The same run with its spans recorded: by a subscriber that keeps them and exports
    // nothing, and exported as JSON lines (batched, to a temporary file).
    let trace_dir = tempfile::tempdir().unwrap();
    let target = starweaver::trace::TraceTarget::File(trace_dir.path().join("bench.jsonl"));
    let mask: starweaver::trace::Mask = Arc::new(|text: &str| text.to_string());
    let provider = starweaver::trace::provider(&target, mask, "bench").unwrap();
    for (name, jsonl) in [("traced_noop_subscriber", false), ("traced_jsonl", true)] {
        group.bench_function(format!("per_step_excluding_model_{name}"), |b| {
            b.iter_custom(|iterations| {
                let run = || per_step(&runtime, &agent, &model_nanos, iterations);
                if jsonl {
                    tracing::subscriber::with_default(starweaver::trace::subscriber(&provider), run)
                } else {
                    tracing::subscriber::with_default(tracing_subscriber::registry(), run)
                }
            });
        });
    }
    for (name, store) in runtime.block_on(stores()) {
        group.bench_function(format!("journaled_{name}"), |b| {
            b.iter_custom(|iterations| {
                model_nanos.store(0, Ordering::Relaxed);
                let started = Instant::now();
                for _ in 0..iterations {
                    runtime.block_on(journaled_run(&agent, &store));
                }
                let total = started.elapsed();
                let model = Duration::from_nanos(model_nanos.load(Ordering::Relaxed));
                total.saturating_sub(model) / u32::try_from(STEPS).unwrap()
            });
        });
    }
    group.finish();
    provider.shutdown().unwrap();
}

/// The stores to journal to: memory and a SQLite file always, PostgreSQL when a server is
/// named.
async fn stores() -> Vec<(&'static str, Arc<dyn RunStore>)> {
    let dir = tempfile::tempdir().unwrap().keep();
    let sqlite = SqliteRunStore::open(dir.join("runs.db")).await.unwrap();
    let mut stores: Vec<(&'static str, Arc<dyn RunStore>)> = vec![
        ("memory", Arc::new(MemoryRunStore::new())),
        ("sqlite", Arc::new(sqlite)),
    ];
    if let Ok(url) = std::env::var("STARWEAVER_TEST_POSTGRES") {
        let url = StoreUrl::parse(&url).unwrap();
        stores.push(("postgres", url.open().await.unwrap()));
    }
    stores
}

/// One run in `store`: created, claimed, run with its journal, finished.
async fn journaled_run(agent: &Agent, store: &Arc<dyn RunStore>) {
    store
        .create(NewRun::new("bench", "add things"))
        .await
        .unwrap();
    let (run, lease) = store.claim("bench", 30_000).await.unwrap().unwrap();
    let claimed = ClaimedRun::load(Arc::clone(store), run, lease)
        .await
        .unwrap();
    let options = AgentRunOptions::new().journal(claimed.journal());
    let result = agent
        .session()
        .run_with_options("add things", options)
        .await
        .unwrap();
    assert_eq!(result.output, "done");
    claimed
        .finish(result.output, result.structured_output, result.usage)
        .await
        .unwrap();
}

/// The criterion entry points (the macro output carries no docs).
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::bench_agent_run);
}

criterion_main!(group::benches);

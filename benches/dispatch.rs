//! Per-call overhead of `ToolRegistry::execute_call` against a hand-rolled
//! dispatcher that parses the arguments and awaits the same function.
//!
//! Every pair runs in the one `dispatch` group, on one current-thread
//! Tokio runtime, so the ratios compare numbers taken side by side:
//!
//! * `typed/execute_call` vs `typed/direct`: a `typed_tool` over
//!   `{a, b}` (Serde is the validation contract).
//! * `string/execute_call` vs `string/direct`: a `string_tool` with a
//!   manual schema, validated by `jsonschema` (compiled once, on the
//!   first call, before measurement starts).
//! * `typed_100_tools/execute_call`: the typed tool in a registry of 100
//!   tools, to show that the name lookup does not matter.
//!
//! A second group, `dispatch_breakdown`, times the pieces of the typed
//! path (context clone, argument clone, the type-erased `Tool::call`,
//! `call_tool`, `into_return_part`) to show where the overhead goes, and
//! two variants of the typed call: with its future boxed (so awaiting it
//! moves a pointer, not the state machine) and with an ambient agent
//! context attached, as agent runs do (visibility check and dependency
//! resolution).
//!
//! Run with `cargo bench --bench dispatch`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_main, BatchSize, Criterion};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use starweaver::model::ToolCallPart;
use starweaver::tools::{CompiledSchema, DynTool, ToolCallOutcome, ToolLimits};
use starweaver::{
    string_tool, typed_tool, AgentContext, AgentContextHandle, ToolContext, ToolError,
    ToolRegistry, ToolResult,
};

/// Arguments of the benchmarked tool.
#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// Left operand.
    a: i64,
    /// Right operand.
    b: i64,
}

/// The tool body shared by every variant.
async fn add(_ctx: ToolContext, args: AddArgs) -> Result<ToolResult, ToolError> {
    Ok(ToolResult::new(json!({ "sum": args.a + args.b })))
}

/// The same body over raw JSON, for the manual-schema tool (the schema
/// has already been checked; the fields are read out of the value).
async fn add_raw(_ctx: ToolContext, args: Value) -> Result<ToolResult, ToolError> {
    let a = args["a"].as_i64().unwrap_or_default();
    let b = args["b"].as_i64().unwrap_or_default();
    Ok(ToolResult::new(json!({ "sum": a + b })))
}

fn add_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "a": {"type": "integer", "description": "Left operand."},
            "b": {"type": "integer", "description": "Right operand."}
        },
        "required": ["a", "b"],
        "additionalProperties": false
    })
}

fn typed_add(name: &str) -> DynTool {
    Arc::new(typed_tool::<AddArgs, _, _>(
        name,
        Some("Add two integers".to_string()),
        add,
    ))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}

fn bench_dispatch(c: &mut Criterion) {
    let rt = runtime();
    let ctx = ToolContext::default();
    let arguments = json!({"a": 20, "b": 22});

    let typed = ToolRegistry::new().with_tool(typed_add("add"));
    let typed_call = ToolCallPart::new("call_1", "add", arguments.clone());

    let string = ToolRegistry::new().with_tool(Arc::new(string_tool(
        "add",
        Some("Add two integers".to_string()),
        add_schema(),
        add_raw,
    )));
    let string_call = typed_call.clone();
    // A hand-rolled dispatcher validating against the same schema with the
    // same `jsonschema` validator, compiled once and reused.
    let schema = add_schema();
    let validator = CompiledSchema::default();
    validator.validate("add", &schema, &arguments).unwrap();

    let mut large = ToolRegistry::new();
    for index in 0..99 {
        large.insert_tool(typed_add(&format!("filler_{index:02}")));
    }
    large.insert_tool(typed_add("add"));
    assert_eq!(large.len(), 100);

    // Sanity: every variant succeeds with the same content (this also
    // compiles the manual schema before measurement).
    for registry in [&typed, &string, &large] {
        let part = rt.block_on(registry.execute_call(ctx.clone(), &typed_call));
        assert!(part.is_success(), "{part:?}");
        assert_eq!(part.content, json!({"sum": 42}));
    }

    // Futures are moved by value when awaited, spawned or joined; a large
    // state machine costs memcpy on every call.
    eprintln!(
        "sizes (bytes): execute_call future {}, call_tool future {}, direct future {}, ToolContext {}",
        std::mem::size_of_val(&typed.execute_call(ctx.clone(), &typed_call)),
        std::mem::size_of_val(&typed.call_tool(ctx.clone(), "call_1", "add", json!({}))),
        std::mem::size_of_val(&add(ctx.clone(), AddArgs { a: 1, b: 2 })),
        std::mem::size_of::<ToolContext>(),
    );

    let mut group = c.benchmark_group("dispatch");

    group.bench_function("typed/execute_call", |b| {
        b.to_async(&rt)
            .iter(|| typed.execute_call(ctx.clone(), black_box(&typed_call)));
    });
    group.bench_function("typed/direct", |b| {
        b.to_async(&rt).iter(|| async {
            let value = black_box(&arguments).clone();
            let args = serde_json::from_value::<AddArgs>(value).unwrap();
            let result = add(ctx.clone(), args).await.unwrap();
            black_box(result.content)
        });
    });

    group.bench_function("string/execute_call", |b| {
        b.to_async(&rt)
            .iter(|| string.execute_call(ctx.clone(), black_box(&string_call)));
    });
    group.bench_function("string/direct", |b| {
        b.to_async(&rt).iter(|| async {
            let value = black_box(&arguments).clone();
            validator.validate("add", &schema, &value).unwrap();
            let result = add_raw(ctx.clone(), value).await.unwrap();
            black_box(result.content)
        });
    });

    group.bench_function("typed_100_tools/execute_call", |b| {
        b.to_async(&rt)
            .iter(|| large.execute_call(ctx.clone(), black_box(&typed_call)));
    });

    group.finish();

    // Where the typed execute_call time goes: each step adds to the one
    // before (dyn call -> call_tool -> execute_call).
    let tool = typed.get("add").unwrap().clone();
    let mut group = c.benchmark_group("dispatch_breakdown");
    group.bench_function("tool_context_clone_drop", |b| {
        b.iter(|| black_box(ctx.clone()));
    });
    group.bench_function("arguments_clone_drop", |b| {
        b.iter(|| black_box(black_box(&arguments).clone()));
    });
    group.bench_function("dyn_tool_call", |b| {
        b.to_async(&rt)
            .iter(|| async { tool.call(ctx.clone(), black_box(&arguments)).await.unwrap() });
    });
    group.bench_function("call_tool", |b| {
        b.to_async(&rt).iter(|| async {
            let value = black_box(&arguments).clone();
            typed.call_tool(ctx.clone(), "call_1", "add", value).await
        });
    });
    group.bench_function("execute_call_boxed_future", |b| {
        b.to_async(&rt).iter(|| {
            Box::pin(typed.execute_call(ctx.clone(), black_box(&typed_call)))
                as std::pin::Pin<Box<dyn std::future::Future<Output = _>>>
        });
    });
    let ambient = ctx
        .clone()
        .with_agent_context(AgentContextHandle::new(AgentContext::default()));
    group.bench_function("execute_call_with_agent_context", |b| {
        b.to_async(&rt)
            .iter(|| typed.execute_call(ambient.clone(), black_box(&typed_call)));
    });
    group.bench_function("into_return_part", |b| {
        b.iter_batched(
            || ToolCallOutcome {
                result: Ok(ToolResult::new(json!({"sum": 42}))),
                execution_attempts: 1,
                max_retries: 3,
                model_retries_used: 0,
                delegated: false,
                limits: ToolLimits::default(),
            },
            |outcome| outcome.into_return_part("call_1", "add"),
            BatchSize::SmallInput,
        );
    });
    group.finish();
}

/// The criterion entry points (the macro output carries no docs).
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::bench_dispatch);
}

criterion_main!(group::benches);

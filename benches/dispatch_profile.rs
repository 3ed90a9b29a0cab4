//! The `dispatch` bench's typed call and its direct baseline, run a fixed
//! number of times for an instruction counter: `callgrind` counts are
//! exact where criterion's times move with the machine.
//!
//! `MODE` is `typed` (through `ToolRegistry::execute_call`) or `direct`
//! (parse and call by hand, as `dispatch/typed/direct` does). Instructions
//! per call are the difference of two runs over the difference of their
//! call counts, so start-up cancels out:
//!
//! ```text
//! cargo bench --bench dispatch_profile --no-run
//! valgrind --tool=callgrind target/release/deps/dispatch_profile-* typed 1000
//! valgrind --tool=callgrind target/release/deps/dispatch_profile-* typed 3000
//! ```
//!
//! With no arguments (as `cargo bench` runs it) it makes one call of each.
//!
//! `paired ROUNDS` times both sides interleaved instead: each round runs a
//! block of 1,000 typed calls and a block of 1,000 direct ones, in
//! alternating order, and the ratio of the two blocks' times is taken per
//! round, so load that comes and goes on a shared machine reaches both
//! sides alike. It prints the median and quartiles of the per-round ratio:
//!
//! ```text
//! target/release/deps/dispatch_profile-* paired 2000
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use starweaver::model::ToolCallPart;
use starweaver::tools::DynTool;
use starweaver::{typed_tool, ToolContext, ToolError, ToolRegistry, ToolResult};

/// Arguments of the profiled tool (the `dispatch` bench's).
#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// Left operand.
    a: i64,
    /// Right operand.
    b: i64,
}

/// The tool body of both variants.
async fn add(_ctx: ToolContext, args: AddArgs) -> Result<ToolResult, ToolError> {
    Ok(ToolResult::new(json!({ "sum": args.a + args.b })))
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|arg| arg != "--bench");
    let modes = match args.next() {
        Some(mode) => vec![mode],
        None => vec!["typed".to_string(), "direct".to_string()],
    };
    let calls: usize = args
        .next()
        .map_or(1, |calls| calls.parse().expect("a call count"));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let ctx = ToolContext::default();
    let arguments = json!({"a": 20, "b": 22});
    let tool: DynTool = Arc::new(typed_tool::<AddArgs, _, _>(
        "add",
        Some("Add two integers".to_string()),
        add,
    ));
    let registry = ToolRegistry::new().with_tool(tool);
    let call = ToolCallPart::new("call_1", "add", arguments.clone());
    if modes == ["paired"] {
        paired(&rt, &registry, &call, &ctx, &arguments, calls);
        return;
    }
    for mode in modes {
        rt.block_on(async {
            for _ in 0..calls {
                match mode.as_str() {
                    "typed" => {
                        let part = registry.execute_call(ctx.clone(), black_box(&call)).await;
                        black_box(part);
                    }
                    "direct" => {
                        let value = black_box(&arguments).clone();
                        let args = serde_json::from_value::<AddArgs>(value).unwrap();
                        let result = add(ctx.clone(), args).await.unwrap();
                        black_box(result.content);
                    }
                    other => panic!("unknown mode `{other}`: use typed or direct"),
                }
            }
        });
    }
}

/// Calls per timed block of [`paired`].
const BLOCK: u32 = 1_000;

/// The typed call and the direct one, interleaved: per-round ratios.
fn paired(
    rt: &tokio::runtime::Runtime,
    registry: &ToolRegistry,
    call: &ToolCallPart,
    ctx: &ToolContext,
    arguments: &serde_json::Value,
    rounds: usize,
) {
    let typed = || {
        rt.block_on(async {
            let started = std::time::Instant::now();
            for _ in 0..BLOCK {
                black_box(registry.execute_call(ctx.clone(), black_box(call)).await);
            }
            started.elapsed()
        })
    };
    let direct = || {
        rt.block_on(async {
            let started = std::time::Instant::now();
            for _ in 0..BLOCK {
                let value = black_box(arguments).clone();
                let args = serde_json::from_value::<AddArgs>(value).unwrap();
                black_box(add(ctx.clone(), args).await.unwrap().content);
            }
            started.elapsed()
        })
    };
    // Warm both paths up before timing.
    for _ in 0..20 {
        typed();
        direct();
    }
    let mut ratios = Vec::with_capacity(rounds);
    let (mut typed_total, mut direct_total) = (0.0, 0.0);
    for round in 0..rounds {
        let (t, d) = if round % 2 == 0 {
            let t = typed();
            (t, direct())
        } else {
            let d = direct();
            (typed(), d)
        };
        typed_total += t.as_secs_f64();
        direct_total += d.as_secs_f64();
        ratios.push(t.as_secs_f64() / d.as_secs_f64());
    }
    ratios.sort_by(f64::total_cmp);
    let at = |q: f64| ratios[((ratios.len() - 1) as f64 * q).round() as usize];
    let per_call = |total: f64| total * 1e9 / (rounds as f64 * f64::from(BLOCK));
    println!(
        "paired, {rounds} rounds of {BLOCK} calls: typed {:.0} ns, direct {:.0} ns per call (means); \
         typed / direct per round: median {:.2}x, quartiles {:.2}x-{:.2}x",
        per_call(typed_total),
        per_call(direct_total),
        at(0.5),
        at(0.25),
        at(0.75),
    );
}

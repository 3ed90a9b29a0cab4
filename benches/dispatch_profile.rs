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

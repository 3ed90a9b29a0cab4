//! Our MCP client's side of `benches/compare_mcp.sh`: a trivial tool call
//! through `McpToolset` to a server over stdio, timed here and compared
//! there with the same call from the Python SDK's client.
//!
//! The script starts this binary with the server's command line in
//! `STARWEAVER_MCP_BENCH_SERVER` (JSON: `[program, arg...]`), the tool in
//! `STARWEAVER_MCP_BENCH_TOOL` and its arguments in
//! `STARWEAVER_MCP_BENCH_ARGS` (JSON). The toolset starts the server and
//! lists its tools once; then each line `N` on stdin makes N calls one
//! after another and answers one JSON line: the nanoseconds the N calls
//! took (measured here, so process and pipe costs outside the calls stay
//! out) and the first call's text, which the script checks against the
//! other side's before it times anything. One current-thread Tokio
//! runtime, as the Python client runs on one asyncio loop.
//!
//! Without `STARWEAVER_MCP_BENCH_SERVER` (a plain `cargo bench`) it says
//! to run the script and ends.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead as _, Write as _};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use starweaver::mcp::client::{McpServerSpec, McpToolset};
use starweaver::{ConversationId, RunId, ToolContext, Toolset as _};

fn main() {
    let Ok(server) = std::env::var("STARWEAVER_MCP_BENCH_SERVER") else {
        eprintln!(
            "mcp_client: run benches/compare_mcp.sh (it starts the servers and both clients)"
        );
        return;
    };
    let command: Vec<String> = serde_json::from_str(&server).expect("a JSON list");
    let tool_name = std::env::var("STARWEAVER_MCP_BENCH_TOOL").expect("the tool's name");
    let arguments: Value = serde_json::from_str(
        &std::env::var("STARWEAVER_MCP_BENCH_ARGS").unwrap_or_else(|_| "{}".to_string()),
    )
    .expect("JSON arguments");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let spec = McpServerSpec::stdio(
            "bench",
            command[0].clone(),
            command[1..].iter().cloned(),
            std::env::current_dir().unwrap(),
        )
        .with_startup_timeout(Duration::from_secs(60));
        let toolset = McpToolset::new(spec);
        toolset.start().await.expect("the server starts");
        let tool = toolset
            .get_tools()
            .into_iter()
            .find(|tool| tool.name() == tool_name)
            .unwrap_or_else(|| panic!("no tool `{tool_name}`"));
        let ctx = ToolContext::new(RunId::default(), ConversationId::default(), 0);
        let stdin = std::io::stdin();
        let mut stdout = std::io::stdout().lock();
        for line in stdin.lock().lines() {
            let count: u32 = line.unwrap().trim().parse().expect("a count");
            let mut first = None;
            let start = Instant::now();
            for _ in 0..count {
                let result = tool.call(ctx.clone(), &arguments).await.expect("the call");
                if first.is_none() {
                    first = Some(result.content);
                }
            }
            let ns = start.elapsed().as_nanos();
            let answer = match first {
                Some(Value::String(text)) => Value::String(text),
                Some(other) => other,
                None => Value::Null,
            };
            writeln!(stdout, "{}", json!({"ns": ns as u64, "answer": answer})).unwrap();
            stdout.flush().unwrap();
        }
        toolset.stop().await;
    });
}

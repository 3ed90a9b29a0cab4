//! The client against servers nobody here wrote, installed from the
//! registries: `@modelcontextprotocol/server-everything` (npm) over stdio
//! and streamable HTTP, `mcp-server-time` (PyPI), and a server written on
//! the Python SDK (`mcp`, PyPI) over streamable HTTP, restarted under the
//! client to show a lost session initialized again.
//!
//! They are looked for under `STARWEAVER_INTEROP_DIR`, the folder they
//! were installed into:
//! - `npm install --prefix "$STARWEAVER_INTEROP_DIR" @modelcontextprotocol/server-everything@2026.8.31`
//!   (run as `node $DIR/node_modules/@modelcontextprotocol/server-everything/dist/index.js`);
//! - `python3 -m venv "$STARWEAVER_INTEROP_DIR/venv"` and
//!   `"$STARWEAVER_INTEROP_DIR/venv/bin/pip" install mcp==2.3.0 mcp-server-time`
//!   (run as `$DIR/venv/bin/mcp-server-time`, and `$DIR/venv/bin/python`
//!   for a server on the Python SDK, `python_server.py`).
//!
//! Without them the tests skip with a one-line notice, unless
//! `STARWEAVER_INTEROP_TESTS=required` (CI), where a missing server fails.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use starweaver::mcp::client::{McpServerSpec, McpToolset};
use starweaver::tools::ToolProgressSink;
use starweaver::{ConversationId, RunId, ToolContext};
use tokio::io::{AsyncBufReadExt, BufReader};

use super::{call, names};

/// The pinned version of server-everything.
const EVERYTHING_VERSION: &str = "2026.8.31";

/// The installed file at `relative` under `STARWEAVER_INTEROP_DIR`, or
/// `None` after a one-line notice (a failure when the tests are
/// required).
fn installed(relative: &str, what: &str) -> Option<PathBuf> {
    let required = std::env::var("STARWEAVER_INTEROP_TESTS").is_ok_and(|value| value == "required");
    let found = std::env::var_os("STARWEAVER_INTEROP_DIR")
        .map(|dir| PathBuf::from(dir).join(relative))
        .filter(|path| path.exists());
    if found.is_none() {
        let reason = format!(
            "{what} is not installed under STARWEAVER_INTEROP_DIR ({relative}); the MCP interop tests need it"
        );
        assert!(
            !required,
            "the MCP interop tests are required here, but {reason}"
        );
        eprintln!("skipped: {reason}");
    }
    found
}

fn node() -> Option<PathBuf> {
    let node = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("node"))
            .find(|candidate| candidate.is_file())
    });
    if node.is_none() {
        let required =
            std::env::var("STARWEAVER_INTEROP_TESTS").is_ok_and(|value| value == "required");
        assert!(
            !required,
            "the MCP interop tests are required here, but node is not on PATH"
        );
        eprintln!("skipped: node is not on PATH; the MCP interop tests need it");
    }
    node
}

/// server-everything's entry script, checked to be the pinned version.
fn everything() -> Option<(PathBuf, PathBuf)> {
    let package = installed(
        "node_modules/@modelcontextprotocol/server-everything/package.json",
        "@modelcontextprotocol/server-everything",
    )?;
    let node = node()?;
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&package).unwrap()).unwrap();
    assert_eq!(
        manifest["version"], EVERYTHING_VERSION,
        "pin the installed version"
    );
    Some((node, package.with_file_name("dist/index.js")))
}

fn loopback_preload() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/mcp/loopback.cjs")
        .to_string_lossy()
        .into_owned()
}

async fn exercise_everything(toolset: &McpToolset) {
    toolset.start().await.unwrap();
    let listed = names(toolset);
    for expected in [
        "echo",
        "get-sum",
        "get-structured-content",
        "get-tiny-image",
    ] {
        assert!(listed.contains(&expected.to_string()), "{listed:?}");
    }
    assert!(!listed.contains(&"add".to_string()));
    let echoed = call(toolset, "echo", json!({"message": "hello"}))
        .await
        .unwrap();
    assert!(
        echoed.content.to_string().contains("hello"),
        "{}",
        echoed.content
    );
    let sum = call(toolset, "get-sum", json!({"a": 2, "b": 3}))
        .await
        .unwrap();
    assert!(sum.content.to_string().contains('5'), "{}", sum.content);
    let weather = call(
        toolset,
        "get-structured-content",
        json!({"location": "Chicago"}),
    )
    .await
    .unwrap();
    assert_eq!(weather.content["temperature"], 36, "{}", weather.content);
    let image = call(toolset, "get-tiny-image", json!({})).await.unwrap();
    assert!(
        image.content.to_string().contains("\"image\""),
        "{}",
        image.content
    );
    // A long call's progress notifications reach the call's progress sink, all before its
    // result.
    let reports = Arc::new(Mutex::new(Vec::new()));
    let sink_reports = Arc::clone(&reports);
    let ctx = ToolContext::new(RunId::default(), ConversationId::default(), 0).with_progress_sink(
        ToolProgressSink::new(move |report| {
            sink_reports.lock().unwrap().push(report.update);
        }),
    );
    let long = super::tool(toolset, "trigger-long-running-operation")
        .call(ctx, &json!({"duration": 0.3, "steps": 3}))
        .await
        .unwrap();
    assert!(
        long.content.to_string().contains("completed"),
        "{}",
        long.content
    );
    let progress: Vec<(f64, Option<f64>)> = reports
        .lock()
        .unwrap()
        .iter()
        .map(|update| (update.progress, update.total))
        .collect();
    assert_eq!(
        progress,
        [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]
    );
    // Arguments the server refuses come back as an error return.
    let refused = call(toolset, "get-sum", json!({"a": "two"}))
        .await
        .unwrap_err();
    assert!(!refused.model_message().is_empty());
    // A tool registered once the session is up arrives by a list change
    // (or with the first list, when the server was quicker).
    let mut changed = false;
    for _ in 0..500 {
        let described = toolset.describe().await.unwrap();
        if described
            .iter()
            .any(|info| info.server_name == "simulate-research-query")
        {
            changed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(changed, "the tool list change was never read");
    // The hints show, as `starweaver tools` lists them.
    let described = toolset.describe().await.unwrap();
    let sum = described
        .iter()
        .find(|info| info.server_name == "get-sum")
        .unwrap();
    assert_eq!(sum.hints.read_only, Some(true));
    assert_eq!(sum.hints.destructive, Some(false));
    toolset.stop().await;
}

#[tokio::test]
async fn server_everything_over_stdio() {
    let Some((node, script)) = everything() else {
        return;
    };
    let spec = McpServerSpec::stdio(
        "everything",
        node.to_string_lossy(),
        [script.to_string_lossy().into_owned(), "stdio".to_string()],
        std::env::temp_dir(),
    )
    .with_startup_timeout(Duration::from_secs(60));
    exercise_everything(&McpToolset::new(spec)).await;
}

/// A free loopback port.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits for a line of `child`'s stderr containing `ready`, then keeps
/// draining it.
async fn wait_for(child: &mut tokio::process::Child, ready: &str) {
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let found = tokio::time::timeout(Duration::from_secs(60), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains(ready) {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(found, Ok(true), "the server never said `{ready}`");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
}

fn python_sdk_server(python: &std::path::Path, port: u16) -> tokio::process::Child {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/mcp/python_server.py");
    tokio::process::Command::new(python)
        .arg(script)
        .arg(port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap()
}

#[tokio::test]
async fn a_python_sdk_server_over_http_and_a_lost_session_initialized_again() {
    let Some(python) = installed("venv/bin/python", "the Python MCP SDK") else {
        return;
    };
    let has_sdk = std::process::Command::new(&python)
        .args(["-c", "import mcp.server.mcpserver"])
        .status()
        .is_ok_and(|status| status.success());
    assert!(
        has_sdk,
        "the venv under STARWEAVER_INTEROP_DIR has no `mcp` 2.x"
    );
    let port = free_port();
    let mut server = python_sdk_server(&python, port);
    wait_for(&mut server, "Uvicorn running").await;
    let spec = McpServerSpec::http("py", format!("http://127.0.0.1:{port}/mcp"))
        .with_startup_timeout(Duration::from_secs(30));
    let toolset = McpToolset::new(spec);
    toolset.start().await.unwrap();
    assert_eq!(names(&toolset), ["add", "echo"]);
    let echoed = call(&toolset, "echo", json!({"text": "first"}))
        .await
        .unwrap();
    assert!(
        echoed.content.to_string().contains("first"),
        "{}",
        echoed.content
    );
    // A new server process knows no session: it answers 404 "Session not
    // found", and the client initializes once more and retries.
    server.kill().await.unwrap();
    let mut server = python_sdk_server(&python, port);
    wait_for(&mut server, "Uvicorn running").await;
    let again = call(&toolset, "echo", json!({"text": "second"}))
        .await
        .unwrap();
    assert!(
        again.content.to_string().contains("second"),
        "{}",
        again.content
    );
    toolset.stop().await;
    server.kill().await.unwrap();
}

#[tokio::test]
async fn server_everything_over_streamable_http() {
    let Some((node, script)) = everything() else {
        return;
    };
    let port = free_port();
    let mut server = tokio::process::Command::new(node)
        .args(["--require", &loopback_preload()])
        .arg(&script)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(server.stderr.take().unwrap()).lines();
    let listening = tokio::time::timeout(Duration::from_secs(60), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains("listening") {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(
        listening,
        Ok(true),
        "server-everything did not start listening"
    );
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    let spec = McpServerSpec::http("everything", format!("http://127.0.0.1:{port}/mcp"))
        .with_startup_timeout(Duration::from_secs(30));
    exercise_everything(&McpToolset::new(spec)).await;
    server.kill().await.unwrap();
}

#[tokio::test]
async fn mcp_server_time_over_stdio() {
    let Some(binary) = installed("venv/bin/mcp-server-time", "mcp-server-time") else {
        return;
    };
    let spec = McpServerSpec::stdio(
        "time",
        binary.to_string_lossy(),
        ["--local-timezone", "UTC"],
        std::env::temp_dir(),
    )
    .with_prefix("time")
    .with_startup_timeout(Duration::from_secs(60));
    let toolset = McpToolset::new(spec);
    toolset.start().await.unwrap();
    assert_eq!(
        names(&toolset),
        ["time_convert_time", "time_get_current_time"]
    );
    let now = call(
        &toolset,
        "time_get_current_time",
        json!({"timezone": "UTC"}),
    )
    .await
    .unwrap();
    assert!(now.content.to_string().contains("UTC"), "{}", now.content);
    let bad = call(
        &toolset,
        "time_get_current_time",
        json!({"timezone": "Nowhere/Never"}),
    )
    .await
    .unwrap_err();
    assert!(!bad.model_message().is_empty());
    toolset.stop().await;
}

/// `starweaver run` on a manifest whose toolset is `mcp-server-time` (PyPI), on a scripted
/// model: the Python server's answer comes back through the whole command line.
#[test]
fn starweaver_run_calls_mcp_server_time() {
    let Some(binary) = installed("venv/bin/mcp-server-time", "mcp-server-time") else {
        return;
    };
    let manifest = format!(
        "version: 1\nname: clock\nmodel: {{id: script, script: turns.yaml}}\ntoolsets:\n  - type: mcp\n    name: time\n    command: '{}'\n    args: [--local-timezone, UTC]\n    prefix: time\n    startup_timeout_ms: 60000\n",
        binary.display()
    );
    let script = "- calls:\n    - tool: time_get_current_time\n      args: { timezone: UTC }\n- answer: \"{{ calls[0].result }}\"\n";
    let dir = crate::run_cli::folder(&[("agent.yaml", &manifest), ("turns.yaml", script)]);
    let output = crate::run_cli::run(
        dir.path(),
        &[
            "run",
            "agent.yaml",
            "--json",
            "--prompt",
            "what time is it?",
        ],
    );
    crate::run_cli::assert_status(&output, 0);
    let records = crate::run_cli::json_lines(&crate::run_cli::stdout(&output));
    let part = records
        .iter()
        .map(|record| &record["event"])
        .find(|event| event["type"] == "tool_return")
        .map(|event| &event["part"])
        .unwrap_or_else(|| panic!("no tool return: {records:#?}"));
    assert_eq!(part["tool_name"], "time_get_current_time", "{part}");
    assert_eq!(part["kind"], "success", "{part}");
    assert!(part["content"].to_string().contains("UTC"), "{part}");
}

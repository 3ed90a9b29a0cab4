//! Servers that misbehave, as small Python programs: the client stays
//! bounded, fails fast and says why.

use std::time::Duration;

use serde_json::json;
use starweaver::mcp::client::{map_tool_name, McpError, McpServerSpec, McpToolset};
use starweaver::{ToolRegistry, Toolset};

use super::{call, names};
use crate::common::hostile::{hostile_server as script, python3};

/// `python3`, or `None` (with a one-line notice) when this machine has
/// none; these tests then skip.
fn python() -> Option<&'static str> {
    python3("the hostile MCP server tests").then_some("python3")
}

fn server(name: &str, mode: &str) -> Option<McpServerSpec> {
    let python = python()?;
    let script = script();
    Some(McpServerSpec::stdio(
        name,
        python,
        [
            script.to_string_lossy().into_owned(),
            mode.to_string(),
            name.to_string(),
        ],
        std::env::temp_dir(),
    ))
}

/// Whether process `pid` still exists.
fn alive(pid: i32) -> bool {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|stat| stat.split_whitespace().nth(2) == Some("Z"))
}

async fn pid(toolset: &McpToolset) -> i32 {
    let answer = call(toolset, "pid", json!({})).await.unwrap();
    answer.content.as_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn ten_mib_of_stderr_neither_blocks_the_server_nor_reaches_the_error_whole() {
    let Some(spec) = server("flood", "flood") else {
        return;
    };
    let toolset = McpToolset::new(spec.with_startup_timeout(Duration::from_secs(60)));
    toolset.start().await.unwrap();
    let error = call(&toolset, "die", json!({})).await.unwrap_err();
    let text = error.to_string();
    assert!(text.contains("exited with status 7"), "{text:.300}");
    assert!(
        text.contains("last words: the disk is on fire"),
        "{text:.300}"
    );
    assert!(text.len() < 16 * 1024, "{} bytes", text.len());
}

#[tokio::test]
async fn a_server_killed_mid_call_fails_the_call_at_once_and_the_next_call_restarts_it() {
    let Some(spec) = server("killed", "normal") else {
        return;
    };
    let toolset = McpToolset::new(spec);
    toolset.start().await.unwrap();
    let first = pid(&toolset).await;
    let slow = {
        let toolset = toolset.clone();
        tokio::spawn(async move { call(&toolset, "slow", json!({})).await })
    };
    // Give the call time to reach the server, then kill it.
    tokio::time::sleep(Duration::from_millis(300)).await;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(first),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    // The call sleeps 30 s on the server; it must end long before.
    let failed = tokio::time::timeout(Duration::from_secs(20), slow)
        .await
        .expect("the call did not fail when its server died")
        .unwrap()
        .unwrap_err();
    assert!(
        failed.to_string().contains("killed by signal 9"),
        "{failed}"
    );
    let second = pid(&toolset).await;
    assert_ne!(first, second);
    toolset.stop().await;
    assert!(!alive(second), "the restarted server outlived stop");
}

#[tokio::test]
async fn a_server_that_never_answers_initialize_times_out_and_is_stopped() {
    let Some(spec) = server("silent", "silent") else {
        return;
    };
    let toolset = McpToolset::new(spec.with_startup_timeout(Duration::from_millis(500)));
    let error = toolset.start().await.unwrap_err();
    assert!(matches!(error, McpError::StartupTimeout { .. }), "{error}");
    assert!(error.to_string().contains("within 500 ms"), "{error}");
    assert!(error.to_string().contains("waiting forever"), "{error}");
}

#[tokio::test]
async fn a_server_that_exits_at_startup_reports_its_status_and_stderr() {
    let Some(spec) = server("broken", "exit") else {
        return;
    };
    let error = McpToolset::new(spec).start().await.unwrap_err();
    let text = error.to_string();
    assert!(text.contains("exited with status 3"), "{text}");
    assert!(text.contains("the config file is missing"), "{text}");
}

#[tokio::test]
async fn a_hundred_mib_result_is_refused_at_the_message_bound_and_the_server_restarts() {
    let Some(spec) = server("huge", "normal") else {
        return;
    };
    let toolset = McpToolset::new(spec);
    toolset.start().await.unwrap();
    let error = call(&toolset, "huge", json!({})).await.unwrap_err();
    assert!(
        error.to_string().contains("larger than 16777216 bytes"),
        "{error}"
    );
    // The next call starts a fresh server.
    assert_eq!(
        call(&toolset, "echo", json!({})).await.unwrap().content,
        json!("huge echo")
    );
}

#[tokio::test]
async fn long_and_dotted_names_map_reversibly() {
    let Some(spec) = server("names", "normal") else {
        return;
    };
    let toolset = McpToolset::new(spec);
    toolset.start().await.unwrap();
    let long = format!("{}.{}", "long".repeat(15), "x".repeat(29));
    let mapped = map_tool_name(None, &long);
    assert!(names(&toolset).contains(&mapped));
    assert!(names(&toolset).contains(&"files_read".to_string()));
    assert_eq!(
        call(&toolset, &mapped, json!({})).await.unwrap().content,
        json!(format!("names {long}"))
    );
    assert_eq!(
        call(&toolset, "files_read", json!({}))
            .await
            .unwrap()
            .content,
        json!("names files.read")
    );
}

#[tokio::test]
async fn two_servers_with_one_tool_name_sit_side_by_side_under_prefixes() {
    let (Some(a), Some(b)) = (server("alpha", "normal"), server("beta", "normal")) else {
        return;
    };
    let alpha = McpToolset::new(a.with_prefix("a").with_tools(["echo"]));
    let beta = McpToolset::new(b.with_prefix("b").with_tools(["echo"]));
    alpha.start().await.unwrap();
    beta.start().await.unwrap();
    let registry = ToolRegistry::new().with_toolset(&alpha).with_toolset(&beta);
    assert_eq!(registry.names(), ["a_echo", "b_echo"]);
    assert_eq!(
        call(&alpha, "a_echo", json!({})).await.unwrap().content,
        json!("alpha echo")
    );
    assert_eq!(
        call(&beta, "b_echo", json!({})).await.unwrap().content,
        json!("beta echo")
    );
}

#[tokio::test]
async fn dropping_the_toolset_stops_its_server() {
    let Some(spec) = server("dropped", "normal") else {
        return;
    };
    let toolset = McpToolset::new(spec);
    toolset.start().await.unwrap();
    let pid = pid(&toolset).await;
    assert!(alive(pid));
    drop(toolset);
    // The kill is sent at drop; poll for the process to be reaped.
    for _ in 0..500 {
        if !alive(pid) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the server outlived its toolset");
}

#[tokio::test]
async fn exiting_the_toolset_stops_the_server_and_entering_starts_it_again() {
    let Some(spec) = server("cycle", "normal") else {
        return;
    };
    let toolset = McpToolset::new(spec);
    let mut context = starweaver::AgentContext::default();
    toolset.enter_with_context(&mut context).await.unwrap();
    let first = pid(&toolset).await;
    toolset.exit_with_context(&mut context).await.unwrap();
    assert!(!alive(first));
    toolset.enter_with_context(&mut context).await.unwrap();
    assert_ne!(pid(&toolset).await, first);
}

#[tokio::test]
async fn a_stdio_server_with_a_sandbox_writes_only_inside_its_folder() {
    if !crate::sandbox::enforced() {
        return;
    }
    let Some(spec) = server("boxed", "normal") else {
        return;
    };
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let starweaver::mcp::client::McpTransport::Stdio { command, args, .. } = spec.transport else {
        unreachable!()
    };
    let spec = McpServerSpec::stdio("boxed", command, args, root.path())
        .with_sandbox(starweaver::environment::SandboxPolicy::workspace_write());
    let toolset = McpToolset::new(spec);
    toolset.start().await.unwrap();
    let inside = root.path().join("inside.txt");
    let wrote = call(&toolset, "write", json!({"path": inside}))
        .await
        .unwrap();
    assert_eq!(wrote.content, json!("wrote"));
    assert_eq!(std::fs::read_to_string(&inside).unwrap(), "written");
    let escape = outside.path().join("escape.txt");
    let refused = call(&toolset, "write", json!({"path": escape}))
        .await
        .unwrap();
    assert!(
        refused.content.as_str().unwrap().starts_with("refused:"),
        "{}",
        refused.content
    );
    assert!(!escape.exists());
    // Unsandboxed (the default), the same server writes where it likes.
    let Some(open) = server("open", "normal") else {
        return;
    };
    let open = McpToolset::new(open);
    open.start().await.unwrap();
    assert_eq!(
        call(&open, "write", json!({"path": escape}))
            .await
            .unwrap()
            .content,
        json!("wrote")
    );
}

#[tokio::test]
async fn a_server_that_fails_past_its_restarts_makes_its_tools_unavailable() {
    let Some(spec) = server("failing", "normal") else {
        return;
    };
    let marker = tempfile::tempdir().unwrap();
    let marker = marker.path().join("broken");
    let toolset = McpToolset::new(spec.with_env("FAIL_IF", marker.to_string_lossy()));
    toolset.start().await.unwrap();
    let echo = super::tool(&toolset, "echo");
    let context = starweaver::AgentContext::default();
    assert!(echo.is_available(&context));
    std::fs::write(&marker, "").unwrap();
    assert!(call(&toolset, "die", json!({})).await.is_err());
    let error = call(&toolset, "echo", json!({}))
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("unavailable after 3 restarts"), "{error}");
    assert!(error.contains("exited with status 3"), "{error}");
    assert!(!echo.is_available(&context));
    // Entering again (the next run) tries once more.
    std::fs::remove_file(&marker).unwrap();
    toolset.start().await.unwrap();
    assert!(echo.is_available(&context));
}

#[tokio::test]
async fn a_server_sees_the_scrubbed_base_environment_and_its_own_variables() {
    let Some(spec) = server("env", "normal") else {
        return;
    };
    let toolset = McpToolset::new(spec.with_env("MCP_TEST_SETTING", "on"));
    toolset.start().await.unwrap();
    let names = call(&toolset, "env", json!({})).await.unwrap();
    let names: Vec<&str> = names.content.as_str().unwrap().split(' ').collect();
    assert!(names.contains(&"MCP_TEST_SETTING"), "{names:?}");
    assert!(names.contains(&"PATH"), "{names:?}");
    // Cargo sets these for the test process; the server never sees them.
    assert!(std::env::var_os("CARGO_PKG_NAME").is_some());
    assert!(
        !names.iter().any(|name| name.starts_with("CARGO")),
        "{names:?}"
    );
}

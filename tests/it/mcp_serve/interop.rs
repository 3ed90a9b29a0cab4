//! Our server against clients nobody here wrote: the Python MCP SDK's client (2.3.0, with
//! its `initialize` handshake) over both transports, and the MCP Inspector's CLI.
//!
//! Where they come from: the folder `STARWEAVER_INTEROP_DIR` names, the same one the client's
//! interop tests read (`.ci/run` fills it): `$DIR/venv/bin/python` with `mcp==2.3.0`
//! installed (`python3 -m venv "$DIR/venv"; "$DIR/venv/bin/pip" install mcp==2.3.0`) and
//! `$DIR/node_modules/.bin/mcp-inspector` (`npm install --prefix "$DIR"
//! @modelcontextprotocol/inspector@0.15.0`, on Node 20 or later). Without them the tests
//! skip with a one-line notice, unless `STARWEAVER_INTEROP_TESTS=required` (CI), where a
//! missing package is a failure.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use super::{project, within};
use crate::common::starweaver_binary;

/// The binary, and the environment every test gives it (its model clients restricted to
/// loopback), for clients that start the server themselves.
fn binary() -> (String, Vec<(String, String)>) {
    let command = starweaver_binary();
    let program = command.get_program().to_string_lossy().into_owned();
    let env = command
        .get_envs()
        .filter_map(|(name, value)| {
            Some((
                name.to_string_lossy().into_owned(),
                value?.to_string_lossy().into_owned(),
            ))
        })
        .collect();
    (program, env)
}

/// The Python SDK version the test pins.
const PYTHON_SDK_VERSION: &str = "2.3.0";

/// Prints a one-line notice and returns false, the test being skipped; a failure when the
/// interop tests are required.
fn skipped(reason: &str) -> bool {
    let required = std::env::var("STARWEAVER_INTEROP_TESTS").is_ok_and(|value| value == "required");
    assert!(
        !required,
        "the MCP interop tests are required here, but {reason}"
    );
    eprintln!("skipped: {reason}");
    false
}

/// `relative` under `STARWEAVER_INTEROP_DIR`, when that is set (whether the file is there is
/// for the caller to find out, so its notice can say what to install).
fn installed(relative: &str) -> Option<String> {
    let dir = std::env::var_os("STARWEAVER_INTEROP_DIR")?;
    Some(
        Path::new(&dir)
            .join(relative)
            .to_string_lossy()
            .into_owned(),
    )
}

/// The Python interpreter with the pinned SDK, if there is one.
fn python() -> Option<String> {
    let Some(python) = installed("venv/bin/python") else {
        skipped("STARWEAVER_INTEROP_DIR is not set; the Python SDK's client runs from its venv");
        return None;
    };
    let version = Command::new(&python)
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('mcp'))",
        ])
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string());
    match version {
        Some(version) if version == PYTHON_SDK_VERSION => Some(python),
        Some(version) => {
            skipped(&format!(
                "`{python}` has the Python MCP SDK {version}, not {PYTHON_SDK_VERSION} \
                 (reinstall it in STARWEAVER_INTEROP_DIR/venv)"
            ));
            None
        }
        None => {
            skipped(&format!(
                "`{python}` has no Python MCP SDK (pip install mcp=={PYTHON_SDK_VERSION} into \
                 STARWEAVER_INTEROP_DIR/venv)"
            ));
            None
        }
    }
}

fn script() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/mcp_serve/python_client.py")
        .display()
        .to_string()
}

/// What the Python client saw, from its JSON line.
fn summary(output: &std::process::Output) -> Value {
    assert!(
        output.status.success(),
        "the Python client failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|error| panic!("{error}: {stdout}"))
}

/// The checks both transports share.
fn check(summary: &Value, dir: &Path) {
    assert_eq!(summary["server"], "served", "{summary}");
    let names: Vec<&str> = summary["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert!(
        names.contains(&"read_file") && names.contains(&"write_file"),
        "{names:?}"
    );
    assert!(!names.contains(&"propose_edit_file"), "{names:?}");
    let read_file = summary["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "read_file")
        .unwrap();
    assert_eq!(read_file["outputSchema"]["type"], "object", "{read_file}");
    assert_eq!(
        read_file["annotations"]["readOnlyHint"], true,
        "{read_file}"
    );
    assert_eq!(summary["ok"]["isError"], false, "{summary}");
    assert!(summary["ok"]["structuredContent"]["content"]
        .as_str()
        .is_some_and(|content| content.contains("hello from the notes")));
    assert_eq!(summary["bad"]["isError"], true, "{summary}");
    assert_eq!(summary["approved"]["isError"], false, "{summary}");
    assert_eq!(
        summary["asked"].as_array().map(Vec::len),
        Some(1),
        "{summary}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("python.txt")).unwrap(),
        "from python\n"
    );
}

#[test]
fn the_python_sdk_client_over_stdio() {
    let Some(python) = python() else { return };
    let dir = project();
    let (program, env) = binary();
    // The script hands the server the `STARWEAVER_*` variables it was given.
    let output = Command::new(python)
        .current_dir(dir.path())
        .envs(env)
        .arg(script())
        .args(["stdio", program.as_str(), "mcp", "serve", "served.yaml"])
        .output()
        .unwrap();
    check(&summary(&output), dir.path());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_client_over_streamable_http() {
    let Some(python) = python() else { return };
    within(async {
        let dir = project();
        let (url, _server) = http_server(dir.path()).await;
        let output = tokio::process::Command::new(python)
            .current_dir(dir.path())
            .arg(script())
            .args(["http", &url])
            .output()
            .await
            .unwrap();
        check(&summary(&output), dir.path());
    })
    .await;
}

/// `mcp serve served.yaml --http 127.0.0.1:0` in `dir`, with the URL it printed.
async fn http_server(dir: &Path) -> (String, tokio::process::Child) {
    use tokio::io::AsyncBufReadExt as _;
    let mut command = super::serve_command(dir, "served.yaml", &["--http", "127.0.0.1:0"]);
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    while let Some(line) = lines.next_line().await.unwrap() {
        if let Some(url) = line.strip_prefix("listening on ") {
            let url = url.trim().to_string();
            // Keep draining standard error so the server never blocks on it.
            tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
            return (url, child);
        }
    }
    panic!("the server ended before it listened");
}

/// The Inspector's CLI, if it is installed.
fn inspector() -> Option<String> {
    let Some(inspector) = installed("node_modules/.bin/mcp-inspector") else {
        skipped("STARWEAVER_INTEROP_DIR is not set; the MCP Inspector runs from its node_modules");
        return None;
    };
    let runs = Command::new(&inspector)
        .arg("--help")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if runs {
        Some(inspector)
    } else {
        skipped(&format!(
            "the MCP Inspector (`{inspector}`) is not installed (npm install --prefix \
             \"$STARWEAVER_INTEROP_DIR\" @modelcontextprotocol/inspector@0.15.0)"
        ));
        None
    }
}

/// What the Inspector printed, as JSON.
fn inspected(output: &std::process::Output) -> Value {
    assert!(
        output.status.success(),
        "the Inspector failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", String::from_utf8_lossy(&output.stdout)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inspector_cli_lists_and_calls_over_both_transports() {
    let Some(inspector) = inspector() else { return };
    within(async {
        let dir = project();
        let (program, env) = binary();
        let mut stdio: Vec<String> = Vec::new();
        for (name, value) in env {
            stdio.extend(["-e".to_string(), format!("{name}={value}")]);
        }
        stdio.extend(["--cli", &program, "mcp", "serve", "served.yaml"].map(str::to_string));
        let stdio: Vec<&str> = stdio.iter().map(String::as_str).collect();
        let (url, _server) = http_server(dir.path()).await;
        let http = ["--cli", url.as_str(), "--transport", "http"];
        for target in [&stdio[..], &http[..]] {
            let listed = tokio::process::Command::new(&inspector)
                .current_dir(dir.path())
                .args(target)
                .args(["--method", "tools/list"])
                .output()
                .await
                .unwrap();
            let listed = inspected(&listed);
            assert!(
                listed["tools"]
                    .as_array()
                    .is_some_and(|tools| tools.iter().any(|tool| tool["name"] == "read_file")),
                "{listed}"
            );
            let called = tokio::process::Command::new(&inspector)
                .current_dir(dir.path())
                .args(target)
                .args(["--method", "tools/call", "--tool-name", "read_file"])
                .args(["--tool-arg", "path=notes.txt"])
                .output()
                .await
                .unwrap();
            let called = inspected(&called);
            assert_eq!(called["isError"], false, "{called}");
            assert!(
                called.to_string().contains("hello from the notes"),
                "{called}"
            );
        }
    })
    .await;
}

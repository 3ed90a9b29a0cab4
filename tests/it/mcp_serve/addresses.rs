//! `mcp serve --http` listens on loopback only unless told, and refuses another address before
//! it sets anything up: no toolset starts and no server process runs.

use super::serve_command;

// Regression: the address was refused only once the toolsets were set up, so a re-served
// MCP server had already been started for nothing.
#[tokio::test]
async fn a_remote_address_is_refused_before_any_server_starts() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("started");
    let manifest = format!(
        "version: 1\nname: remote\nmodel: {{id: test}}\ntoolsets:\n  - type: mcp\n    name: probe\n    command: sh\n    args: [-c, 'touch {}; sleep 5']\n",
        marker.display()
    );
    std::fs::write(dir.path().join("remote.yaml"), manifest).unwrap();
    let output = serve_command(dir.path(), "remote.yaml", &["--http", "0.0.0.0:0"])
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("0.0.0.0:0 is not a loopback address"),
        "{stderr}"
    );
    assert!(stderr.contains("--allow-remote"), "{stderr}");
    assert!(!marker.exists(), "the server's program ran");
}

//! The misbehaving MCP server the tests start (`tests/it/mcp/hostile_server.py`) and the
//! system `python3` it runs on.

use std::path::PathBuf;

/// Whether `python3` runs here; when not, a one-line notice that `what` is skipped.
pub fn python3(what: &str) -> bool {
    let found = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if !found {
        eprintln!("skipped: python3 is not installed; {what} needs it");
    }
    found
}

/// The hostile server's script.
pub fn hostile_server() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/mcp/hostile_server.py")
}

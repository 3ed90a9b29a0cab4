//! Cargo examples the tests run as programs: `cargo test --test it` does not build examples,
//! so each is built once, with the cargo that runs the tests and in the same target folder.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository the tests run in.
pub fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Builds the example `name` and returns the executable cargo reports. Call it once per
/// example (behind a `OnceLock`): cargo takes its build lock for each call.
pub fn build_example(name: &str) -> PathBuf {
    let output = Command::new(env!("CARGO"))
        .current_dir(repository())
        .args([
            "build",
            "--example",
            name,
            "--message-format=json-render-diagnostics",
        ])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "building the example `{name}` failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact")
        .filter(|message| message["target"]["name"] == name)
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo names the executable of the example `{name}`"))
}

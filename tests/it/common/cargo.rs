//! The workspace as Cargo sees it, for tests about how its crates depend on each other:
//! `cargo metadata` read as JSON from the cargo binary that runs the tests.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// `cargo metadata --format-version 1` of the workspace with `args` (`--no-deps`,
/// `--all-features`), offline and for this machine's platform: the lockfile and the sources
/// a build here fetched are enough (other platforms' crates are never downloaded).
pub fn metadata(args: &[&str]) -> Value {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline"])
        .args(["--filter-platform", &host()])
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The package called `name` in `metadata`'s packages, from the workspace.
pub fn package<'a>(metadata: &'a Value, name: &str) -> &'a Value {
    let members = metadata["workspace_members"].as_array().unwrap();
    metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|package| package["name"] == name && members.contains(&package["id"]))
        .unwrap_or_else(|| panic!("no workspace package `{name}`"))
}

/// The platform the tests run on (`x86_64-unknown-linux-gnu`), as `rustc -vV` names it.
fn host() -> String {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(rustc).arg("-vV").output().unwrap();
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .unwrap()
        .trim()
        .to_string()
}

/// Every crate name in `cargo tree -p PACKAGE -e normal` with `features`
/// (e.g. `["--all-features"]`, `["--no-default-features"]`).
pub fn normal_tree(package: &str, features: &[&str]) -> BTreeSet<String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
        .args(["tree", "--offline", "--locked", "-p", package])
        .args(features)
        .args(["-e", "normal", "--prefix", "none", "--format", "{p}"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

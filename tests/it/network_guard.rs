//! No test can reach a host other than loopback: the binary is only started through
//! `common::starweaver_binary` (which restricts its model clients to loopback), and provider
//! models are only built by the provider tests' one constructor (which does the same).

use std::path::Path;

use crate::common::sources::rust_files;

/// Files under `tests/` (other than `allowed` and this one) whose text holds `needle`.
fn holders(needle: &str, allowed: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("tests"), &mut files);
    files
        .iter()
        .filter_map(|path| {
            let shown = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(path).unwrap();
            (text.contains(needle)
                && !allowed.contains(&shown.as_str())
                && shown != "tests/it/network_guard.rs")
                .then_some(shown)
        })
        .collect()
}

#[test]
fn the_binary_is_only_started_with_its_model_hosts_restricted() {
    let found = holders(
        concat!("CARGO_BIN_EXE_", "starweaver"),
        &["tests/it/common/mod.rs"],
    );
    assert!(
        found.is_empty(),
        "start the binary with common::starweaver_binary(): {found:?}"
    );
}

#[test]
fn provider_models_are_only_built_by_the_loopback_constructor() {
    for needle in [
        concat!("OpenAiModel", "::new"),
        concat!("AnthropicModel", "::new"),
        concat!("HttpModel", "::"),
    ] {
        let found = holders(needle, &["tests/it/providers/mod.rs"]);
        assert!(
            found.is_empty(),
            "build `{needle}` through the provider tests' constructor: {found:?}"
        );
    }
}

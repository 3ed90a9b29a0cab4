//! The HTTP model clients are a crate of their own: the core, with every feature on, builds
//! no HTTP stack, holds no client folder and has no provider feature; the clients live in
//! `starweaver-providers`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use crate::common::cargo;

/// Crates that belong to the providers crate, never to the core's graph.
const HTTP_CRATES: &[&str] = &["reqwest", "hyper", "eventsource-stream"];

/// Every package reachable from `from` along normal dependencies (not dev, not build) in
/// the resolved graph of `metadata`, by name.
pub(super) fn normal_closure(metadata: &Value, from: &str) -> BTreeSet<String> {
    let nodes: BTreeMap<&str, &Value> = metadata["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| (node["id"].as_str().unwrap(), node))
        .collect();
    let names: BTreeMap<&str, &str> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|package| {
            (
                package["id"].as_str().unwrap(),
                package["name"].as_str().unwrap(),
            )
        })
        .collect();
    let mut seen = BTreeSet::new();
    let mut queue = vec![from];
    while let Some(id) = queue.pop() {
        if !seen.insert(id) {
            continue;
        }
        for dep in nodes[id]["deps"].as_array().unwrap() {
            let normal = dep["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|kind| kind["kind"].is_null());
            if normal {
                queue.push(dep["pkg"].as_str().unwrap());
            }
        }
    }
    seen.remove(from);
    seen.into_iter().map(|id| names[id].to_string()).collect()
}

#[test]
fn the_core_builds_no_http_stack_with_every_feature() {
    let metadata = cargo::metadata(&["--all-features"]);
    let core = cargo::package(&metadata, "starweaver-core")["id"]
        .as_str()
        .unwrap();
    let reached = normal_closure(&metadata, core);
    // The walk saw the graph (a wrong key would find nothing, and pass).
    assert!(reached.contains("serde_json"), "{reached:?}");
    let http: Vec<&String> = reached
        .iter()
        .filter(|name| HTTP_CRATES.contains(&name.as_str()) || name.starts_with("hyper"))
        .collect();
    assert!(
        http.is_empty(),
        "the core depends on {http:?}; HTTP clients belong in starweaver-providers"
    );
    // ... while the providers crate does build them, so the check above looks where they are.
    let providers = cargo::package(&metadata, "starweaver-providers")["id"]
        .as_str()
        .unwrap();
    let reached = normal_closure(&metadata, providers);
    for name in HTTP_CRATES {
        assert!(reached.contains(*name), "{name} is not under the providers");
    }
}

#[test]
fn the_core_has_no_client_folders_and_no_provider_features() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for folder in ["openai", "anthropic", "http"] {
        assert!(
            !root.join("starweaver-core/src/model").join(folder).exists(),
            "starweaver-core/src/model/{folder} exists; the clients live in starweaver-providers"
        );
        if folder != "http" {
            assert!(root.join("starweaver-providers/src").join(folder).is_dir());
        }
    }
    let metadata = cargo::metadata(&["--no-deps"]);
    let features = cargo::package(&metadata, "starweaver-core")["features"]
        .as_object()
        .unwrap();
    for name in ["openai", "anthropic", "providers", "http-client"] {
        assert!(
            !features.contains_key(name),
            "the core has the feature `{name}`; provider features belong to the facade, the config crate and starweaver-providers"
        );
    }
    let providers = cargo::package(&metadata, "starweaver-providers")["features"]
        .as_object()
        .unwrap();
    assert!(providers.contains_key("openai") && providers.contains_key("anthropic"));
}

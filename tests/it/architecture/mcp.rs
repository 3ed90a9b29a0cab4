//! MCP is a crate of its own: the core, with every feature on, names no
//! MCP crate; `starweaver-mcp` stands on the core alone; the facade
//! brings it in only with its `mcp` feature.

use crate::common::cargo;

use super::providers::normal_closure;

#[test]
fn the_core_builds_no_mcp_sdk_with_every_feature() {
    let metadata = cargo::metadata(&["--all-features"]);
    let core = cargo::package(&metadata, "starweaver-core")["id"]
        .as_str()
        .unwrap();
    let below_core = normal_closure(&metadata, core);
    assert!(below_core.contains("serde_json"), "{below_core:?}");
    assert!(
        !below_core.contains("rmcp") && !below_core.contains("starweaver-mcp"),
        "the core depends on the MCP SDK; it belongs in starweaver-mcp"
    );
    let mcp = cargo::package(&metadata, "starweaver-mcp")["id"]
        .as_str()
        .unwrap();
    let reached = normal_closure(&metadata, mcp);
    assert!(reached.contains("rmcp"), "{reached:?}");
    // Of the workspace, only the core (and what it stands on).
    let workspace: Vec<&String> = reached
        .iter()
        .filter(|name| name.starts_with("starweaver-") && !below_core.contains(*name))
        .collect();
    assert_eq!(
        workspace,
        ["starweaver-core"],
        "starweaver-mcp depends on {workspace:?}"
    );
}

#[test]
fn the_lean_facade_leaves_mcp_out_and_the_default_brings_it() {
    let lean = cargo::normal_tree("starweaver", &["--no-default-features"]);
    assert!(lean.contains("starweaver-core"), "{lean:?}");
    assert!(
        !lean.contains("rmcp") && !lean.contains("starweaver-mcp"),
        "the facade without default features depends on the MCP SDK"
    );
    let default = cargo::normal_tree("starweaver", &[]);
    assert!(default.contains("starweaver-mcp"), "{default:?}");
}

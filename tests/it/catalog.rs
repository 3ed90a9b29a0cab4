//! The tool catalog: run-time registrations, lookups, conflicts and the
//! JSON export that `starweaver check --catalog` reads.

use std::sync::Arc;

use serde_json::json;
use starweaver::{catalog, string_tool, ToolContext, ToolResult};

fn echo(name: &str) -> starweaver::tools::DynTool {
    Arc::new(
        string_tool(
            name,
            Some(format!("Echo ({name})")),
            json!({"type": "object", "properties": {}, "required": []}),
            |_ctx: ToolContext, args: serde_json::Value| async move { Ok(ToolResult::new(args)) },
        )
        .with_tags(["catalog-test"])
        .with_timeout_ms(1_500),
    )
}

#[test]
fn a_registered_tool_is_named_built_and_exported() {
    catalog::register(echo("catalog_echo_once"));
    assert!(catalog::names().contains(&"catalog_echo_once".to_string()));
    let names = catalog::names();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    let tool = catalog::get("catalog_echo_once").unwrap();
    assert_eq!(tool.name(), "catalog_echo_once");
    assert!(catalog::get("catalog_no_such_tool").is_none());
    assert!(catalog::definitions()
        .iter()
        .any(|definition| definition.name == "catalog_echo_once"));
    let exported = catalog::to_json();
    assert_eq!(exported["version"], catalog::CATALOG_FORMAT_VERSION);
    let entry = exported["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "catalog_echo_once")
        .unwrap()
        .clone();
    assert_eq!(entry["description"], "Echo (catalog_echo_once)");
    assert_eq!(entry["tags"], json!(["catalog-test"]));
    assert_eq!(entry["kind"], "function");
    assert_eq!(entry["timeout_ms"], 1_500);
    let source = entry["source"].as_str().unwrap();
    assert!(source.starts_with("tests/it/catalog.rs:"), "{source}");
}

#[test]
fn two_tools_with_one_name_are_a_conflict_naming_both_sources() {
    catalog::register(echo("catalog_echo_twice"));
    catalog::register(echo("catalog_echo_twice"));
    // Neither wins: a lookup fails rather than picking one.
    assert!(catalog::get("catalog_echo_twice").is_none());
    let conflict = catalog::conflicts()
        .into_iter()
        .find(|conflict| conflict.name == "catalog_echo_twice")
        .unwrap();
    assert_eq!(conflict.sources.len(), 2);
    assert!(conflict
        .sources
        .iter()
        .all(|s| s.starts_with("tests/it/catalog.rs:")));
    assert_ne!(conflict.sources[0], conflict.sources[1]);
    let exported = catalog::to_json();
    assert!(exported["tools"]
        .as_array()
        .unwrap()
        .iter()
        .all(|tool| tool["name"] != "catalog_echo_twice"));
    assert!(exported["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .any(|conflict| conflict["name"] == "catalog_echo_twice"));
}

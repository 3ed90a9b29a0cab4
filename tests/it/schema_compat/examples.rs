//! The `#[starweaver::tool]` functions of `examples/`, compiled into this
//! binary from the example sources themselves: they register in the
//! catalog like any macro tool, with a source under `examples/`.

#[allow(dead_code, clippy::unwrap_used, clippy::expect_used)]
#[path = "../../../examples/macro_tools.rs"]
mod macro_tools;

#[allow(dead_code, clippy::unwrap_used, clippy::expect_used)]
#[path = "../../../examples/agents/main.rs"]
mod agents;

use super::losses_by_name;
use starweaver::catalog;
use starweaver::model::ToolDefinition;

/// The definitions of every catalog tool defined under `examples/`.
fn example_definitions() -> Vec<ToolDefinition> {
    let exported = catalog::to_json();
    let names: Vec<String> = exported["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|tool| {
            tool["source"]
                .as_str()
                .is_some_and(|source| source.contains("examples/"))
        })
        .map(|tool| tool["name"].as_str().unwrap().to_string())
        .collect();
    names
        .iter()
        .map(|name| catalog::get(name).unwrap().definition())
        .collect()
}

#[test]
fn every_example_tool_adapts_to_every_dialect_losslessly() {
    let losses = losses_by_name(&example_definitions());
    let names: Vec<&str> = losses.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        ["define", "list_terms", "lookup", "whoami", "word_count"]
    );
    for (name, losses) in &losses {
        assert!(losses.is_empty(), "{name}: {losses:?}");
    }
}

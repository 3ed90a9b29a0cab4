//! The first-party bundles and the proxy and search toolsets' own tools.

use super::losses_by_name;
use starweaver::bundles::user_input_tools;
use starweaver::model::ToolDefinition;
use starweaver::{
    filesystem_tools, shell_tools, tool_proxy_toolset, tool_search_toolset, DynToolset,
};

fn definitions(toolset: &DynToolset) -> Vec<ToolDefinition> {
    toolset
        .get_tools()
        .iter()
        .map(|tool| tool.definition())
        .collect()
}

/// Every tool the first-party builders make: the bundles, and the
/// proxy's and search toolset's own tools (over the filesystem bundle).
fn first_party() -> Vec<ToolDefinition> {
    let proxy: DynToolset = tool_proxy_toolset(vec![filesystem_tools()]);
    let search: DynToolset = tool_search_toolset(vec![filesystem_tools()]);
    let mut all = Vec::new();
    for toolset in [
        filesystem_tools(),
        shell_tools(),
        user_input_tools(),
        proxy,
        search,
    ] {
        all.extend(definitions(&toolset));
    }
    all
}

#[test]
fn every_first_party_tool_adapts_to_every_dialect() {
    let losses = losses_by_name(&first_party());
    let names: Vec<&str> = losses.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "ask_user_question",
            "call_tool",
            "edit_file",
            "glob",
            "grep",
            "ls",
            "read_file",
            "search_tools",
            "shell_exec",
            "shell_input",
            "shell_kill",
            "shell_signal",
            "shell_status",
            "shell_wait",
            "tool_search",
            "write_file",
        ]
    );
    let lossy: Vec<&str> = losses
        .iter()
        .filter(|(_, losses)| !losses.is_empty())
        .map(|(name, _)| name.as_str())
        .collect();
    // Every other first-party tool is lossless under strict mode.
    assert_eq!(lossy, ["call_tool", "shell_exec"]);
    assert_eq!(
        losses["shell_exec"],
        [(
            "/properties/env/additionalProperties".to_string(),
            "replaced the `additionalProperties` schema with `false`".to_string(),
            "entries beyond the declared properties (a map whose values match {\"type\":\"string\"})"
                .to_string(),
        )]
    );
    assert_eq!(
        losses["call_tool"],
        [(
            "/properties/arguments".to_string(),
            "gave the untyped schema (any value) `type: [string, number, boolean, null]`"
                .to_string(),
            "objects and arrays: the schema accepted any JSON value".to_string(),
        )]
    );
}

#[test]
fn no_first_party_tool_asks_for_strict_mode_today() {
    // The two lossy tools above would lose meaning under strict mode; a
    // bundle that starts asking for it must deal with that first.
    for definition in first_party() {
        assert_ne!(definition.strict, Some(true), "{}", definition.name);
    }
}

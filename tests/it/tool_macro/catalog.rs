//! The catalog: every macro tool is registered by name at link time and
//! `get` builds a fresh one.

use starweaver::catalog;

#[test]
fn every_macro_tool_is_in_the_catalog_and_builds() {
    let names = catalog::names();
    for name in [
        "macro_lookup",
        "macro-words",
        "macro_echo",
        "macro_add",
        "macro_nothing",
        "macro_raw",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} missing: {names:?}");
        let tool = catalog::get(name).unwrap_or_else(|| panic!("{name} does not build"));
        assert_eq!(tool.name(), name);
    }
    let lookup = catalog::get("macro_lookup").unwrap();
    assert_eq!(
        lookup.definition(),
        starweaver::Tool::definition(&super::tools::macro_lookup_tool())
    );
    assert_eq!(lookup.facts().timeout_ms, Some(1_000));
}

#[test]
fn catalog_json_names_the_definition_site() {
    let json = catalog::to_json();
    let tools = json["tools"].as_array().unwrap();
    let lookup = tools
        .iter()
        .find(|tool| tool["name"] == "macro_lookup")
        .unwrap();
    assert!(
        lookup["source"]
            .as_str()
            .unwrap()
            .contains("tool_macro/tools.rs"),
        "{lookup}"
    );
    assert_eq!(lookup["max_retries"], 2);
}

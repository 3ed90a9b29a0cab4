//! Definitions: each macro tool's schema, description, metadata and
//! limits equal its twin built by hand, and the schema says what the
//! signature says.

use serde_json::json;
use starweaver::Tool;

use super::tools::*;

/// Asserts everything a caller can read off the two tools is equal.
fn assert_same(macro_tool: &dyn Tool, by_hand: &dyn Tool) {
    assert_eq!(macro_tool.definition(), by_hand.definition());
    assert_eq!(macro_tool.facts(), by_hand.facts());
}

#[test]
fn async_tool_with_context_default_and_option_matches_the_hand_built_one() {
    let tool = macro_lookup_tool();
    assert_same(&tool, &lookup_by_hand());

    let definition = tool.definition();
    assert_eq!(definition.name, "macro_lookup");
    assert_eq!(
        definition.description.as_deref(),
        Some(
            "Look up a value in the project's glossary.\n\n\
             Longer paragraphs after the first stay in the description."
        )
    );
    let parameters = &definition.parameters;
    // The context is injected, never a property; properties keep
    // parameter order.
    let properties: Vec<&String> = parameters["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(properties, ["term", "limit", "section"]);
    assert_eq!(parameters["required"], json!(["term"]));
    assert_eq!(parameters["properties"]["limit"]["default"], json!(10));
    assert_eq!(
        parameters["properties"]["term"]["description"],
        json!("Term to look up.")
    );
    assert_eq!(parameters["additionalProperties"], json!(false));
    assert_eq!(tool.facts().timeout_ms, Some(1_000));
    assert_eq!(tool.facts().max_retries, Some(2));
    assert_eq!(definition.metadata["tags"], json!(["search"]));
}

#[test]
fn sync_tool_with_overrides_and_flags_matches_the_hand_built_one() {
    let tool = split_words_tool();
    assert_same(&tool, &words_by_hand());

    let definition = tool.definition();
    assert_eq!(definition.name, "macro-words");
    assert_eq!(
        definition.description.as_deref(),
        Some("Split text into words.")
    );
    assert_eq!(
        definition.parameters["properties"]["text"]["description"],
        json!("Text to split on whitespace."),
        "#[arg(description)] wins over the parameter's doc"
    );
    assert_eq!(definition.strict, Some(true));
    assert_eq!(definition.sequential, Some(true));
    assert!(tool.facts().at_most_once);
    assert_eq!(definition.return_schema.unwrap()["type"], json!("array"));
    assert_eq!(definition.metadata["hidden_by_tags"], json!(["search"]));
    assert_eq!(definition.metadata["starweaver_tool_kind"], json!("output"));
}

#[test]
fn context_by_path_rename_and_filtered_dependencies_match_the_hand_built_one() {
    let tool = macro_echo_tool();
    assert_same(&tool, &echo_by_hand());

    let definition = tool.definition();
    let properties: Vec<&String> = definition.parameters["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(properties, ["type"]);
    assert_eq!(
        definition.metadata["starweaver_approval_required"],
        json!(true)
    );
    let dependencies = &definition.metadata["starweaver_tool_dependencies"];
    assert_eq!(dependencies["profile"], json!("filtered"));
    assert_eq!(dependencies["host_capabilities"], json!(["glossary_db"]));
    assert_eq!(
        dependencies["context_capabilities"],
        json!(["starweaver.context.tasks"])
    );
}

#[test]
fn whole_args_struct_and_marked_context_match_the_hand_built_one() {
    let tool = macro_add_tool();
    assert_same(&tool, &add_by_hand());

    let definition = tool.definition();
    assert_eq!(
        definition.parameters,
        starweaver::tools::schema_for_type::<AddArgs>()
    );
    assert_eq!(definition.return_schema.unwrap()["type"], json!("integer"));
    assert_eq!(
        definition.metadata["starweaver_tool_dependencies"]["profile"],
        json!("strict")
    );
}

#[test]
fn parameterless_unit_tool_matches_the_hand_built_one() {
    let tool = macro_nothing_tool();
    assert_same(&tool, &nothing_by_hand());
    assert_eq!(tool.definition().strict, Some(false));
    assert_eq!(tool.facts().timeout_ms, None);
    assert_eq!(tool.facts().max_retries, None);
}

#[test]
fn raw_identifiers_lose_their_prefix_in_names() {
    let tool = macro_raw_tool();
    let definition = tool.definition();
    assert_eq!(definition.name, "macro_raw");
    let properties: Vec<&String> = definition.parameters["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(properties, ["type"]);
}

//! Running macro tools through the registry: arguments, the context,
//! the three return forms, sync bodies and argument errors.

use std::sync::Arc;

use serde_json::{json, Value};
use starweaver::model::{ToolCallPart, ToolReturnKind, ToolReturnPart};
use starweaver::{Tool, ToolContext, ToolRegistry};

use super::tools::*;

fn registry() -> ToolRegistry {
    ToolRegistry::new()
        .with_tool(Arc::new(macro_lookup_tool()))
        .with_tool(Arc::new(split_words_tool()))
        .with_tool(Arc::new(macro_echo_tool()))
        .with_tool(Arc::new(macro_add_tool()))
        .with_tool(Arc::new(macro_nothing_tool()))
        .with_tool(Arc::new(macro_raw_tool()))
}

async fn run(name: &str, arguments: Value) -> ToolReturnPart {
    registry()
        .execute_call(
            ToolContext::default(),
            &ToolCallPart::new("call-1", name, arguments),
        )
        .await
}

fn message(part: &ToolReturnPart) -> String {
    part.content["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn result_success_is_the_value_with_defaults_applied() {
    let part = run("macro_lookup", json!({"term": "rust"})).await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{part:?}");
    // limit defaulted to 10 (capped at 3 by the body); section to None.
    assert_eq!(
        part.content,
        json!([
            {"term": "rust-0", "section": "general"},
            {"term": "rust-1", "section": "general"},
            {"term": "rust-2", "section": "general"},
        ])
    );

    let part = run(
        "macro_lookup",
        json!({"term": "rust", "limit": 1, "section": "lang"}),
    )
    .await;
    assert_eq!(part.content, json!([{"term": "rust-0", "section": "lang"}]));
}

#[tokio::test]
async fn result_error_converts_into_the_tool_error() {
    let part = run("macro_lookup", json!({"term": "retry"})).await;
    assert!(part.kind.is_model_retry(), "{part:?}");
    assert!(message(&part).contains("try another term"), "{part:?}");
}

#[tokio::test]
async fn sync_plain_value_content_is_the_array() {
    let part = run("macro-words", json!({"text": "a b  c"})).await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{part:?}");
    assert_eq!(part.content, json!(["a", "b", "c"]));
}

#[tokio::test]
async fn tool_result_return_is_used_as_it_is_and_renames_apply() {
    // The registry holds an `unapproved` tool for approval first.
    let part = run("macro_echo", json!({"type": "x"})).await;
    assert_eq!(part.kind, ToolReturnKind::ApprovalRequired, "{part:?}");

    let result = macro_echo_tool()
        .call(ToolContext::default(), &json!({"type": "x"}))
        .await
        .unwrap();
    assert_eq!(result.content, json!({"type": "x"}));
}

#[tokio::test]
async fn whole_args_struct_and_sync_result_run() {
    let part = run("macro_add", json!({"a": 2, "b": 3})).await;
    assert_eq!(part.content, json!(5));
    let part = run("macro_add", json!({"a": u32::MAX, "b": 1})).await;
    assert!(part.kind.is_model_retry(), "{part:?}");
    assert!(message(&part).contains("overflows"), "{part:?}");
}

#[tokio::test]
async fn unit_return_is_null_and_raw_names_run() {
    // The registry defers a `deferred` tool; an `external` one runs.
    let part = run("macro_nothing", json!({})).await;
    assert_eq!(part.kind, ToolReturnKind::Deferred, "{part:?}");
    let part = run("macro_raw", json!({"type": "kept"})).await;
    assert_eq!(part.content, json!("kept"));

    let ctx = ToolContext::default;
    let unit = macro_nothing_tool().call(ctx(), &json!({})).await.unwrap();
    assert_eq!(unit.content, Value::Null);
    let raw = macro_raw_tool()
        .call(ctx(), &json!({"type": "kept"}))
        .await
        .unwrap();
    assert_eq!(raw.content, json!("kept"));
}

#[tokio::test]
async fn bad_arguments_are_invalid_arguments_naming_the_field() {
    let part = run("macro_lookup", json!({"term": "rust", "limit": "many"})).await;
    assert_eq!(part.kind, ToolReturnKind::InvalidArguments, "{part:?}");
    assert!(message(&part).contains("limit"), "{part:?}");

    let part = run("macro_lookup", json!({})).await;
    assert_eq!(part.kind, ToolReturnKind::InvalidArguments, "{part:?}");
    assert!(message(&part).contains("term"), "{part:?}");

    let part = run("macro_lookup", json!({"term": "rust", "extra": 1})).await;
    assert_eq!(part.kind, ToolReturnKind::InvalidArguments, "{part:?}");
    assert!(message(&part).contains("extra"), "{part:?}");

    // The wire name is the renamed one; the Rust name is unknown.
    let part = run("macro_echo", json!({"kind": "x"})).await;
    assert_eq!(part.kind, ToolReturnKind::InvalidArguments, "{part:?}");
}

#[test]
fn the_function_stays_callable_as_written() {
    assert_eq!(split_words("x y".to_string()), ["x", "y"]);
    assert_eq!(
        macro_add(ToolContext::default(), AddArgs { a: 1, b: 1 }).ok(),
        Some(2)
    );
}

//! What every first-party tool returns stays under the limits.

use super::*;
use starweaver::bundles::user_input_tools;
use starweaver::tools::DEFAULT_MAX_RETURN_BYTES;
use starweaver::{filesystem_tools, tool_proxy_toolset, tool_search_toolset, StaticToolset};

/// Every first-party tool in one registry: the filesystem bundle,
/// `ask_user_question`, the proxy's `search_tools`/`call_tool` and
/// `tool_search`.
fn registry() -> ToolRegistry {
    let wrapped =
        Arc::new(StaticToolset::new("wrapped").with_tool(crate::common::echo("lookup", "Look up")));
    let searched =
        Arc::new(StaticToolset::new("searched").with_tool(crate::common::echo("find", "Find")));
    ToolRegistry::new()
        .with_toolset(&filesystem_tools())
        .with_toolset(&user_input_tools())
        .with_toolset(&tool_proxy_toolset(vec![wrapped]))
        .with_toolset(&tool_search_toolset(vec![searched]))
}

/// The schema's first non-null type.
fn type_of(schema: &Value) -> Value {
    match &schema["type"] {
        Value::Array(kinds) => kinds
            .iter()
            .find(|kind| *kind != "null")
            .cloned()
            .unwrap_or(Value::Null),
        kind => kind.clone(),
    }
}

/// A small valid-looking value of the schema's type (`"a"` names a
/// file that exists).
fn small(schema: &Value) -> Value {
    match type_of(schema).as_str() {
        Some("integer" | "number") => json!(1),
        Some("boolean") => json!(false),
        Some("array") => Value::Array(vec![small(&schema["items"]); 2]),
        Some("object") => Value::Object(
            schema["properties"]
                .as_object()
                .map(|properties| {
                    properties
                        .iter()
                        .map(|(name, property)| (name.clone(), small(property)))
                        .collect()
                })
                .unwrap_or_default(),
        ),
        _ => json!("a"),
    }
}

/// A large value of the schema's type: strings of 300 KB mixing path
/// separators, quotes and regex syntax; the largest integers; arrays
/// and objects filled the same way.
fn oversized(schema: &Value) -> Value {
    match type_of(schema).as_str() {
        Some("integer") => json!(1_000_000_000_u64),
        Some("number") => json!(1e308),
        Some("boolean") => json!(true),
        Some("array") => Value::Array(vec![oversized(&schema["items"]); 3]),
        Some("object") => {
            let mut object = serde_json::Map::new();
            if let Some(properties) = schema["properties"].as_object() {
                for (name, property) in properties {
                    object.insert(name.clone(), oversized(property));
                }
            }
            object.insert("x".repeat(100_000), json!("y".repeat(100_000)));
            Value::Object(object)
        }
        _ => json!("a/(\"`*".repeat(50_000)),
    }
}

/// Every way of sending oversized values to `definition`'s tool: all
/// properties at once, each alone among small ones, an unknown 1 MB
/// key, positional.
fn hostile_arguments(schema: &Value) -> Vec<Value> {
    let mut all = oversized(schema);
    let mut variants = Vec::new();
    if let Some(properties) = schema["properties"].as_object() {
        for (name, property) in properties {
            let mut one = small(schema);
            one[name] = oversized(property);
            variants.push(one);
        }
    }
    if let Some(object) = all.as_object_mut() {
        object.insert("k".repeat(1_000_000), json!(1));
    }
    variants.push(all);
    variants.push(json!(["a".repeat(300_000), "b"]));
    variants
}

// No first-party tool may send back more than the return limit, or an error longer than the message limit.
#[tokio::test]
async fn every_return_stays_under_the_limits() {
    let registry = registry();
    // Fresh for every call, so writes do not change what later calls see.
    let context = || {
        let provider = Arc::new(
            VirtualEnvironmentProvider::new("t")
                .with_file("a", format!("{}\n", "a/(\"`*".repeat(50_000)).repeat(3))
                .with_file("docs/a.md", "a\n".repeat(10_000)),
        );
        let mut context = AgentContext::default();
        attach_environment(&mut context, provider);
        context
    };
    let definitions = registry.definitions_for_context(&context());
    let names: Vec<&str> = definitions
        .iter()
        .map(|definition| definition.name.as_str())
        .collect();
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
            "tool_search",
            "write_file"
        ]
    );
    let mut calls = 0;
    for definition in &definitions {
        for arguments in hostile_arguments(&definition.parameters) {
            let part = registry
                .execute_call(
                    ambient(context()),
                    &ToolCallPart::new("c", &definition.name, arguments),
                )
                .await;
            calls += 1;
            let bytes = size(&part);
            assert!(
                bytes <= DEFAULT_MAX_RETURN_BYTES,
                "{}: {bytes} bytes",
                definition.name
            );
            if part.is_error() || part.kind == ToolReturnKind::Feedback {
                assert!(
                    bytes <= DEFAULT_MAX_MESSAGE_BYTES + ENVELOPE,
                    "{} ({}): {bytes} bytes",
                    definition.name,
                    part.kind.as_str()
                );
            }
        }
    }
    assert!(calls > 30, "{calls}");
}

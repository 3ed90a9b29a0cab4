//! Values echoed back in errors are shortened.

use super::*;

#[derive(Deserialize, JsonSchema)]
struct Count {
    /// A small number.
    count: u8,
}

fn count_tool() -> ToolRegistry {
    ToolRegistry::new().with_tool(Arc::new(typed_tool::<Count, _, _>(
        "count",
        Some("Count".to_string()),
        |_ctx: ToolContext, args: Count| async move {
            Ok(ToolResult::new(json!({"count": args.count})))
        },
    )))
}

// A 1 MB unknown argument name came back as a 2 MB invalid_arguments message.
#[tokio::test]
async fn an_unknown_argument_name_is_shortened() {
    let provider = Arc::new(VirtualEnvironmentProvider::new("t"));
    let mut arguments = json!({"path": "a.txt", "content": "x"});
    arguments["n".repeat(1_000_000)] = json!(1);
    let part = call_on(provider, "write_file", arguments).await;
    assert_eq!(part.kind, ToolReturnKind::InvalidArguments);
    assert_bounded_error(&part);
    let message = part.content["message"].as_str().unwrap();
    assert!(message.contains("unknown field"), "{message}");
    assert!(message.contains("shortened"), "{message}");
}

// A 20 MB string for a `u8` field came back whole in the message.
#[tokio::test]
async fn a_huge_value_of_the_wrong_type_is_shortened() {
    let part = count_tool()
        .execute_call(
            ToolContext::default(),
            &ToolCallPart::new("c", "count", json!({"count": "9".repeat(20_000_000)})),
        )
        .await;
    assert_eq!(part.kind, ToolReturnKind::InvalidArguments);
    assert_bounded_error(&part);
    assert!(part.content["message"]
        .as_str()
        .unwrap()
        .contains("expected u8"));
}

// A 100k-character path came back twice (message and details.path): 200 KB.
#[tokio::test]
async fn a_huge_path_is_shortened_in_message_and_details() {
    let provider = Arc::new(VirtualEnvironmentProvider::new("t"));
    let part = call_on(provider, "read_file", json!({"path": "p".repeat(100_000)})).await;
    assert_bounded_error(&part);
    let path = part.content["details"]["path"].as_str().unwrap_or_default();
    assert!(path.len() <= 256, "{}", path.len());
}

// A regex of 100k nested parentheses came back as a 600 KB message.
#[tokio::test]
async fn a_huge_bad_regex_is_shortened() {
    let provider = Arc::new(VirtualEnvironmentProvider::new("t").with_file("a.txt", "a"));
    let part = call_on(provider, "grep", json!({"pattern": "(".repeat(100_000)})).await;
    assert_eq!(part.kind, ToolReturnKind::ModelRetry, "{:?}", part.content);
    assert_bounded_error(&part);
}

// A 300 KB literal pattern was called an invalid regular expression, with advice to search literally.
#[tokio::test]
async fn a_huge_literal_pattern_names_the_pattern_limit() {
    let provider = Arc::new(VirtualEnvironmentProvider::new("t").with_file("a.txt", "a"));
    let part = call_on(
        provider.clone(),
        "grep",
        json!({"pattern": "x(".repeat(150_000), "literal": true}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::ModelRetry);
    assert_bounded_error(&part);
    let message = part.content["message"].as_str().unwrap();
    assert!(!message.contains("invalid regular expression"), "{message}");
    assert!(message.contains("more than the 4096 bytes"), "{message}");
    // A literal at the limit, with regex syntax in it, is searched as text.
    let text = "(".repeat(MAX_SEARCH_PATTERN_BYTES);
    let provider = Arc::new(VirtualEnvironmentProvider::new("t").with_file("b.txt", text.clone()));
    for case_insensitive in [false, true] {
        let part = call_on(
            provider.clone(),
            "grep",
            json!({"pattern": text, "literal": true, "case_insensitive": case_insensitive}),
        )
        .await;
        assert_eq!(part.kind, ToolReturnKind::Success, "{:?}", part.content);
        assert_eq!(part.content["count"], 1);
    }
    let glob = call_on(provider, "glob", json!({"pattern": "*".repeat(20_000)})).await;
    assert!(glob.content["message"]
        .as_str()
        .unwrap()
        .contains("glob pattern is 20000 bytes"));
}

// A 50 MB tool name came back as a 50 MB not_found (and was scored against every tool).
#[tokio::test]
async fn a_huge_unknown_tool_name_is_shortened() {
    let name = "t".repeat(50_000_000);
    let part = count_tool()
        .execute_call(
            ToolContext::default(),
            &ToolCallPart::new("c", &name, json!({})),
        )
        .await;
    assert_eq!(part.kind, ToolReturnKind::NotFound);
    assert_bounded_error(&part);
    assert!(part.tool_name.len() <= 256);
    assert!(part.content["message"]
        .as_str()
        .unwrap()
        .contains("Available tools: count"));
}

// The limits are the registry's: a host can tighten them.
#[tokio::test]
async fn a_registry_applies_its_own_limits() {
    let registry = count_tool().with_limits(
        ToolLimits::default()
            .with_max_message_bytes(200)
            .with_max_echo_bytes(32),
    );
    let part = registry
        .execute_call(
            ToolContext::default(),
            &ToolCallPart::new("c", "count", json!({"count": "9".repeat(10_000)})),
        )
        .await;
    let message = part.content["message"].as_str().unwrap();
    assert!(message.len() <= 200, "{message}");
}

// A tool's own success output of any size is cut to the return limit.
#[tokio::test]
async fn a_huge_success_is_cut_to_the_return_limit() {
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(
            typed_tool::<serde_json::Map<String, Value>, _, _>(
                "flood",
                Some("Returns a lot".to_string()),
                |_ctx: ToolContext, _args| async move {
                    Ok(ToolResult::new(json!({"text": "\"".repeat(1_000_000)})))
                },
            ),
        ))
        .with_limits(ToolLimits::default().with_max_return_bytes(10_000));
    let part = registry
        .execute_call(
            ToolContext::default(),
            &ToolCallPart::new("c", "flood", json!({})),
        )
        .await;
    assert_eq!(part.kind, ToolReturnKind::Success);
    assert!(size(&part) <= 10_000, "{}", size(&part));
    assert_eq!(part.metadata["shortened"]["reason"], "too_large");
}

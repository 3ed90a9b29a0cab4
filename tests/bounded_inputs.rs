//! Hostile tool calls cost bounded memory, time and answer size: sizes
//! of reads, writes and edits, echoed values in errors, argument depth
//! and shape, and what every first-party tool returns.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use starweaver::environment::{
    EnvironmentProvider, VirtualEnvironmentProvider, MAX_SEARCH_PATTERN_BYTES,
};
use starweaver::model::ToolCallPart;
use starweaver::{
    attach_environment, typed_tool, AgentContext, FilesystemOptions, ToolContext, ToolLimits,
    ToolRegistry, ToolResult, ToolReturnKind, ToolReturnPart, DEFAULT_MAX_MESSAGE_BYTES,
};

mod common;
use common::ambient;
use common::environment::call_on;

/// Room for an error return's fixed fields besides its message.
const ENVELOPE: usize = 1_024;

fn size(part: &ToolReturnPart) -> usize {
    serde_json::to_string(&part.content).map_or(usize::MAX, |text| text.len())
}

/// Asserts an error return stays within the default message limit.
fn assert_bounded_error(part: &ToolReturnPart) {
    assert!(
        part.is_error || part.kind == ToolReturnKind::Feedback,
        "{part:?}"
    );
    assert!(
        size(part) <= DEFAULT_MAX_MESSAGE_BYTES + ENVELOPE,
        "{} bytes: {}",
        size(part),
        part.kind.as_str()
    );
}

/// Takes a deep value apart without recursion (the test must not
/// overflow its own stack dropping what it built).
fn dismantle(value: Value) {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Array(items) => pending.extend(items),
            Value::Object(map) => pending.extend(map.into_iter().map(|(_, child)| child)),
            _ => {}
        }
    }
}

fn nested_arrays(depth: usize) -> Value {
    let mut value = Value::Null;
    for _ in 0..depth {
        value = Value::Array(vec![value]);
    }
    value
}

/// Runs one call of the filesystem bundle built with `options`.
async fn call_with(
    options: FilesystemOptions,
    provider: Arc<VirtualEnvironmentProvider>,
    name: &str,
    arguments: Value,
) -> ToolReturnPart {
    common::environment::call_through(&options.into_toolset(), provider, name, arguments).await
}

mod file_sizes {
    use super::*;

    // edit_file built a 4 GB string (400 KB of `a`, each replaced by 10 KB) and aborted.
    #[tokio::test]
    async fn an_amplifying_edit_is_refused_before_it_is_built() {
        let provider =
            Arc::new(VirtualEnvironmentProvider::new("t").with_file("a.txt", "a".repeat(400_000)));
        let part = call_on(
            provider.clone(),
            "edit_file",
            json!({"path": "a.txt", "old_string": "a", "new_string": "b".repeat(10_000), "replace_all": true}),
        )
        .await;
        assert_eq!(part.kind, ToolReturnKind::Feedback, "{:?}", part.content);
        assert_eq!(part.content["details"]["error"], "too_large");
        assert_eq!(part.content["details"]["bytes"], 4_000_000_000_u64);
        assert!(part.content["message"]
            .as_str()
            .unwrap()
            .contains("replace fewer occurrences"));
        assert_eq!(provider.read_text("a.txt").await.unwrap().len(), 400_000);
    }

    // edit_file edited files larger than read_file would read, and write_file took any size.
    #[tokio::test]
    async fn read_write_and_edit_share_one_size_limit() {
        let options = FilesystemOptions::default().with_max_file_bytes(1_000);
        let provider = Arc::new(
            VirtualEnvironmentProvider::new("t")
                .with_file("big.txt", "x".repeat(1_001))
                .with_file("ok.txt", format!("{}z", "y".repeat(999))),
        );
        for (name, arguments) in [
            ("read_file", json!({"path": "big.txt"})),
            (
                "edit_file",
                json!({"path": "big.txt", "old_string": "x", "new_string": "z"}),
            ),
            (
                "write_file",
                json!({"path": "new.txt", "content": "w".repeat(1_001)}),
            ),
            (
                "edit_file",
                json!({"path": "ok.txt", "old_string": "z", "new_string": "zz"}),
            ),
        ] {
            let part = call_with(options, provider.clone(), name, arguments).await;
            assert_eq!(
                part.kind,
                ToolReturnKind::Feedback,
                "{name}: {:?}",
                part.content
            );
            assert_eq!(part.content["details"]["error"], "too_large", "{name}");
            assert_eq!(part.content["details"]["max_file_bytes"], 1_000, "{name}");
        }
        assert!(!provider.exists("new.txt").await.unwrap());
        // At the limit is fine for all three.
        let read = call_with(
            options,
            provider.clone(),
            "read_file",
            json!({"path": "ok.txt"}),
        )
        .await;
        assert_eq!(read.kind, ToolReturnKind::Success);
        let write = call_with(
            options,
            provider.clone(),
            "write_file",
            json!({"path": "new.txt", "content": "w".repeat(1_000)}),
        )
        .await;
        assert_eq!(write.kind, ToolReturnKind::Success);
    }

    // write_file accepted 200 MB; the default limit is 16 MiB.
    #[tokio::test]
    async fn the_default_limit_refuses_a_huge_write() {
        let provider = Arc::new(VirtualEnvironmentProvider::new("t"));
        let content = "w".repeat(usize::try_from(starweaver::DEFAULT_MAX_FILE_BYTES).unwrap() + 1);
        let part = call_on(
            provider.clone(),
            "write_file",
            json!({"path": "huge.txt", "content": content}),
        )
        .await;
        assert_eq!(part.content["details"]["error"], "too_large");
        assert!(!provider.exists("huge.txt").await.unwrap());
    }
}

mod echoed_values {
    use super::*;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
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
        let provider =
            Arc::new(VirtualEnvironmentProvider::new("t").with_file("b.txt", text.clone()));
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
}

mod argument_shape {
    use super::*;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Anything {
        /// Any JSON.
        value: Value,
    }

    // 100,000 nested arrays in a `Value` field overflowed the stack inside argument parsing.
    #[tokio::test]
    async fn deep_arguments_are_refused_before_parsing() {
        let registry = ToolRegistry::new().with_tool(Arc::new(typed_tool::<Anything, _, _>(
            "take",
            Some("Take anything".to_string()),
            |_ctx: ToolContext, _args: Anything| async move { Ok(ToolResult::new(json!("ran"))) },
        )));
        // Built by hand: `json!` would serialize the value, recursively.
        let mut arguments = serde_json::Map::new();
        arguments.insert("value".to_string(), nested_arrays(100_000));
        let call = ToolCallPart::new("c", "take", Value::Object(arguments));
        let part = registry.execute_call(ToolContext::default(), &call).await;
        assert_eq!(part.kind, ToolReturnKind::InvalidArguments);
        assert!(part.content["message"]
            .as_str()
            .unwrap()
            .contains("more than 128 levels deep"));
        // At the limit the call runs.
        let fits = ToolCallPart::new("c", "take", json!({"value": nested_arrays(127)}));
        let ran = registry.execute_call(ToolContext::default(), &fits).await;
        assert_eq!(ran.content, json!("ran"));
        if let starweaver::model::ToolCallArguments::Json(value) = call.arguments {
            dismantle(value);
        }
    }

    // A model response with 100,000-level arguments overflowed the stack when the run loop copied it into the history.
    #[tokio::test]
    async fn a_run_drops_deep_arguments_from_the_model() {
        let model = Arc::new(starweaver::FunctionModel::new(|messages, _parameters| {
            if common::responses_so_far(messages) > 0 {
                return Ok(starweaver::model::ModelResponse::text("done"));
            }
            let mut arguments = serde_json::Map::new();
            arguments.insert("value".to_string(), nested_arrays(100_000));
            Ok(starweaver::model::ModelResponse::tool_calls([
                ToolCallPart::new("c", "take", Value::Object(arguments)),
            ]))
        }));
        let tool = typed_tool::<Anything, _, _>(
            "take",
            Some("Take anything".to_string()),
            |_ctx: ToolContext, _args: Anything| async move { Ok(ToolResult::new(json!("ran"))) },
        );
        let app = starweaver::AgentBuilder::new(model)
            .tool(Arc::new(tool))
            .build_app();
        // Streamed too: the stream's copy of the call must not recurse.
        let stream = app.session().run_stream("go").await.unwrap();
        assert!(!stream.events().is_empty());
        let mut session = app.session();
        let result = session.run("go").await.unwrap();
        assert_eq!(result.output, "done");
        // The model was asked to correct the call, and told why.
        let history = serde_json::to_string(session.messages()).unwrap();
        assert!(history.contains("retry_prompt"), "{history}");
        assert!(
            history.contains("nested more than 128 levels deep"),
            "{history}"
        );
        assert!(history.len() < 4_096, "{}", history.len());
    }

    // write_file with ["x.txt", "text"] filled its fields by position and wrote the file.
    #[tokio::test]
    async fn positional_arguments_are_refused() {
        let provider = Arc::new(VirtualEnvironmentProvider::new("t"));
        let part = call_on(provider.clone(), "write_file", json!(["x.txt", "text"])).await;
        assert_eq!(part.kind, ToolReturnKind::InvalidArguments);
        assert!(part.content["message"]
            .as_str()
            .unwrap()
            .contains("must be a JSON object"));
        assert!(!provider.exists("x.txt").await.unwrap());
        for arguments in [json!("text"), json!(3), json!(null), json!(true)] {
            let part = call_on(provider.clone(), "ls", arguments).await;
            assert_eq!(part.kind, ToolReturnKind::InvalidArguments);
        }
    }
}

mod every_first_party_tool {
    use super::*;
    use starweaver::{
        filesystem_tools, tool_proxy_toolset, tool_search_toolset, user_input_tools, StaticToolset,
        DEFAULT_MAX_RETURN_BYTES,
    };

    /// Every first-party tool in one registry: the filesystem bundle,
    /// `ask_user_question`, the proxy's `search_tools`/`call_tool` and
    /// `tool_search`.
    fn registry() -> ToolRegistry {
        let wrapped =
            Arc::new(StaticToolset::new("wrapped").with_tool(common::echo("lookup", "Look up")));
        let searched =
            Arc::new(StaticToolset::new("searched").with_tool(common::echo("find", "Find")));
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
                if part.is_error || part.kind == ToolReturnKind::Feedback {
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
}

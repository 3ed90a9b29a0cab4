//! Argument depth and shape.

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
    let model = Arc::new(starweaver::model::FunctionModel::new(
        |messages, _parameters| {
            if crate::common::responses_so_far(messages) > 0 {
                return Ok(starweaver::model::ModelResponse::text("done"));
            }
            let mut arguments = serde_json::Map::new();
            arguments.insert("value".to_string(), nested_arrays(100_000));
            Ok(starweaver::model::ModelResponse::tool_calls([
                ToolCallPart::new("c", "take", Value::Object(arguments)),
            ]))
        },
    ));
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

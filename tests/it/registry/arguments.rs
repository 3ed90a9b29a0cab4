//! Unknown tools, malformed and mistyped arguments, and argument
//! validators (Tools chapter: "Availability", argument validators).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use starweaver::model::{ToolCallPart, ToolReturnKind};
use starweaver::{string_tool, typed_tool, ToolContext, ToolError, ToolRegistry, ToolResult};

use crate::common::{call, counter, open_schema, EchoArgs};

use super::{counting_echo, entries, execute, message, runs, Log};

// ---------------------------------------------------------------------------
// Unknown tools and malformed arguments
// ---------------------------------------------------------------------------

#[tokio::test]
async fn unknown_tool_is_not_found_and_suggests_the_closest_name() {
    let executions = counter();
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(counting_echo("search_files", &executions)))
        .with_tool(Arc::new(counting_echo("write_note", &executions)));

    let part = execute(&registry, "search_file", json!({})).await;

    assert_eq!(part.kind, ToolReturnKind::NotFound);
    assert!(part.is_error());
    assert!(part.kind.is_model_retry());
    assert_eq!(part.tool_name, "search_file");
    assert!(message(&part).contains("`search_files`"), "{part:?}");
    assert!(message(&part).contains("Did you mean"), "{part:?}");
    assert_eq!(part.metadata["retry"]["class"], json!("model"));
    assert_eq!(runs(&executions), 0);
}

#[tokio::test]
async fn malformed_raw_json_arguments_are_invalid_arguments() {
    let executions = counter();
    let registry = ToolRegistry::new().with_tool(Arc::new(counting_echo("name", &executions)));

    let part = registry
        .execute_call(
            ToolContext::default(),
            &ToolCallPart::new("id", "name", "{oops"),
        )
        .await;

    assert_eq!(part.kind, ToolReturnKind::InvalidArguments);
    assert!(part.is_error());
    assert!(message(&part).contains("JSON"), "{part:?}");
    assert_eq!(part.metadata["retry"]["class"], json!("model"));
    assert_eq!(runs(&executions), 0);
}

#[tokio::test]
async fn empty_raw_arguments_are_treated_as_an_empty_object() {
    let executions = counter();
    let registry = ToolRegistry::new().with_tool(Arc::new(counting_echo("name", &executions)));

    for raw in ["", "   "] {
        let part = registry
            .execute_call(
                ToolContext::default(),
                &ToolCallPart::new("id", "name", raw),
            )
            .await;
        assert_eq!(part.kind, ToolReturnKind::Success, "{raw:?}: {part:?}");
        assert_eq!(part.content, json!({}));
    }
    assert_eq!(runs(&executions), 2);

    // Raw text that is valid JSON is parsed.
    let part = registry
        .execute_call(
            ToolContext::default(),
            &ToolCallPart::new("id", "name", r#"{"a": [1, 2]}"#),
        )
        .await;
    assert_eq!(part.content, json!({"a": [1, 2]}));
}

// ---------------------------------------------------------------------------
// Argument validators
// ---------------------------------------------------------------------------

#[tokio::test]
async fn validators_run_in_order_and_normalise_arguments() {
    let executions = counter();
    let order: Log = Arc::default();
    let (first_log, second_log) = (order.clone(), order.clone());
    let tool = counting_echo("normalised", &executions)
        .with_argument_validator(move |_ctx, args| {
            first_log.lock().unwrap().push("first".to_string());
            let lowered = args["name"].as_str().unwrap_or_default().to_lowercase();
            args["name"] = json!(lowered);
            args["first"] = json!(true);
            Ok(())
        })
        .with_argument_validator(move |_ctx, args| {
            second_log.lock().unwrap().push("second".to_string());
            if args["first"] != json!(true) || args["name"] != json!("ada") {
                return Err(ToolError::invalid_arguments(
                    "normalised",
                    "second validator ran before the first",
                ));
            }
            args["second"] = json!(true);
            Ok(())
        });
    let registry = ToolRegistry::new().with_tool(Arc::new(tool));

    let part = execute(&registry, "normalised", json!({"name": "ADA"})).await;

    assert_eq!(part.kind, ToolReturnKind::Success, "{part:?}");
    assert_eq!(
        part.content,
        json!({"name": "ada", "first": true, "second": true})
    );
    assert_eq!(entries(&order), vec!["first", "second"]);
    assert_eq!(runs(&executions), 1);
}

#[tokio::test]
async fn validator_rejection_is_invalid_arguments_and_stops_the_call() {
    let executions = counter();
    let later_validator = counter();
    let later_in_validator = later_validator.clone();
    let tool = counting_echo("validated", &executions)
        .with_argument_validator(|_ctx, args| {
            if args.get("allow").and_then(Value::as_bool) == Some(true) {
                Ok(())
            } else {
                Err(ToolError::InvalidArguments {
                    tool: "validated".to_string(),
                    message: "allow must be true".to_string(),
                })
            }
        })
        .with_argument_validator(move |_ctx, _args| {
            later_in_validator.fetch_add(1, Ordering::SeqCst);
            Ok(())
        });
    let registry = ToolRegistry::new().with_tool(Arc::new(tool));

    let part = execute(&registry, "validated", json!({"allow": false})).await;

    assert_eq!(part.kind, ToolReturnKind::InvalidArguments);
    assert!(part.is_error());
    assert!(message(&part).contains("allow must be true"), "{part:?}");
    assert_eq!(runs(&executions), 0);
    assert_eq!(
        runs(&later_validator),
        0,
        "the chain stops at the rejection"
    );

    let part = execute(&registry, "validated", json!({"allow": true})).await;
    assert_eq!(part.kind, ToolReturnKind::Success);
    assert_eq!(runs(&executions), 1);
    assert_eq!(runs(&later_validator), 1);
}

#[derive(Debug, Deserialize, JsonSchema)]
struct PageArgs {
    /// Topic to page through.
    topic: String,
    /// Page size.
    limit: u32,
}

#[tokio::test]
async fn typed_tools_run_validators_before_serde() {
    let executions = counter();
    let in_tool = executions.clone();
    let tool = typed_tool::<PageArgs, _, _>(
        "page",
        Some("Page through a topic".to_string()),
        move |_ctx: ToolContext, args: PageArgs| {
            in_tool.fetch_add(1, Ordering::SeqCst);
            async move {
                Ok(ToolResult::new(
                    json!({"topic": args.topic, "limit": args.limit}),
                ))
            }
        },
    )
    // Serde would reject both a missing `limit` and `"limit": "ten"`.
    .with_argument_validator(|_ctx, args| {
        match args.get("limit") {
            None => args["limit"] = json!(10),
            Some(Value::String(word)) if word == "ten" => args["limit"] = json!(10),
            _ => {}
        }
        Ok(())
    })
    .with_argument_validator(|_ctx, args| {
        if args["topic"] == json!("forbidden") {
            Err(ToolError::invalid_arguments("page", "topic is not allowed"))
        } else {
            Ok(())
        }
    });
    let registry = ToolRegistry::new().with_tool(Arc::new(tool));

    let part = execute(&registry, "page", json!({"topic": "rust"})).await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{part:?}");
    assert_eq!(part.content, json!({"topic": "rust", "limit": 10}));

    let part = execute(&registry, "page", json!({"topic": "rust", "limit": "ten"})).await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{part:?}");
    assert_eq!(part.content, json!({"topic": "rust", "limit": 10}));
    assert_eq!(runs(&executions), 2);

    let part = execute(&registry, "page", json!({"topic": "forbidden"})).await;
    assert_eq!(part.kind, ToolReturnKind::InvalidArguments);
    assert!(message(&part).contains("topic is not allowed"), "{part:?}");
    assert_eq!(runs(&executions), 2, "a rejected call never runs");
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Filter {
    /// Maximum number of rows.
    limit: u32,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct QueryArgs {
    /// Query.
    query: String,
    /// Filter.
    filter: Filter,
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression: typed tool errors for nested fields did not say where.
#[tokio::test]
async fn typed_tool_errors_name_the_field() {
    let tool = typed_tool::<QueryArgs, _, _>(
        "query_rows",
        Some("Query rows".to_string()),
        |_ctx: ToolContext, args: QueryArgs| async move {
            Ok(ToolResult::new(
                json!({"query": args.query, "limit": args.filter.limit}),
            ))
        },
    );
    let registry = ToolRegistry::new().with_tool(Arc::new(tool));
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call(
                "c",
                "query_rows",
                json!({"query": "x", "filter": {"limit": "ten"}}),
            ),
        )
        .await;
    assert_eq!(part.kind, ToolReturnKind::InvalidArguments);
    let message = part.content["message"].as_str().unwrap();
    // Errors must say what *and where*; manual schemas report `/filter/limit`.
    assert!(
        message.contains("filter.limit") || message.contains("/filter/limit"),
        "{message}"
    );
}

// Regression: serde argument errors were execution failures, retried three times.
#[tokio::test]
async fn serde_argument_errors_are_not_retried_execution_failures() {
    let runs = counter();
    let tool = {
        let runs = runs.clone();
        string_tool(
            "parse_args",
            Some("Parses its own arguments".to_string()),
            open_schema(),
            move |_ctx: ToolContext, args: Value| {
                let runs = runs.clone();
                async move {
                    runs.fetch_add(1, Ordering::SeqCst);
                    let args: EchoArgs = serde_json::from_value(args)?;
                    Ok(ToolResult::new(json!({"value": args.value})))
                }
            },
        )
    };
    let registry = ToolRegistry::new().with_tool(Arc::new(tool));
    let part = registry
        .execute_call(
            ToolContext::default(),
            &call("c", "parse_args", json!({"value": 1})),
        )
        .await;
    // Spec: "JSON/Serde argument validation failures
    // (ToolError::InvalidArguments) ask the model to correct the tool call".
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "a data error is not transient"
    );
    assert_eq!(part.kind, ToolReturnKind::InvalidArguments);
}

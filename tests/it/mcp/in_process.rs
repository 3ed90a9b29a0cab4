//! The client against the tests' own SDK server, in process.

use std::time::Duration;

use serde_json::json;
use starweaver::mcp::client::{map_tool_name, McpApproval, McpError, McpToolset};
use starweaver::model::ToolReturnKind;
use starweaver::{AgentBuilder, AgentSession, ToolError, Toolset};

use super::server::{long_name, spec};
use super::{call, names, tool};
use crate::common::{batch_model, call as call_part, tool_returns};

#[tokio::test]
async fn tools_are_listed_under_mapped_names_and_called_by_their_own() {
    let (spec, _) = spec("test");
    let toolset = McpToolset::new(spec.with_prefix("t"));
    assert!(
        toolset.get_tools().is_empty(),
        "nothing starts before entry"
    );
    toolset.start().await.unwrap();
    let names = names(&toolset);
    assert!(names.contains(&"t_echo".to_string()), "{names:?}");
    assert!(names.contains(&"t_files_read".to_string()), "{names:?}");
    let long = map_tool_name(Some("t"), &long_name());
    assert_eq!(long.len(), 64);
    assert!(names.contains(&long), "{names:?}");
    let echoed = call(&toolset, "t_echo", json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(echoed.content, json!("hi"));
    // Mapped back to the server's own names.
    let dotted = call(&toolset, "t_files_read", json!({})).await.unwrap();
    assert_eq!(dotted.content, json!("called files.read"));
    let long_call = call(&toolset, &long, json!({})).await.unwrap();
    assert_eq!(long_call.content, json!(format!("called {}", long_name())));
    // The schema without a type is an object schema with properties.
    let definition = tool(&toolset, "t_files_read").definition();
    assert_eq!(definition.parameters["type"], "object");
    let described = toolset.describe().await.unwrap();
    let echo = described.iter().find(|info| info.name == "t_echo").unwrap();
    assert_eq!(echo.server_name, "echo");
    assert_eq!(echo.hints.read_only, Some(true));
    toolset.stop().await;
}

#[tokio::test]
async fn structured_content_is_the_return_and_is_checked_against_the_output_schema() {
    let (spec, _) = spec("test");
    let toolset = McpToolset::new(spec);
    toolset.start().await.unwrap();
    let added = call(&toolset, "add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    assert_eq!(added.content, json!({"sum": 3.0}));
    assert!(tool(&toolset, "add").definition().return_schema.is_some());
    let bad = call(&toolset, "bad-structured", json!({}))
        .await
        .unwrap_err();
    assert!(bad.to_string().contains("outputSchema"), "{bad}");
}

#[tokio::test]
async fn is_error_and_json_rpc_errors_are_error_returns_with_the_servers_text() {
    let (spec, _) = spec("test");
    let toolset = McpToolset::new(spec);
    toolset.start().await.unwrap();
    let failed = call(&toolset, "fails", json!({})).await.unwrap_err();
    assert_eq!(failed.kind(), ToolReturnKind::Feedback);
    assert_eq!(failed.model_message(), "it failed on purpose");
    let rpc = call(&toolset, "rpc-error", json!({})).await.unwrap_err();
    assert_eq!(rpc.kind(), ToolReturnKind::Feedback);
    assert!(rpc.model_message().contains("no such widget: 42"), "{rpc}");
    let not_object = call(&toolset, "echo", json!([1])).await.unwrap_err();
    assert!(matches!(not_object, ToolError::InvalidArguments { .. }));
}

#[tokio::test]
async fn text_image_and_resource_blocks_reach_the_return() {
    let (spec, _) = spec("test");
    let toolset = McpToolset::new(spec);
    toolset.start().await.unwrap();
    let blocks = call(&toolset, "blocks", json!({})).await.unwrap();
    assert_eq!(
        blocks.content,
        json!([
            {"type": "text", "text": "a picture and a file"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "resource", "uri": "file:///notes.txt", "mimeType": "text/plain", "text": "notes"}
        ])
    );
}

#[tokio::test]
async fn a_tool_list_change_is_read_before_the_next_use() {
    let (spec, _) = spec("test");
    let toolset = McpToolset::new(spec);
    toolset.start().await.unwrap();
    assert!(!names(&toolset).contains(&"extra".to_string()));
    call(&toolset, "grow", json!({})).await.unwrap();
    // The notification arrives on its own; poll (not time) for it.
    let mut found = false;
    for _ in 0..500 {
        let described = toolset.describe().await.unwrap();
        if described.iter().any(|info| info.name == "extra") {
            found = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(found, "the list change was never read");
    assert!(names(&toolset).contains(&"extra".to_string()));
    assert_eq!(
        call(&toolset, "extra", json!({})).await.unwrap().content,
        json!("called extra")
    );
}

#[tokio::test]
async fn a_call_past_its_timeout_is_cancelled_on_the_server() {
    let (spec, seen) = spec("test");
    let toolset = McpToolset::new(spec.with_call_timeout(Duration::from_millis(200)));
    toolset.start().await.unwrap();
    let signal = seen.cancel_signal.notified();
    let error = call(&toolset, "hang", json!({})).await.unwrap_err();
    assert!(matches!(error, ToolError::Timeout { .. }), "{error}");
    if seen.cancelled.lock().unwrap().is_empty() {
        tokio::time::timeout(Duration::from_secs(30), signal)
            .await
            .expect("the server was never told");
    }
    assert_eq!(seen.cancelled.lock().unwrap().len(), 1);
    // The connection still serves calls.
    assert_eq!(
        call(&toolset, "echo", json!({"text": "x"}))
            .await
            .unwrap()
            .content,
        json!("x")
    );
}

#[tokio::test]
async fn approvals_follow_the_list_all_or_the_destructive_hints() {
    let approvals = |approval: McpApproval| async move {
        let (spec, _) = spec("test");
        let toolset = McpToolset::new(spec.with_approval(approval));
        toolset.start().await.unwrap();
        let mut gated: Vec<String> = toolset
            .get_tools()
            .iter()
            .filter(|tool| tool.facts().approval_required)
            .map(|tool| tool.name().to_string())
            .collect();
        gated.sort();
        gated
    };
    assert!(approvals(McpApproval::Never).await.is_empty());
    assert_eq!(
        approvals(McpApproval::Tools(vec!["add".into()])).await,
        ["add"]
    );
    assert_eq!(
        approvals(McpApproval::All).await.len(),
        11,
        "every tool the server lists"
    );
    let destructive = approvals(McpApproval::Destructive).await;
    // `echo` is read-only and `add` says it is not destructive; the rest
    // say nothing (MCP's default: may destroy) or say they are.
    assert!(!destructive.contains(&"echo".to_string()));
    assert!(!destructive.contains(&"add".to_string()));
    assert!(destructive.contains(&"bad-structured".to_string()));
    assert!(destructive.contains(&"fails".to_string()));
}

#[tokio::test]
async fn a_filtered_toolset_offers_exactly_the_listed_tools() {
    let (spec, _) = spec("test");
    let toolset = McpToolset::new(spec.with_tools(["echo", "add"]));
    toolset.start().await.unwrap();
    assert_eq!(names(&toolset), ["add", "echo"]);
    let (spec, _) = spec_named("missing");
    let error = McpToolset::new(spec.with_tools(["echo", "nope"]))
        .start()
        .await
        .unwrap_err();
    assert!(matches!(error, McpError::MissingTool { .. }), "{error}");
    assert!(error.to_string().contains("`nope`"), "{error}");
}

fn spec_named(
    name: &str,
) -> (
    starweaver::mcp::client::McpServerSpec,
    std::sync::Arc<super::server::Seen>,
) {
    spec(name)
}

#[tokio::test]
async fn a_run_enters_the_toolset_calls_its_tools_and_stops_it() {
    let (spec, seen) = spec("test");
    let toolset = McpToolset::new(spec.with_prefix("ev").with_tools(["echo"]));
    let model = batch_model(vec![vec![call_part(
        "c1",
        "ev_echo",
        json!({"text": "from the model"}),
    )]]);
    let agent = AgentBuilder::new(model).toolset(&toolset).build();
    let mut session = AgentSession::new(agent);
    let result = session.run("echo something").await.unwrap();
    let returns = tool_returns(&result.messages);
    assert_eq!(returns[0].kind, ToolReturnKind::Success, "{:?}", returns[0]);
    assert_eq!(returns[0].content, json!("from the model"));
    assert_eq!(*seen.connections.lock().unwrap(), 1);
}

#[tokio::test]
async fn an_mcp_toolset_behind_tool_search_is_found_and_called() {
    let (spec, _) = spec("test");
    let toolset = McpToolset::new(spec.with_prefix("ev"));
    let model = batch_model(vec![
        vec![call_part(
            "s1",
            "tool_search",
            json!({"query": "echoes text"}),
        )],
        vec![call_part("c1", "ev_echo", json!({"text": "found"}))],
    ]);
    let agent = AgentBuilder::new(model)
        .toolset(&starweaver::tool_search_toolset(vec![toolset]))
        .build();
    let mut session = AgentSession::new(agent);
    let result = session.run("search, then echo").await.unwrap();
    let returns = tool_returns(&result.messages);
    assert_eq!(returns[1].kind, ToolReturnKind::Success, "{:?}", returns);
    assert_eq!(returns[1].content, json!("found"));
}

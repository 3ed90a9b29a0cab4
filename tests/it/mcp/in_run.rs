//! An MCP toolset inside a whole run, against the tests' own SDK server: the server's progress
//! reaches the run's records before the call's return, a list change made during the run is
//! in the model's next request, a deferred MCP toolset hands its calls to a worker, a proxy
//! finds and calls the server's tools, and an answer over the return limit is shortened as
//! any tool's is.

use std::sync::{Arc, Mutex};

use serde_json::json;
use starweaver::agent::{AgentHitlRequestKind, AgentHitlResults, AgentRunStatus};
use starweaver::mcp::client::McpToolset;
use starweaver::model::{FunctionModel, ModelMessage, ModelResponse, ToolReturnKind};
use starweaver::tools::{DeferredToolset, ToolLimits, ToolProxyToolset};
use starweaver::{AgentBuilder, AgentSession, AgentStreamEvent, DynToolset, ToolRegistry};

use super::server::spec;
use crate::common::{batch_model, call as call_part, tool_returns};

#[tokio::test]
async fn a_servers_progress_is_recorded_before_the_calls_return() {
    let (spec, _) = spec("test");
    let toolset = McpToolset::new(spec.with_tools(["progress"]));
    let model = batch_model(vec![vec![call_part("p1", "progress", json!({}))]]);
    let agent = AgentBuilder::new(model).toolset(&toolset).build();
    let mut session = AgentSession::new(agent);
    let stream = session.run_stream("count").await.unwrap();
    let events: Vec<&AgentStreamEvent> = stream.events().iter().map(|r| &r.event).collect();
    let updates: Vec<(f64, Option<f64>, Option<String>)> = events
        .iter()
        .filter_map(|event| match event {
            AgentStreamEvent::ToolProgress {
                tool_call_id,
                tool_name,
                update,
            } => {
                assert_eq!(
                    (tool_call_id.as_str(), tool_name.as_str()),
                    ("p1", "progress")
                );
                Some((update.progress, update.total, update.message.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        updates,
        (1..=3)
            .map(|step| (f64::from(step), Some(3.0), Some(format!("step {step}"))))
            .collect::<Vec<_>>()
    );
    let last_progress = events
        .iter()
        .rposition(|event| matches!(event, AgentStreamEvent::ToolProgress { .. }))
        .unwrap();
    let returned = events
        .iter()
        .position(|event| matches!(event, AgentStreamEvent::ToolReturn { part } if part.tool_call_id == "p1"))
        .unwrap();
    assert!(
        last_progress < returned,
        "progress after the return: {events:?}"
    );
    let returns = tool_returns(&stream.result().messages);
    assert_eq!(returns[0].content, json!("counted to 3"));
}

#[tokio::test]
async fn a_list_change_during_the_run_is_in_the_models_next_request() {
    let (spec, _) = spec("test");
    let toolset = McpToolset::new(spec.with_prefix("ev"));
    let offered: Arc<Mutex<Vec<Vec<String>>>> = Arc::default();
    let seen = Arc::clone(&offered);
    let model = Arc::new(FunctionModel::new(
        move |messages: &[ModelMessage], params| {
            let names: Vec<String> = params.tools.iter().map(|tool| tool.name.clone()).collect();
            let step = seen.lock().unwrap().len();
            seen.lock().unwrap().push(names.clone());
            let _ = messages;
            Ok(match step {
                0 => ModelResponse::tool_calls(vec![call_part("g1", "ev_grow", json!({}))]),
                1 if names.iter().any(|name| name == "ev_extra") => {
                    ModelResponse::tool_calls(vec![call_part("x1", "ev_extra", json!({}))])
                }
                _ => ModelResponse::text("done"),
            })
        },
    ));
    let agent = AgentBuilder::new(model).toolset(&toolset).build();
    let mut session = AgentSession::new(agent);
    let stream = session
        .run_stream("grow, then use the new tool")
        .await
        .unwrap();
    let offered = offered.lock().unwrap().clone();
    assert!(!offered[0].contains(&"ev_extra".to_string()), "{offered:?}");
    assert!(offered[1].contains(&"ev_extra".to_string()), "{offered:?}");
    let returns = tool_returns(&stream.result().messages);
    let extra = returns
        .iter()
        .find(|part| part.tool_call_id == "x1")
        .unwrap();
    assert_eq!(extra.kind, ToolReturnKind::Success, "{extra:?}");
    assert_eq!(extra.content, json!("called extra"));
    // The re-read is on the record, naming what joined.
    let refreshed = stream
        .events()
        .iter()
        .find_map(|record| match &record.event {
            AgentStreamEvent::Custom { event } if event.kind.as_str() == "toolset_refreshed" => {
                Some(event.payload.clone())
            }
            _ => None,
        });
    assert_eq!(
        refreshed,
        Some(json!({"toolset": "test", "added": ["ev_extra"], "removed": []}))
    );
}

// Regression: resuming a run paused on an MCP tool failed with `MissingTool`, because the
// server's tools are listed only once the resumed run set the toolset up.
#[tokio::test]
async fn a_deferred_mcp_toolsets_calls_wait_for_a_worker_and_never_reach_the_server() {
    let (spec, seen) = spec("test");
    let toolset = McpToolset::new(spec.with_tools(["echo"]));
    let model = batch_model(vec![vec![call_part(
        "d1",
        "echo",
        json!({"text": "later"}),
    )]]);
    let agent = AgentBuilder::new(model)
        .toolset(&DeferredToolset::new("jobs").with_toolset(toolset))
        .build();
    let mut session = AgentSession::new(agent);
    let waiting = session.run("echo later").await.unwrap();
    assert_eq!(waiting.status, AgentRunStatus::Waiting);
    assert_eq!(waiting.pending.len(), 1);
    let request = &waiting.pending[0];
    assert_eq!(request.kind, AgentHitlRequestKind::Deferred);
    assert_eq!(
        (request.tool_name.as_str(), &request.arguments),
        ("echo", &json!({"text": "later"}))
    );
    // The server was started (its tools were listed) but never called.
    assert_eq!(*seen.connections.lock().unwrap(), 1);
    let done = session
        .resume_after_hitl(AgentHitlResults::deferred_result(
            "d1",
            json!("from the worker"),
        ))
        .await
        .unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    let returns = tool_returns(&done.messages);
    assert_eq!(returns[0].content, json!("from the worker"));
}

// Regression: two servers listing the same tool name, both unprefixed, silently shadowed one
// another: the model saw one `echo`, and calls went to whichever registered last.
#[tokio::test]
async fn two_servers_offering_one_name_refuse_the_later_one_naming_both() {
    let (first, _) = spec("one");
    let (second, second_seen) = spec("two");
    let model = batch_model(vec![vec![call_part("e1", "echo", json!({"text": "hi"}))]]);
    let agent = AgentBuilder::new(model)
        .toolset(&McpToolset::new(first.with_tools(["echo"])))
        .toolset(&McpToolset::new(second.with_tools(["echo", "add"])))
        .build();
    let mut session = AgentSession::new(agent);
    let stream = session.run_stream("echo").await.unwrap();
    let failed = stream
        .events()
        .iter()
        .find_map(|record| match &record.event {
            AgentStreamEvent::Custom { event } if event.kind.as_str() == "toolset_failed" => {
                Some(event.payload.clone())
            }
            _ => None,
        })
        .expect("the clash was not reported");
    assert_eq!(failed["toolset"], "two", "{failed}");
    let error = failed["error"].as_str().unwrap();
    assert!(
        error.contains("`echo`") && error.contains("toolset `one`") && error.contains("prefix"),
        "{error}"
    );
    // The first server answered; the refused one offers nothing, not even its other tool.
    let returns = tool_returns(&stream.result().messages);
    assert_eq!(returns[0].content, json!("hi"));
    let offered = stream
        .events()
        .iter()
        .find_map(|record| match &record.event {
            AgentStreamEvent::ModelRequest { tools, .. } => Some(tools.clone()),
            _ => None,
        });
    assert_eq!(offered, Some(vec!["echo".to_string()]));
    assert_eq!(
        *second_seen.connections.lock().unwrap(),
        1,
        "it was started"
    );
}

#[tokio::test]
async fn a_proxy_over_a_server_finds_its_tool_with_search_tools_and_runs_it_with_call_tool() {
    let (spec, seen) = spec("test");
    let server: DynToolset = Arc::new(McpToolset::new(spec.with_tools(["echo", "add"])));
    let proxy = Arc::new(ToolProxyToolset::new("remote", vec![server]));
    let offered: Arc<Mutex<Vec<Vec<String>>>> = Arc::default();
    let model = {
        let offered = Arc::clone(&offered);
        Arc::new(FunctionModel::new(
            move |messages: &[ModelMessage], params| {
                let step = offered.lock().unwrap().len();
                offered
                    .lock()
                    .unwrap()
                    .push(params.tools.iter().map(|tool| tool.name.clone()).collect());
                let _ = messages;
                Ok(match step {
                    0 => ModelResponse::tool_calls(vec![call_part(
                        "s1",
                        "search_tools",
                        json!({"query": "echoes text"}),
                    )]),
                    1 => ModelResponse::tool_calls(vec![call_part(
                        "c1",
                        "call_tool",
                        json!({"name": "echo", "arguments": {"text": "through the proxy"}}),
                    )]),
                    _ => ModelResponse::text("done"),
                })
            },
        ))
    };
    let agent = AgentBuilder::new(model).toolset(&proxy).build();
    let mut session = AgentSession::new(agent);
    let done = session.run("find and echo").await.unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    // The model sees the proxy's pair only, never the server's tools.
    for names in offered.lock().unwrap().iter() {
        let mut names = names.clone();
        names.sort();
        assert_eq!(names, ["call_tool", "search_tools"]);
    }
    let returns = tool_returns(&done.messages);
    let search = returns
        .iter()
        .find(|part| part.tool_call_id == "s1")
        .unwrap();
    assert_eq!(search.kind, ToolReturnKind::Success, "{search:?}");
    let found: Vec<&str> = search.content["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert!(found.contains(&"echo"), "{search:?}");
    let echo = search.content["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "echo")
        .unwrap();
    assert_eq!(echo["description"], json!("Echoes `text`."));
    assert_eq!(
        echo["parameters"]["properties"]["text"]["type"],
        json!("string")
    );
    // The server's own answer, named as the tool that ran.
    let called = returns
        .iter()
        .find(|part| part.tool_call_id == "c1")
        .unwrap();
    assert_eq!(called.kind, ToolReturnKind::Success, "{called:?}");
    assert_eq!(called.content, json!("through the proxy"));
    assert_eq!(called.metadata["inner_tool"], json!("echo"));
    // Set up once by the run, through the proxy.
    assert_eq!(*seen.connections.lock().unwrap(), 1);
}

#[tokio::test]
async fn a_server_answer_over_the_return_limit_is_shortened_as_any_tools_is() {
    const MAX: usize = 1_000;
    let (spec, _) = spec("test");
    let toolset = McpToolset::new(spec.with_tools(["echo"]));
    let long = "x".repeat(20 * MAX);
    let model = batch_model(vec![
        vec![call_part("big", "echo", json!({"text": long}))],
        vec![call_part("small", "echo", json!({"text": "short"}))],
    ]);
    let agent = AgentBuilder::new(model)
        .tool_registry(
            ToolRegistry::new().with_limits(ToolLimits::default().with_max_return_bytes(MAX)),
        )
        .toolset(&toolset)
        .build();
    let mut session = AgentSession::new(agent);
    let done = session.run("echo a lot").await.unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    let returns = tool_returns(&done.messages);
    let big = returns
        .iter()
        .find(|part| part.tool_call_id == "big")
        .unwrap();
    assert_eq!(big.kind, ToolReturnKind::Success, "{big:?}");
    let size = serde_json::to_string(&big.content).unwrap().len();
    assert!(size <= MAX, "{size} bytes went back to the model");
    let text = big.content.as_str().unwrap();
    assert!(
        text.starts_with("\"xxxx"),
        "the head of its JSON text: {text}"
    );
    assert_eq!(
        big.metadata["shortened"],
        json!({"reason": "too_large", "original_bytes": long.len() + 2, "max_return_bytes": MAX})
    );
    // A small answer is untouched and carries no marker.
    let small = returns
        .iter()
        .find(|part| part.tool_call_id == "small")
        .unwrap();
    assert_eq!(small.content, json!("short"));
    assert!(small.metadata.get("shortened").is_none(), "{small:?}");
}

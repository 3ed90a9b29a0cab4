//! Regression tests from the fourth review round: claims of the README,
//! docs/*.md and the public doc comments, checked against the code.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use starweaver::model::{ModelMessage, ModelResponse};
use starweaver::{
    string_tool, tool_proxy_toolset, AgentBuilder, AgentContextHandle, AgentHitlUserInteraction,
    AgentStreamRecord, DynTool, FunctionModel, StaticToolset, ToolContext,
    ToolDependencyRequirements, ToolResult,
};

mod common;
use common::{call, echo, echo_tool, open_schema, record_label, responses_so_far};

// ---------------------------------------------------------------------------
// 1. Resumed calls: their context events are reported after every resumed
//    call has finished, not with each return
// ---------------------------------------------------------------------------

/// An approval-gated Legacy tool that publishes `announced` on the agent
/// context while it runs.
fn announcing(name: &str) -> DynTool {
    let tool_name = name.to_string();
    Arc::new(
        string_tool(
            name,
            Some(format!("The {name} tool")),
            open_schema(),
            move |ctx: ToolContext, _args: Value| {
                let tool_name = tool_name.clone();
                async move {
                    let handle = ctx.dependency::<AgentContextHandle>().unwrap();
                    handle.update(|context| {
                        context.emit("announced", json!({"tool": tool_name}));
                    });
                    Ok(ToolResult::new(json!({"tool": tool_name})))
                }
            },
        )
        .with_approval_required(true),
    )
}

#[tokio::test]
async fn resumed_call_events_are_reported_with_their_return() {
    let model = Arc::new(FunctionModel::new(|messages: &[ModelMessage], _| {
        Ok(match responses_so_far(messages) {
            0 => ModelResponse::tool_calls([
                call("a1", "alpha", json!({})),
                call("b1", "beta", json!({})),
            ]),
            _ => ModelResponse::text("done"),
        })
    }));
    let mut session = AgentBuilder::new(model)
        .tool(announcing("alpha"))
        .tool(announcing("beta"))
        .build()
        .session();
    let waiting = session.run("go").await.unwrap();
    assert_eq!(waiting.pending.len(), 2);

    let labels: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink_labels = labels.clone();
    let mut sink = move |record: &AgentStreamRecord| {
        sink_labels.lock().unwrap().push(record_label(record));
    };
    session
        .resume_with_events(
            vec![
                AgentHitlUserInteraction::approved("a1"),
                AgentHitlUserInteraction::approved("b1"),
            ],
            &mut sink,
        )
        .await
        .unwrap();
    let labels = labels.lock().unwrap().clone();
    let position = |wanted: &str| {
        labels
            .iter()
            .position(|record_label| record_label == wanted)
            .unwrap()
    };
    // docs/agent-runtime.md, Streams: "a tool's return (and the context
    // events it published) is reported when that call finishes, not when
    // its batch does."
    assert!(
        position("event:announced:alpha") < position("return:beta"),
        "alpha's event was held back until beta had run: {labels:?}"
    );
}

// ---------------------------------------------------------------------------
// 2. Scheduling: a batch with `call_tool` runs sequentially for a reason
//    the documentation does not list
// ---------------------------------------------------------------------------

#[tokio::test]
async fn batch_with_call_tool_is_scheduled_as_documented() {
    let library = StaticToolset::new("library").with_tool(echo("lookup", "Look up a term"));
    let proxy = tool_proxy_toolset(vec![Arc::new(library)]);
    // Strict like `call_tool`, so the profiles are not mixed.
    let note = echo_tool("note", "Take a note")
        .with_dependencies(ToolDependencyRequirements::strict(Vec::<String>::new()));
    let model = Arc::new(FunctionModel::new(|messages: &[ModelMessage], _| {
        Ok(match responses_so_far(messages) {
            0 => ModelResponse::tool_calls([
                call("p", "call_tool", json!({"name": "lookup", "arguments": {}})),
                call("n", "note", json!({})),
            ]),
            _ => ModelResponse::text("done"),
        })
    }));
    let agent = AgentBuilder::new(model)
        .toolset(&proxy)
        .tool(Arc::new(note))
        .build();
    let stream = agent.run_stream("go").await.unwrap();
    let batch = stream
        .events()
        .iter()
        .map(record_label)
        .find(|record_label| record_label.starts_with("batch:"))
        .unwrap();
    // docs/agent-runtime.md, Scheduling: a batch with the proxy's
    // `call_tool` runs sequentially, for the documented reason
    // `delegating_tool` (the wrapped tool's needs are unknown up front).
    assert_eq!(batch, "batch:sequential:delegating_tool");
}

// ---------------------------------------------------------------------------
// 8. The `test` model sends invalid values for string formats it does not
//    know, even ones schemars emits for std types
// ---------------------------------------------------------------------------

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct PingArgs {
    /// Host to ping.
    address: std::net::Ipv4Addr,
}

#[tokio::test]
async fn test_model_honours_the_formats_of_std_types() {
    let ping = starweaver::typed_tool::<PingArgs, _, _>(
        "ping",
        Some("Ping a host".to_string()),
        |_ctx: ToolContext, args: PingArgs| async move {
            Ok(ToolResult::new(json!({"pinged": args.address.to_string()})))
        },
    );
    let agent = AgentBuilder::new(Arc::new(starweaver::TestModel::auto()))
        .tool(Arc::new(ping))
        .build();
    let result = agent.run("go").await.unwrap();
    let returns = crate::common::tool_returns(&result.messages);
    // docs/agent-runtime.md, The `test` model: arguments "generated from
    // the tool's JSON Schema (required properties only, honouring `enum`,
    // `const`, `default`, lengths, bounds, formats, ...)".
    assert!(
        returns.first().is_some_and(|part| part.is_success()),
        "schema {} sampled as {}; run output: {}",
        starweaver::schema_for_type::<PingArgs>(),
        starweaver::model::sample_value(&starweaver::schema_for_type::<PingArgs>()),
        result.output
    );
}

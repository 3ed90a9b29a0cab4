//! [`McpServer`] as a library, in process over streamable HTTP: a `#[starweaver::tool]`
//! tool's return schema is its `outputSchema` and its result the `structuredContent`, and each
//! fact the server maps (`read_only` and `mutating` tags, approval, kind `unapproved`, kind
//! `external`) becomes its annotation.

use std::sync::Arc;

use rmcp::model::Tool as McpTool;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt as _;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};
use starweaver::mcp::server::{McpServer, ServeOptions};
use starweaver::tools::schema_for_type;
use starweaver::{AgentContext, Tool as _, ToolRegistry};
use tokio_util::sync::CancellationToken;

use super::{text, within, Client};

/// The forecast for one city.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Forecast {
    /// The city.
    pub city: String,
    /// Degrees Celsius.
    pub celsius: i32,
}

/// Look up a city's forecast from a weather service.
#[starweaver::tool(return_schema, kind = "external", tags("read_only"))]
async fn forecast(
    /// The city.
    city: String,
) -> Forecast {
    Forecast { city, celsius: 21 }
}

/// Write a note.
#[starweaver::tool(tags("mutating"))]
fn note(
    /// The note.
    text: String,
) -> String {
    text
}

/// Read the audit log (gated: approval outweighs the tag).
#[starweaver::tool(tags("read_only"))]
fn audit() -> String {
    "audited".to_string()
}

/// Deploy the service.
#[starweaver::tool(kind = "unapproved")]
fn deploy() -> String {
    "deployed".to_string()
}

/// List the city names, as a list (no object schema, so no `outputSchema`).
#[starweaver::tool(return_schema)]
fn cities() -> Vec<String> {
    vec!["Oslo".to_string()]
}

/// Say hello: no facts a hint could carry.
#[starweaver::tool]
fn hello() -> String {
    "hello".to_string()
}

/// The macro tools in one registry.
fn registry() -> ToolRegistry {
    ToolRegistry::new()
        .with_tool(Arc::new(forecast_tool()))
        .with_tool(Arc::new(note_tool()))
        .with_tool(Arc::new(audit_tool().with_approval_required(true)))
        .with_tool(Arc::new(deploy_tool()))
        .with_tool(Arc::new(cities_tool()))
        .with_tool(Arc::new(hello_tool()))
}

/// The tools `registry()` serves, listed by an SDK client over HTTP, and a call of
/// `forecast`; the server is stopped before this returns.
async fn listed_and_called() -> (Vec<McpTool>, rmcp::model::CallToolResult) {
    let server = McpServer::start(registry(), AgentContext::default(), ServeOptions::new())
        .await
        .unwrap();
    assert_eq!(
        server.report().served,
        ["audit", "cities", "deploy", "forecast", "hello", "note"]
    );
    let listener = server
        .bind_http("127.0.0.1:0".parse().unwrap(), false)
        .await
        .unwrap();
    let url = listener.url();
    let shutdown = CancellationToken::new();
    let serving = tokio::spawn(listener.run(shutdown.clone()));
    // The SDK's HTTP client is reqwest on rustls with no provider chosen.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = Client::default()
        .serve(StreamableHttpClientTransport::from_uri(url))
        .await
        .unwrap();
    let tools = client.peer().list_all_tools().await.unwrap();
    let Value::Object(arguments) = json!({"city": "Oslo"}) else {
        unreachable!()
    };
    let result = client
        .peer()
        .call_tool(rmcp::model::CallToolRequestParams::new("forecast").with_arguments(arguments))
        .await
        .unwrap();
    let _ = client.cancel().await;
    shutdown.cancel();
    serving.await.unwrap();
    server.stop().await;
    (tools, result)
}

fn find<'a>(tools: &'a [McpTool], name: &str) -> &'a McpTool {
    tools
        .iter()
        .find(|tool| tool.name == name)
        .unwrap_or_else(|| panic!("{name} is not served: {tools:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_macro_tools_return_schema_is_its_output_schema_and_its_result_structured_content() {
    within(async {
        let (tools, result) = listed_and_called().await;
        let forecast = find(&tools, "forecast");
        let output = forecast
            .output_schema
            .as_ref()
            .expect("forecast's output schema");
        let expected = schema_for_type::<Forecast>();
        assert_eq!(Value::Object((**output).clone()), expected);
        assert_eq!(
            Some(Value::Object((**output).clone())),
            forecast_tool().definition().return_schema
        );
        assert_eq!(
            forecast.description.as_deref(),
            Some("Look up a city's forecast from a weather service.")
        );
        assert_eq!(
            forecast.input_schema["properties"]["city"]["type"],
            json!("string")
        );
        // A return schema whose root is no object is not an `outputSchema`.
        assert_eq!(find(&tools, "cities").output_schema, None);
        assert_eq!(find(&tools, "hello").output_schema, None);

        assert_eq!(result.is_error, Some(false), "{result:?}");
        let forecast_value = json!({"city": "Oslo", "celsius": 21});
        assert_eq!(result.structured_content, Some(forecast_value.clone()));
        let shown: Value = serde_json::from_str(&text(&result)).unwrap();
        assert_eq!(shown, forecast_value);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_tag_is_a_read_only_hint() {
    within(async {
        let (tools, _) = listed_and_called().await;
        let hints = find(&tools, "forecast").annotations.clone().unwrap();
        assert_eq!(hints.read_only_hint, Some(true));
        assert_eq!(hints.destructive_hint, Some(false));
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mutating_tag_is_a_destructive_hint() {
    within(async {
        let (tools, _) = listed_and_called().await;
        let hints = find(&tools, "note").annotations.clone().unwrap();
        assert_eq!(hints.read_only_hint, Some(false));
        assert_eq!(hints.destructive_hint, Some(true));
        assert_eq!(hints.open_world_hint, None);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approval_is_a_destructive_hint_even_on_a_read_only_tool_and_so_is_kind_unapproved() {
    within(async {
        let (tools, _) = listed_and_called().await;
        for name in ["audit", "deploy"] {
            let hints = find(&tools, name).annotations.clone().unwrap();
            assert_eq!(hints.read_only_hint, Some(false), "{name}");
            assert_eq!(hints.destructive_hint, Some(true), "{name}");
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kind_external_is_an_open_world_hint_and_a_tool_without_facts_has_no_annotations() {
    within(async {
        let (tools, _) = listed_and_called().await;
        let hints = find(&tools, "forecast").annotations.clone().unwrap();
        assert_eq!(hints.open_world_hint, Some(true));
        for name in ["note", "audit", "deploy"] {
            let hints = find(&tools, name).annotations.clone().unwrap();
            assert_eq!(hints.open_world_hint, None, "{name}");
        }
        assert_eq!(find(&tools, "hello").annotations, None);
        assert_eq!(find(&tools, "cities").annotations, None);
    })
    .await;
}

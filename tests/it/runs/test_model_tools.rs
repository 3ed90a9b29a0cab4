//! The `test` model over the first-party tools: its arguments validate
//! against every tool's schema, a run with the file and shell tools on a
//! local folder and in memory has no refused call, and behind a proxy
//! `call_tool` reaches real tools.

use std::sync::Arc;

use serde_json::{json, Value};
use starweaver::agent::{AgentRunResult, AgentRunStatus};
use starweaver::bundles::user_input_tools;
use starweaver::environment::{LocalEnvironmentProvider, VirtualEnvironmentProvider};
use starweaver::model::{
    Model, ModelMessage, ModelRequest, ModelRequestParameters, ModelResponse, RequestPart,
    ToolCallPart, ToolDefinition, ToolReturnKind, ToolReturnPart,
};
use starweaver::{
    filesystem_tools, shell_tools, tool_proxy_toolset, tool_search_toolset, AgentBuilder,
    AgentSession, DynToolset, TestModel, ToolRegistry,
};

use crate::common::{assert_valid, tool_returns};

/// Every tool the project ships, as a model sees it.
fn first_party_definitions() -> Vec<ToolDefinition> {
    let toolsets: Vec<DynToolset> = vec![
        filesystem_tools(),
        shell_tools(),
        user_input_tools(),
        tool_proxy_toolset(vec![filesystem_tools()]),
        tool_search_toolset(vec![shell_tools()]),
    ];
    toolsets
        .iter()
        .fold(ToolRegistry::new(), |registry, toolset| {
            registry.with_toolset(toolset)
        })
        .definitions()
}

fn seed_return(id: &str, name: &str, content: Value) -> RequestPart {
    RequestPart::ToolReturn(ToolReturnPart {
        tool_call_id: id.into(),
        tool_name: name.into(),
        content,
        kind: ToolReturnKind::Success,
        metadata: serde_json::Map::new(),
        private_metadata: serde_json::Map::new(),
    })
}

/// A conversation in which earlier calls found a file, wrote the note
/// file, started a process and searched tools, so that every tool has
/// what its arguments need.
fn seeded_history(grep: &ToolDefinition) -> Vec<ModelMessage> {
    let earlier = [
        ("s1", "seed_listing", json!({})),
        (
            "s2",
            "seed_write_file",
            json!({"path": "test-model-note.txt", "content": "Where is the manifest loader?"}),
        ),
        ("s3", "seed_search_tools", json!({"query": "find"})),
    ];
    let response = ModelResponse::tool_calls(
        earlier
            .iter()
            .map(|(id, name, arguments)| ToolCallPart::new(*id, *name, arguments.clone())),
    );
    vec![
        ModelMessage::Request(ModelRequest::user("Where is the manifest loader?")),
        ModelMessage::Response(response),
        ModelMessage::Request(ModelRequest {
            parts: vec![
                seed_return(
                    "s1",
                    "seed_listing",
                    json!({"entries": [{"name": "a.rs", "path": "src/a.rs", "kind": "file"}],
                           "id": "proc-1"}),
                ),
                seed_return(
                    "s2",
                    "seed_write_file",
                    json!({"path": "test-model-note.txt", "bytes_written": 29, "created": true}),
                ),
                seed_return(
                    "s3",
                    "seed_search_tools",
                    json!({"tools": [{"name": "grep", "description": grep.description,
                                      "parameters": grep.parameters}]}),
                ),
            ],
        }),
    ]
}

#[tokio::test]
async fn auto_arguments_validate_against_every_first_party_tool() {
    let definitions = first_party_definitions();
    let grep = definitions
        .iter()
        .find(|definition| definition.name == "grep")
        .unwrap()
        .clone();
    let history = seeded_history(&grep);
    assert!(definitions.len() >= 16, "{}", definitions.len());
    for definition in &definitions {
        let model = TestModel::auto();
        let parameters = ModelRequestParameters {
            tools: vec![std::sync::Arc::new(definition.clone())],
            ..ModelRequestParameters::default()
        };
        for messages in [&history[..1], &history[..]] {
            let response = model.request(messages, &parameters).await.unwrap();
            for call in response.calls() {
                let arguments = call.arguments.to_json().unwrap();
                assert_valid(&definition.parameters, &arguments);
                if call.name == "call_tool" {
                    assert_eq!(arguments["name"], "grep");
                    assert_valid(&grep.parameters, &arguments["arguments"]);
                }
            }
            // With what earlier calls returned, every tool is called.
            if messages.len() > 1 {
                assert_eq!(response.calls().count(), 1, "{}", definition.name);
            }
        }
    }
}

/// Asserts no call of the run was refused (bad arguments, unknown tool,
/// a retry request) and every return succeeded.
fn assert_no_refused_call(result: &AgentRunResult) {
    let retries: Vec<&str> = result
        .messages
        .iter()
        .filter_map(|message| match message {
            ModelMessage::Request(request) => Some(request.parts.iter()),
            ModelMessage::Response(_) => None,
        })
        .flatten()
        .filter_map(|part| match part {
            RequestPart::RetryPrompt(part) => Some(part.content.as_str()),
            _ => None,
        })
        .collect();
    assert!(retries.is_empty(), "{retries:?}\n{}", result.output);
    for part in tool_returns(&result.messages) {
        assert!(
            !matches!(
                part.kind,
                ToolReturnKind::InvalidArguments | ToolReturnKind::NotFound
            ),
            "{} returned {:?}: {}",
            part.tool_name,
            part.kind,
            part.content
        );
        assert!(
            part.is_success(),
            "{}: {:?} {}",
            part.tool_name,
            part.kind,
            part.content
        );
    }
}

/// The content of the first return of `tool` (named directly or through
/// `call_tool`).
fn returned_by(result: &AgentRunResult, tool: &str) -> Option<Value> {
    let mut names = std::collections::HashMap::new();
    for message in &result.messages {
        if let ModelMessage::Response(response) = message {
            for call in response.calls() {
                let arguments = call.arguments.to_json().unwrap_or_default();
                let name = match arguments.get("name").and_then(Value::as_str) {
                    Some(inner) if call.name == "call_tool" => inner.to_string(),
                    _ => call.name.clone(),
                };
                names.insert(call.id.clone(), name);
            }
        }
    }
    tool_returns(&result.messages)
        .into_iter()
        .find(|part| names.get(part.tool_call_id.as_str()).map(String::as_str) == Some(tool))
        .map(|part| part.content)
}

async fn run_on_files_and_shell(
    environment: starweaver::environment::DynEnvironment,
    shell: starweaver::environment::DynProcessShell,
) -> AgentRunResult {
    let agent = AgentBuilder::new(Arc::new(TestModel::auto()))
        .toolset(&filesystem_tools())
        .toolset(&shell_tools())
        .build();
    let mut session = AgentSession::new(agent)
        .with_environment(environment)
        .with_process_shell(shell);
    session.run("Where is the manifest loader?").await.unwrap()
}

fn assert_sensible_run(result: &AgentRunResult) {
    assert_eq!(
        result.status,
        AgentRunStatus::Completed,
        "{}",
        result.output
    );
    assert_no_refused_call(result);
    let grep = returned_by(result, "grep").unwrap();
    assert_eq!(grep["matches"][0]["path"], "src/load/manifest.rs");
    let read = returned_by(result, "read_file").unwrap();
    assert_eq!(read["path"], "src/load/manifest.rs");
    let shell = returned_by(result, "shell_exec").unwrap();
    assert_eq!(shell["exit_code"], json!(0));
    assert!(
        result
            .output
            .contains("match(es), first src/load/manifest.rs:1"),
        "{}",
        result.output
    );
    assert!(
        result.output.contains("- read_file: src/load/manifest.rs"),
        "{}",
        result.output
    );
    assert!(
        result
            .output
            .contains("- shell_exec: exit_code 0, stdout \"manifest loader\""),
        "{}",
        result.output
    );
    // The background process tools wait for an id no call returned.
    assert!(
        result
            .output
            .contains("- shell_wait: not called, it needs an id that no earlier call returned"),
        "{}",
        result.output
    );
}

// Regression: the test model sent `shell_exec {}`, which every shell refuses as invalid_arguments.
#[tokio::test]
async fn an_auto_run_on_a_local_folder_has_no_refused_call() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src/load")).unwrap();
    std::fs::write(
        dir.path().join("src/load/manifest.rs"),
        "//! The manifest loader.\npub fn load() {}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("README.md"), "# Demo\n").unwrap();
    let provider = Arc::new(LocalEnvironmentProvider::new(dir.path()).unwrap());
    let result = run_on_files_and_shell(provider.clone(), provider).await;
    assert_sensible_run(&result);
    // The note the model wrote, then edited.
    let note = std::fs::read_to_string(dir.path().join("test-model-note.txt")).unwrap();
    assert_eq!(note, "Where is the manifest loader? (edited)");
}

#[tokio::test]
async fn an_auto_run_in_memory_has_no_refused_call() {
    let provider = Arc::new(
        VirtualEnvironmentProvider::new("repo")
            .with_file("README.md", "# Demo\n")
            .with_file(
                "src/load/manifest.rs",
                "//! The manifest loader.\npub fn load() {}\n",
            ),
    );
    let result = run_on_files_and_shell(provider.clone(), provider).await;
    assert_sensible_run(&result);
}

// Regression: `call_tool` named `example`, a tool that does not exist (not_found).
#[tokio::test]
async fn behind_a_proxy_call_tool_reaches_real_tools() {
    let provider = Arc::new(
        VirtualEnvironmentProvider::new("repo")
            .with_file("src/load/manifest.rs", "//! The manifest loader.\n"),
    );
    let proxy: DynToolset = tool_proxy_toolset(vec![filesystem_tools(), shell_tools()]);
    let agent = AgentBuilder::new(Arc::new(TestModel::auto()))
        .toolset(&proxy)
        .build();
    let mut session = AgentSession::new(agent)
        .with_environment(provider.clone())
        .with_process_shell(provider);
    let result = session.run("show what you can do").await.unwrap();
    assert_eq!(
        result.status,
        AgentRunStatus::Completed,
        "{}",
        result.output
    );
    assert_no_refused_call(&result);
    let shell = returned_by(&result, "shell_exec").unwrap();
    assert_eq!(shell["exit_code"], json!(0), "{shell}");
    let listing = returned_by(&result, "ls").unwrap();
    assert!(listing["entries"].is_array(), "{listing}");
    assert!(
        result
            .output
            .contains("- call_tool(shell_exec): exit_code 0"),
        "{}",
        result.output
    );
}
